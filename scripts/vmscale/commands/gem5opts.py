"""The `--gem5 KEY=VALUE` option that `run` and `checkpoint` share, checked while parsing."""

import argparse

MAX_HOST_HELP = ("gem5: save a boot still running after this many host seconds and exit 75; the same "
                 "command continues it (default inside Slurm: the job's time left minus 15 min)")


class Gem5Option(argparse.Action):
    """Collects KEY=VALUE into a dict; a key or value the Board does not take is a usage error."""

    def __call__(self, parser, namespace, value, option_string=None):
        from vmscale_gem5 import board, limits
        key, sep, val = value.partition("=")
        key = key.replace("-", "_")
        if not sep or key not in board.NAMES:
            parser.error(f"{option_string} {value!r}: expected KEY=VALUE with KEY one of {', '.join(sorted(board.NAMES))}")
        opts = dict(getattr(namespace, self.dest) or {})
        opts[key] = val
        try:
            board.Board.make(opts)   # a bad value or board name is a usage error too
        except limits.ConfigError as e:
            parser.error(f"{option_string} {value!r}: {e}")
        setattr(namespace, self.dest, opts)


def add(parser, help_):
    parser.add_argument("--gem5", action=Gem5Option, default={}, metavar="KEY=VALUE", help=help_)
    parser.add_argument("--max-host-seconds", type=float, default=0, help=MAX_HOST_HELP)
