"""`vmscale sweep run|status|run-job|slurm`: sweeps here (resumable) or on a Slurm cluster."""

import json
from pathlib import Path

from vmscale import paths


def register(sub):
    sw = sub.add_parser("sweep", help="run sweeps locally or on Slurm")
    ssub = sw.add_subparsers(dest="sweep_cmd", required=True)
    x = ssub.add_parser("run", help="run a sweep spec here, resuming what is complete")
    x.add_argument("spec", help="a sweep spec (TOML; see scripts/sweeps/)")
    x.add_argument("--out", help="sweep directory (default: results/<spec name>)")
    x.add_argument("--parallel", type=int, help="jobs at once (default: 1 for qemu, host CPUs otherwise)")
    x.set_defaults(func=run)
    x = ssub.add_parser("status", help="what a sweep directory holds")
    x.add_argument("sweep_dir", help="a sweep's output directory")
    x.set_defaults(func=status)
    x = ssub.add_parser("run-job", help="run one job of a prepared sweep (Slurm array task)")
    x.add_argument("sweep_dir", help="a sweep directory prepared by `sweep slurm`")
    x.add_argument("index", type=int, help="the job's index (SLURM_ARRAY_TASK_ID)")
    x.set_defaults(func=run_job)
    x = ssub.add_parser("slurm", help="write sbatch scripts for a sweep")
    x.add_argument("spec", help="a sweep spec (TOML; see scripts/sweeps/)")
    x.add_argument("--out", help="sweep directory (default: results/<spec name>)")
    x.add_argument("--partition", help="Slurm partition (sbatch -p)")
    x.add_argument("--account", help="Slurm account (sbatch -A)")
    x.add_argument("--throttle", type=int, default=8, help="array tasks running at once")
    x.set_defaults(func=slurm)


def _out(args):
    return args.out or str(paths.REPO / "results" / Path(args.spec).stem)


def run(args):
    from vmscale import sweep_runner
    return sweep_runner.run(args.spec, _out(args), args.parallel)


def status(args):
    from vmscale import sweep_runner
    st = sweep_runner.status(args.sweep_dir)
    sweep_runner.write_table(Path(args.sweep_dir))
    j, p = st["jobs"], st["points"]
    print(f"jobs: {j['complete']} complete, {j['failed']} failed, {j['partial']} interrupted, {j['pending']} pending "
          f"(of {st['total_jobs']}); points: {p['complete']} complete, {p['failed']} failed")
    failures = Path(args.sweep_dir) / "failures.jsonl"
    if failures.exists():
        for line in failures.read_text().splitlines()[-10:]:
            f = json.loads(line)
            print(f"  failed {f['job']} ({f['cores']} cores): {f['reason']}")
    return 0


def run_job(args):
    from vmscale import sweep_runner
    return sweep_runner.run_one(args.sweep_dir, args.index)


def slurm(args):
    from vmscale import slurm as slurm_
    sdir = slurm_.write(args.spec, _out(args), args.partition, args.account, args.throttle)
    print(f"wrote {sdir}/points.sbatch and {sdir}/submit.sh; submit with: bash {sdir}/submit.sh")
    return 0
