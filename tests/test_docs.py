"""Docs that stay true: every `vmscale ...` command shown in the README and docs/ exists with the
options it is shown with, every relative link and every `results/...` path named resolves, every
module of each package is named in its folder's README, and the README stays short."""

import argparse
import re
from pathlib import Path

import pytest

from conftest import REPO
from vmscale import cli

DOCS = [REPO / "README.md", REPO / "scripts" / "README.md", REPO / "sim-configs" / "README.md",
        REPO / "queueing-model" / "README.md", REPO / "guest-workloads" / "README.md",
        REPO / "results" / "README.md", REPO / "results" / "FINDINGS.md", REPO / "results" / "RUNLOG.md",
        *sorted((REPO / "docs").rglob("*.md"))]
# Where a package's modules live -> the README that must name each of them.
PACKAGES = {"scripts/vmscale": "scripts/README.md", "scripts/vmscale/commands": "scripts/README.md",
            "scripts/vmscale/backends": "scripts/README.md", "sim-configs": "sim-configs/README.md",
            "sim-configs/vmscale_gem5": "sim-configs/README.md",
            "queueing-model/vmscale_model": "queueing-model/README.md"}
COMMAND = re.compile(r"(?:^|[\s`(])(?:\.venv/bin/)?vmscale ([^`\n|;&)]*)")


def _subparsers(p):
    return next((a for a in p._actions if isinstance(a, argparse._SubParsersAction)), None)


def _command_lines():
    """(doc, the words after `vmscale`) for every command line shown in code or backticks."""
    out = []
    for doc in DOCS:
        text = doc.read_text()
        spans = re.findall(r"```.*?```", text, flags=re.S) + re.findall(r"`[^`\n]+`", text)
        for span in spans:
            span = re.sub(r"(^|\s)#.*", "", span, flags=re.M)      # shell comments
            for m in COMMAND.finditer(span):
                words = m.group(1).split()
                if words and re.fullmatch(r"[a-z][a-z0-9-]*", words[0]):
                    out.append((doc.relative_to(REPO).as_posix(), words))
    return out


def _resolve(words):
    """The parser a command line reaches, the command words it took, or an error."""
    p, path = cli.parser(), []
    for w in words:
        sub = _subparsers(p)
        if sub is None or w not in sub.choices:
            break
        p, path = sub.choices[w], path + [w]
    return p, path


def test_every_command_shown_exists_with_the_options_it_is_shown_with():
    lines = _command_lines()
    assert len(lines) > 30, "the docs show few vmscale commands: is the pattern still right?"
    bad = []
    for doc, words in lines:
        p, path = _resolve(words)
        if not path:
            bad.append(f"{doc}: `vmscale {' '.join(words)}`: no such command")
            continue
        known = {o for a in p._actions for o in a.option_strings}
        for w in words[len(path):]:
            opt = re.match(r"\[?(--[a-z0-9-]+)", w)
            if opt and opt.group(1) not in known:
                bad.append(f"{doc}: `vmscale {' '.join(path)}` has no option {opt.group(1)}")
    assert not bad, "\n".join(bad)


def test_every_command_path_gives_its_help():
    for path in sorted({tuple(_resolve(words)[1]) for _, words in _command_lines()} - {()}):
        with pytest.raises(SystemExit) as e:
            cli.parser().parse_args([*path, "--help"])
        assert e.value.code == 0, path


def test_every_relative_link_and_named_results_path_exists():
    bad = []
    for doc in DOCS:
        text = doc.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:|#", target):
                continue
            if not (doc.parent / target.split("#")[0]).exists():
                bad.append(f"{doc.relative_to(REPO)}: link {target}")
        if doc.parent == REPO / "results" and doc.name != "README.md":
            continue   # the log and findings name records by their own directories too
        for path in re.findall(r"`(results/[A-Za-z0-9_./-]+)`", text):
            if not (REPO / path).exists() and not any(c in path for c in "<*{"):
                bad.append(f"{doc.relative_to(REPO)}: {path}")
    assert not bad, "\n".join(bad)


def test_every_module_is_named_in_its_folders_readme():
    bad = []
    for pkg, readme in PACKAGES.items():
        text = (REPO / readme).read_text()
        for f in sorted((REPO / pkg).glob("*.py")):
            if f.stem != "__init__" and f"{f.stem}.py" not in text:
                bad.append(f"{readme} does not name {pkg}/{f.name}")
    assert not bad, "\n".join(bad)


def test_the_readme_is_short_and_starts_with_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 160
    block = re.search(r"```sh\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    assert block == ["bash scripts/setup.sh && .venv/bin/vmscale demo", ".venv/bin/python -m pytest"]
