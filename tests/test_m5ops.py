"""Our m5 ops: the instruction encoding gem5 decodes, and no-ops outside gem5."""

import re
import subprocess


def test_instruction_form_encodes_0f04_and_function(workloads_built, tmp_path):
    text = tmp_path / "text.bin"
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.text",
                    str(workloads_built / "obj" / "m5ops.o"), str(text)], check=True)
    code = text.read_bytes()
    # gem5 decodes 0F 04 followed by a 16-bit function number (little endian).
    funcs = {m.group(1)[0] for m in re.finditer(rb"\x0f\x04(.)\x00", code, re.S)}
    for fn in (0x21, 0x40, 0x41, 0x42, 0x43, 0x4F, 0x50, 0x5A, 0x5B):
        assert fn in funcs, f"no 0f 04 {fn:02x} 00 in m5ops.o"


def test_off_by_default_and_never_sigill(workloads_built):
    m5 = str(workloads_built / "m5")
    env = {"PATH": "/usr/bin:/bin"}  # no M5_MODE; this host's cmdline has no vmscale.m5=
    assert subprocess.run([m5, "mode"], capture_output=True, text=True, env=env).stdout.strip() == "off"
    for cmd in (["exit"], ["workbegin", "0", "0"], ["workend", "0", "0"], ["resetstats"], ["dumpstats"],
                ["checkpoint"]):
        assert subprocess.run([m5, *cmd], env=env).returncode == 0, cmd
    r = subprocess.run([m5, "readfile"], capture_output=True, env=env)
    assert r.returncode == 0 and r.stdout == b""


def test_bad_mode_is_an_error(workloads_built):
    r = subprocess.run([str(workloads_built / "m5"), "mode"], capture_output=True, text=True,
                       env={"M5_MODE": "fast"})
    assert r.returncode == 1 and "use off, inst or addr" in r.stderr
