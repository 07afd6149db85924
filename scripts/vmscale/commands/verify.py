"""`vmscale verify RECORD [--rerun]`: a record's rows and manifests against its raw files, and
(--rerun) one of its gem5 points re-run against its simulated cycles."""

import json
import subprocess
import sys
import tempfile
from pathlib import Path


def register(sub):
    v = sub.add_parser("verify", help="check a record in results/ against its raw files (--rerun: re-run a gem5 point)")
    v.add_argument("record", nargs="+", help="results/DIR (every run directory under it is checked)")
    v.add_argument("--rerun", action="store_true",
                   help="re-run the first gem5 run directory of the record (GEM5 set) and compare its simulated cycles")
    v.add_argument("--rerun-dir", help="where the re-run goes (default: a temporary directory)")
    v.set_defaults(func=main)


def main(args):
    from vmscale import verify
    from vmscale.errors import VmscaleError
    bad = 0
    for record in args.record:
        if not Path(record).is_dir():
            raise VmscaleError(f"{record}: not a directory", "give a record such as results/gem5-scaling")
        found = verify.verify(Path(record))
        if not found:
            print(f"verify: {record}: not checked: it holds no run directory (manifest.json beside results.jsonl) "
                  "and no boot-cost table")
            continue
        for d, findings in found.items():
            failed = verify.failures(findings)
            bad += bool(failed)
            print(f"{'ok  ' if not failed else 'FAIL'} {d}")
            for f in findings:
                print(f"     {f}")
        print(f"verify: {record}: {len(found)} run directories and tables, "
              f"{sum(bool(verify.failures(f)) for f in found.values())} with findings")
    if args.rerun:
        gem5_runs = [d for d in verify.run_dirs(Path(args.record[0]))
                     if json.loads((d / "manifest.json").read_text()).get("backend") == "gem5"]
        if not gem5_runs:
            raise VmscaleError(f"{args.record[0]}: no gem5 run directory to re-run")
        d = gem5_runs[0]
        record = json.loads((d / "manifest.json").read_text())
        rows = [json.loads(line) for line in (d / "results.jsonl").read_text().splitlines() if line]
        out = Path(args.rerun_dir or tempfile.mkdtemp(prefix="vmscale-rerun-")) / d.name
        cmd = [sys.executable, "-m", "vmscale"] + verify.rerun_command(d, record, out)
        print(f"verify: re-running {d} as {' '.join(cmd[2:])}", flush=True)
        r = subprocess.run(cmd)
        if r.returncode not in (0, 1) or not (out / "manifest.json").is_file():
            raise VmscaleError(f"the re-run of {d} did not complete (exit {r.returncode})", f"see {out}.failed")
        again = json.loads((out / "manifest.json").read_text())
        again_rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line]
        scripts = tuple((p / "run.sh").read_text() if (p / "run.sh").is_file() else None for p in (d, out))
        diffs = verify.compare_rerun(record, rows, again, again_rows, scripts)
        for r_ in again_rows:
            print(f"  {r_['kernel_variant']}/{r_['workload']}: gem5.sim_ticks {r_.get('gem5.sim_ticks')}")
        if diffs:
            bad += 1
            print("verify: the re-run differs from the record:")
            for f in diffs:
                print(f"     {f}")
        else:
            print(f"verify: re-made equals recorded: every case's simulated ticks identical ({out})")
    return 1 if bad else 0
