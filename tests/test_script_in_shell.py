"""The generated run script, executed by a real shell against a fake /proc/sys tree."""

import subprocess

from vmscale import console, guest_script


def test_script_runs_in_sh_and_parses(tmp_path):
    # The script writes /proc/sys/...; run it in a private copy with paths rewritten.
    sysdir = tmp_path / "proc/sys/vm"
    sysdir.mkdir(parents=True)
    (sysdir / "vmscale_fault").write_text("stock\n")
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text('#!/bin/sh\necho "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0,\\"args\\":\\"$*\\"}"\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "rwlock", {"threads": 2}, {"vm/vmscale_fault": "rwlock"}),
             guest_script.Case(2, "local", "bogus", {"threads": 2}, {"vm/nonexistent": "x"})]
    text = guest_script.render(cases).replace("/proc/sys", str(tmp_path / "proc/sys")).replace(
        "/bin/local", str(prog))
    out = subprocess.run(["sh", "-c", text], capture_output=True, text=True).stdout
    con = console.parse(out)
    assert (sysdir / "vmscale_fault").read_text().strip() == "rwlock"
    assert con.cases[1].sysctls == {"vm/vmscale_fault": "rwlock"}
    assert con.cases[1].result["args"] == "threads=2"
    assert con.cases[2].rc == 98 and con.cases[2].result is None


def test_upstream_values_pass_on_a_kernel_without_the_switch(tmp_path):
    # An unpatched kernel lacks vm/vmscale_lazy_mm: "atomic" is what it does anyway, so the case
    # runs; "refcache" is a variant it cannot provide, so the case fails with rc 98.
    (tmp_path / "proc/sys/vm").mkdir(parents=True)
    prog = tmp_path / "bin/local"
    prog.parent.mkdir()
    prog.write_text('#!/bin/sh\necho "VMSCALE-RESULT {\\"ok\\":true,\\"errors\\":0}"\n')
    prog.chmod(0o755)
    cases = [guest_script.Case(1, "local", "stock", {}, {"vm/vmscale_lazy_mm": "atomic"}),
             guest_script.Case(2, "local", "refcache", {}, {"vm/vmscale_lazy_mm": "refcache"})]
    text = guest_script.render(cases).replace("/proc/sys", str(tmp_path / "proc/sys")).replace(
        "/bin/local", str(prog))
    con = console.parse(subprocess.run(["sh", "-c", text], capture_output=True, text=True).stdout)
    assert con.cases[1].rc == 0 and con.cases[1].result["ok"]
    assert con.cases[2].rc == 98 and con.cases[2].result is None
