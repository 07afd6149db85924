"""The `vmscale` command line: the commands of `vmscale.commands`, each with its own parser."""

import argparse
import sys

from vmscale.commands import COMMANDS
from vmscale.errors import VmscaleError


def parser():
    p = argparse.ArgumentParser(prog="vmscale", description="scalable-VM experiments: build, run, collect, model")
    sub = p.add_subparsers(dest="cmd", required=True)
    for command in COMMANDS:
        command.register(sub)
    return p


def main(argv=None):
    args = parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    try:
        return args.func(args)
    except VmscaleError as e:
        code = getattr(e, "exit_code", 2)
        print(f"vmscale: {'resume' if code != 2 else 'error'}: {e}", file=sys.stderr)
        return code
    except KeyboardInterrupt:
        print("vmscale: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
