"""Every command's --help and -h, as a user types them, print its usage and exit 0."""

import argparse

import pytest

from conftest import vmscale
from vmscale import cli


def _commands():
    sub = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def _nested(cmd):
    sub = [a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction)][0].choices[cmd]
    return sorted(next((a.choices for a in sub._actions if isinstance(a, argparse._SubParsersAction)), {}))


@pytest.mark.parametrize("cmd", _commands())
def test_help_of_every_command(cmd):
    for flag in ("--help", "-h"):
        r = vmscale(cmd, flag)
        assert r.returncode == 0, (cmd, flag, r.stderr)
        assert r.stdout.startswith(f"usage: vmscale {cmd}"), r.stdout[:200]
    for child in _nested(cmd):
        r = vmscale(cmd, child, "--help")
        assert r.returncode == 0 and r.stdout.startswith(f"usage: vmscale {cmd} {child}"), (cmd, child, r.stderr)


def test_model_subcommands_have_help():
    for child in ("fit", "simulate", "mva", "piggin"):
        r = vmscale("model", child, "--help")
        assert r.returncode == 0 and r.stdout.startswith(f"usage: vmscale model {child}"), r.stdout[:200] + r.stderr


def test_every_argument_says_what_it_is():
    """No argument of any command is left without a help line."""
    missing = []

    def walk(p, path):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sp in a.choices.items():
                    walk(sp, path + [name])
            elif not a.help and a.dest != "help":
                missing.append(" ".join(path + [a.option_strings[0] if a.option_strings else a.dest]))
    walk(cli.parser(), ["vmscale"])
    assert not missing, missing


@pytest.mark.parametrize("args,message", [
    (["run", "--backend", "qemuu", "--cores", "1", "--workload", "local"], "invalid choice: 'qemuu'"),
    (["run", "--flavor", "debugg", "--cores", "1", "--workload", "local"], "invalid choice: 'debugg'"),
    (["build", "kernel", "--flavor", "kasn"], "invalid choice: 'kasn'"),
])
def test_backend_and_flavour_are_closed_choices(args, message):
    r = vmscale(*args)
    assert r.returncode == 2 and message in r.stderr
