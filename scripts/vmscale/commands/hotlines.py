"""`vmscale hotlines RUN_DIR`: the lines that moved between private caches in each ROI, named."""

from pathlib import Path


def register(sub):
    x = sub.add_parser("hotlines", help="top moving cache lines of a gem5 run made with --gem5 hotlines=1")
    x.add_argument("run_dir", help="a gem5 run directory (vmscale run --backend gem5 --gem5 hotlines=1)")
    x.add_argument("--top", type=int, default=15, help="lines listed per ROI (the rest are summed in one row)")
    x.add_argument("--out", help="where hotlines.csv and the figure go (default: the run directory)")
    x.add_argument("--vmlinux", help="the run's kernel, if its manifest's path is gone")
    x.add_argument("--checkpoint", help="the run's boot checkpoint (per-CPU offsets), if moved; without it, a "
                   "checkpoint that is gone, and percpu.json from an earlier analysis in the run directory: those")
    x.add_argument("--symbols", help="instead of a vmlinux: its `nm -S -n --defined-only` listing")
    x.add_argument("--percpu", help="instead of a checkpoint: a JSON file {\"__per_cpu_offset\": [hex, ...]}")
    x.set_defaults(func=main)


def main(args):
    from vmscale import hotlines
    from vmscale.errors import VmscaleError
    from vmscale.fileutil import atomic_write_text
    if args.top < 1:
        raise VmscaleError(f"--top {args.top}: give at least 1")
    namer = None
    if args.symbols:
        namer = hotlines.namer_from_files(args.symbols, args.percpu)
    elif args.percpu:
        raise VmscaleError("--percpu goes with --symbols (a vmlinux's own offsets come from its checkpoint)")
    result = hotlines.analyse(Path(args.run_dir), args.top, args.vmlinux, args.checkpoint, namer=namer)
    out = Path(args.out or args.run_dir)
    out.mkdir(parents=True, exist_ok=True)
    print(hotlines.render(result))
    atomic_write_text(out / "hotlines.csv", hotlines.to_csv(result["rows"]))
    if result.get("percpu_offsets"):       # so that a later analysis names per-CPU lines without the checkpoint
        atomic_write_text(out / hotlines.PERCPU_FILE, hotlines.percpu_json(result["percpu_offsets"]))
    figs = hotlines.plot(result, str(out / "hotlines"), min(args.top, 12))
    figs += hotlines.plot_timeline(result, str(out / "hotlines-time"))
    print(f"wrote {out / 'hotlines.csv'}, {', '.join(f for f in figs if f.endswith('.png'))}")
    return 0
