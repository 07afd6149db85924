"""The `vmscale` commands: each module registers its own parser (`register(sub)`) and
handles its own parsed `args`; `vmscale.cli` only assembles them, in COMMANDS' order."""


def csv_list(text):
    return [t for t in text.split(",") if t]


from vmscale.commands import (board, build, calibrate, checkpoint, collect, compare, demo, fidelity,  # noqa: E402
                              hotlines, model, plot, realscale, ring, run, sweep, threads, validate,
                              verify, workloads)

COMMANDS = [build, run, collect, sweep, checkpoint, plot, compare, fidelity, hotlines, ring, threads, calibrate, board,
            validate, realscale, verify, workloads, demo, model]
