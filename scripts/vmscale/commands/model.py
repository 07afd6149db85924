"""`vmscale model fit|study|simulate|mva|piggin`: the queueing model's own commands, hung here."""


def register(sub):
    from vmscale_model import cli as model_cli
    m = sub.add_parser("model", help="the queueing model: fit, study, simulate, mva, piggin",
                       description="queueing model of contended cache lines")
    model_cli.add_commands(m)
