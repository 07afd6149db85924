"""vmscale on gem5 v24 X86 full system (run by a gem5 binary: `$GEM5 sim-configs/vmscale_fs.py ...`).

Modes:
  run         boot with --cpu and run the guest's script (m5 readfile) to its m5 exit
  checkpoint  boot with an atomic (Ruby bypassed) or KVM CPU; the guest's /init takes
              `m5 checkpoint` after boot (vmscale.checkpoint=1), we save it and stop
  restore     restore that checkpoint on the same board with --cpu timing/o3 and run a
              new --script: one boot serves many experiments
The guest's workbegin/workend reset and dump statistics (the ROI); stats.txt then holds one
dump per ROI and a final one.  Decisions live in vmscale_gem5 (tested without gem5).
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import m5  # noqa: E402
import m5.debug  # noqa: E402
import m5.objects  # noqa: E402
import m5.trace  # noqa: E402
from m5.defines import buildEnv  # noqa: E402

from gem5.coherence_protocol import CoherenceProtocol  # noqa: E402
from gem5.components.cachehierarchies.classic.no_cache import NoCache  # noqa: E402
from gem5.components.memory.memory import ChanneledMemory  # noqa: E402
from gem5.components.processors.cpu_types import CPUTypes  # noqa: E402
from gem5.components.processors.simple_processor import SimpleProcessor  # noqa: E402
from gem5.isas import ISA  # noqa: E402
from gem5.resources.resource import DiskImageResource, KernelResource  # noqa: E402
from gem5.simulate.exit_event import ExitEvent  # noqa: E402
from gem5.simulate.simulator import Simulator  # noqa: E402
from gem5.utils.requires import requires  # noqa: E402
from m5.objects import DDR4_2400_8x8  # noqa: E402

from vmscale_gem5 import buildinfo, limits, options  # noqa: E402

a = options.parse()
try:
    # The Ruby set-bitmap width has no stdlib accessor: m5.defines is where gem5 publishes it.
    bits = buildEnv.get("NUMBER_BITS_PER_SET")
    a.bits_per_set = a.bits_per_set or (int(bits) if bits else None)
    a.kvm_available = a.kvm_available or os.access("/dev/kvm", os.R_OK | os.W_OK)
    a.x2apic_build = a.x2apic_build or ("yes" if buildinfo.has_x2apic(m5.objects) else "no")
    options.validate(a)
    requires(isa_required=ISA.X86,
             coherence_protocol_required=CoherenceProtocol.MESI_TWO_LEVEL if a.memory_system == "ruby" else None,
             kvm_required=a.cpu == "kvm")
except limits.ConfigError as e:
    print(f"vmscale_fs: error: {e}", file=sys.stderr)
    sys.exit(2)
except Exception as e:   # requires(): this binary is not the gem5 these options need
    print(f"vmscale_fs: error: {' '.join(str(e).split())}", file=sys.stderr)
    sys.exit(2)

from vmscale_board import VmscaleX86Board  # noqa: E402

if a.memory_system == "ruby":
    import networks  # noqa: E402
    from gem5.components.cachehierarchies.ruby.mesi_two_level_cache_hierarchy import (  # noqa: E402
        MESITwoLevelCacheHierarchy)

    networks.use(a.network, options.graph(a),
                 **({"bandwidth_factor": a.link_bandwidth} if a.network == "simple" else {"flit_bytes": a.link_bandwidth}))
    cache = MESITwoLevelCacheHierarchy(
        l1i_size=f"{a.l1_size}KiB", l1i_assoc=a.l1_assoc, l1d_size=f"{a.l1_size}KiB", l1d_assoc=a.l1_assoc,
        l2_size=f"{a.l2_size}KiB", l2_assoc=a.l2_assoc, num_l2_banks=a.l2_banks)
else:
    cache = NoCache()

CPU_TYPES = {"atomic": CPUTypes.ATOMIC, "timing": CPUTypes.TIMING, "o3": CPUTypes.O3, "kvm": CPUTypes.KVM}
switching = options.tail_switch(a)
if switching:
    from vmscale_processor import ROI, TAIL, TailProcessor  # noqa: E402
    processor = TailProcessor(CPU_TYPES[a.cpu], CPU_TYPES[a.tail_cpu], a.cores, ISA.X86)
else:
    processor = SimpleProcessor(cpu_type=CPU_TYPES[a.cpu], num_cores=a.cores, isa=ISA.X86)
memory = ChanneledMemory(DDR4_2400_8x8, a.mem_channels, 64, size=f"{a.memory}MiB")
board = VmscaleX86Board(clk_freq=a.clock, processor=processor, memory=memory, cache_hierarchy=cache,
                        x2apic=a.x2apic_on)
board.fix_cpuid_apic_ids()

script = Path(a.script).read_text() if a.script else ""
board.set_kernel_disk_workload(
    kernel=KernelResource(local_path=a.kernel),
    disk_image=DiskImageResource(local_path=a.disk, root_partition=None),
    readfile_contents=script,
    kernel_args=options.kernel_args(a),
    checkpoint=(Path(a.checkpoint_dir) if a.mode == "restore"
                else Path(a.resume_from) if a.resume_from else None),
)

t0 = time.time()
resume = {"saved": False}
EXIT_RESUME = 75   # EX_TEMPFAIL: the boot was saved at the host time limit; run again to continue


def progress_line(what):
    sim_s = m5.curTick() / 1e12
    print(f"vmscale_fs: [{time.time() - t0:8.1f}s host, {sim_s:.4f}s simulated] {what}", flush=True)


# Exit-event handlers are plain functions (the Simulator calls one per event of its type);
# True ends the run.
def on_checkpoint():
    progress_line(f"saving checkpoint to {a.checkpoint_dir}")
    simulator.save_checkpoint(Path(a.checkpoint_dir))
    return True  # stop: restore runs in another gem5 process


def on_workbegin():
    if switching and processor.use(ROI):      # before the reset: the drain is not the ROI's
        progress_line(f"switched to {a.cpu}")
    progress_line("ROI begins: stats reset")
    m5.stats.reset()
    if a.hotlines:
        hotlines_mark("begin")
        m5.debug.flags["ProtocolTrace"].enable()
    if a.roi_profile:
        profiled["roi"], profiled["marked"] = True, False
        profile_window(start=True)
    return False


def on_workend():
    if a.hotlines:
        m5.debug.flags["ProtocolTrace"].disable()
        hotlines_mark("end")
    if a.roi_profile:
        profiled["roi"] = False
        exec_trace(False)
        if not profiled["marked"]:      # ended before its first window: an empty span
            roi_mark("profile-rois.txt", "begin")
        roi_mark("profile-rois.txt", "end")
    m5.stats.dump()
    progress_line("ROI ends: stats dumped")
    if switching and processor.use(TAIL):
        progress_line(f"switched to {a.tail_cpu}")
    return False


def hotlines_start():
    """--hotlines: gem5's trace output goes to a FIFO read by a filter process beside gem5
    (vmscale_gem5.hotlines), which keeps only line moves and misses: the raw trace has a line
    per memory access.  ROI bounds go to hotlines-rois.txt, to split the events by ROI."""
    import subprocess
    fifo = os.path.join(m5.options.outdir, "hotlines.fifo")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    subprocess.Popen(["python3", "-m", "vmscale_gem5.hotlines", fifo,
                      os.path.join(m5.options.outdir, "hotlines.events.gz")], env=env)
    m5.trace.output("hotlines.fifo")     # opens once the filter has: gem5 waits for it
    Path(m5.options.outdir, "hotlines-rois.txt").write_text("")


def hotlines_mark(word):
    roi_mark("hotlines-rois.txt", word)


def roi_mark(name, word):
    with open(os.path.join(m5.options.outdir, name), "a") as f:
        f.write(f"{word} {m5.curTick()}\n")


# Instruction tracing with kernel symbols, switched on for short windows (--profile).
EXEC_FLAGS = ["ExecEnable", "ExecMacro", "ExecSymbol", "ExecUser", "ExecKernel"]


def on_period():
    """Every --progress of simulated time (the Simulator's max_ticks per simulate call, so
    counted from the last exit event of any kind): a progress line and the time limits.
    With --tail-cpu the first period is a few ticks: the restore is in, switch to the tail CPU."""
    if switching and not first_period["done"]:
        first_period["done"] = True
        simulator.set_max_ticks(PERIOD)
        if processor.use(TAIL):
            progress_line(f"switched to {a.tail_cpu} until the first ROI")
        return False
    progress_line("running")
    if a.max_seconds and m5.curTick() >= a.max_seconds * 1e12:
        print("vmscale_fs: error: --max-seconds of simulated time reached", file=sys.stderr)
        return True
    if a.max_host_seconds and time.time() - t0 >= a.max_host_seconds:
        # A batch job's wall limit is near: keep the boot so far, to be continued.
        progress_line(f"host time limit: saving the boot so far to {a.resume_dir}")
        simulator.save_checkpoint(Path(a.resume_dir))
        resume["saved"] = True
        return True
    if a.profile:
        # One stats dump per period (per-CPU instruction counts over time), then a traced
        # window: a sample of every CPU's guest PCs; on_window_end stops it.
        m5.stats.dump()
        print(f"vmscale_fs: trace window at {m5.curTick()}", flush=True)
        exec_trace(True)
        m5.scheduleTickExitFromCurrent(int(a.profile_window * 1e12))
    return False


def exec_trace(on: bool):
    for f in EXEC_FLAGS:
        if on:
            m5.debug.flags[f].enable()
        else:
            m5.debug.flags[f].disable()


# --roi-profile: inside each ROI, after --roi-profile-start us, a window of --roi-profile ns traced
# every --roi-profile-period us; profile-rois.txt's span begins at the first window, so its readers
# number the windows from there.  A scheduled exit cannot be withdrawn, so each remembers the tick
# it was set for: one left over from an earlier ROI (or window) fires at another tick and is ignored.
profiled = {"roi": False, "on": False, "due": None, "marked": False}


def profile_window(start=False):
    if start:
        profiled["on"] = False
        if a.roi_profile_start:       # the first window opens later
            return schedule_window(int(a.roi_profile_start * 1e6))     # us -> ticks
    elif m5.curTick() != profiled["due"] or not profiled["roi"]:
        return
    if not profiled["marked"]:
        roi_mark("profile-rois.txt", "begin")
        profiled["marked"] = True
    window = int(a.roi_profile * 1000)        # ns -> ticks
    profiled["on"] = not profiled["on"]
    exec_trace(profiled["on"])
    schedule_window(window if profiled["on"] else int(options.roi_profile_period(a) * 1e12) - window)


def schedule_window(wait: int):
    profiled["due"] = m5.curTick() + wait
    m5.scheduleTickExitFromCurrent(wait)


def on_window_end():
    if a.roi_profile:
        profile_window()
    else:
        exec_trace(False)
    return False


PERIOD = int(a.progress * 1e12) if a.progress > 0 else m5.MaxTick
first_period = {"done": False}
simulator = Simulator(board=board, max_ticks=1000 if switching else PERIOD,
                      on_exit_event={
                          ExitEvent.CHECKPOINT: on_checkpoint,
                          ExitEvent.WORKBEGIN: on_workbegin,
                          ExitEvent.WORKEND: on_workend,
                          ExitEvent.MAX_TICK: on_period,
                          ExitEvent.SCHEDULED_TICK: on_window_end,
                      })
if a.hotlines:
    hotlines_start()
if a.roi_profile:
    m5.trace.output("trace.out.gz")
    Path(m5.options.outdir, "profile-rois.txt").write_text("")
simulator.run()
cause = simulator.get_last_exit_event_cause()
print(f"vmscale_fs: exit cause={cause!r} tick={simulator.get_current_tick()} "
      f"host_seconds={time.time() - t0:.1f} roi_ticks={simulator.get_roi_ticks()}", flush=True)
if resume["saved"]:
    sys.exit(EXIT_RESUME)
if a.mode == "checkpoint" and not Path(a.checkpoint_dir, "m5.cpt").is_file():
    print("vmscale_fs: error: the guest ended before taking its checkpoint", file=sys.stderr)
    sys.exit(3)
