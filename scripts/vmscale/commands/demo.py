"""`vmscale demo`: the main job (build, a small sweep, the model fitted to cycle-level curves, plots)."""

from vmscale import paths
from vmscale.backends import BACKENDS


def register(sub):
    d = sub.add_parser("demo", help="the main job: build, run a small sweep, fit the model, plot")
    d.add_argument("--out", default=str(paths.runs_dir() / "demo"), help="output directory (default: %(default)s)")
    d.add_argument("--cores", default="1,2,4,8", help="core counts to run (one boot each)")
    d.add_argument("--backend", choices=BACKENDS, help="force a backend (default: the best available)")
    d.add_argument("--fit-qemu", action="store_true",
                   help="also fit the model to this run's QEMU timing (functional, not cycle-level: "
                        "expect poor fits)")
    d.set_defaults(func=main)


def main(args):
    from vmscale import demo
    return demo.main(args)
