"""`vmscale checkpoint`: gem5's boot-once checkpoint for a core count and board."""

from vmscale.commands import gem5opts


def register(sub):
    ck = sub.add_parser("checkpoint", help="gem5: make the boot checkpoint for a core count and board")
    ck.add_argument("--cores", type=int, required=True, help="CPUs of the board to boot")
    gem5opts.add(ck, "gem5 board option KEY=VALUE, as for `run` (repeatable)")
    ck.set_defaults(func=main)


def main(args):
    from vmscale import kernel
    from vmscale.backends import gem5
    gem5.check_board(args.cores, args.gem5)
    gem5.check(args.cores, args.gem5, gem5.info())
    cpt = gem5.checkpoint(args.cores, kernel.load_manifest("normal"), args.gem5,
                          max_host_seconds=args.max_host_seconds)
    print(f"checkpoint: {cpt}")
    return 0
