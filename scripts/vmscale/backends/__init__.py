"""Backends run a run's cases (variant x workload) at one core count.

qemu: boots our kernel and image with N vCPUs (functional; what CI uses).
native: runs the same static workloads on this host (validation on real machines).
gem5: restores a boot checkpoint into Timing/O3 + Ruby (cycle-level; GEM5=/path/gem5.opt).

Every backend module has the same four functions, which are all `vmscale run` calls:

    prepare(req) -> dict            check the request against this backend before anything runs
                                    (clear errors); returns what the manifest records
    execute(req, prep, workdir, script_text) -> Outcome
                                    run the cases; raise VmscaleError when the run as a whole fails
    row_extras(req, outcome, parsed) -> {case_id: {column: value}}
                                    backend figures for each case's row (gem5: its ROI's stats)
    failures(req, prep, parsed) -> [str]
                                    what the console shows went wrong beyond the cases' own results

and OPTIONS, the optional request fields it takes; any other one set is refused by check_options.
"""

from dataclasses import dataclass, field

from vmscale.errors import VmscaleError

BACKENDS = ("qemu", "native", "gem5")

# Request fields only some backends take: the flag a user sets, and why the others cannot.
OPTIONAL = {
    "kernel_args": ("--kernel-arg", "gem5 boots once per checkpoint; native runs the host's kernel"),
    "memory": ("--memory", "gem5 takes --gem5 memory=MiB; native uses the host's"),
    "watchdog_scale": ("--watchdog-scale", "only QEMU's vCPUs are host threads that can be oversubscribed"),
    "max_host_seconds": ("--max-host-seconds", "only gem5 boots are saved and resumed"),
    "gem5_opts": ("--gem5", "it configures gem5's board and CPU"),
}


@dataclass(frozen=True)
class Request:
    """One `vmscale run`: one boot (or one host session) running `cases` at `cores`."""
    cores: int
    cases: tuple
    flavor: str = "normal"
    timeout: float = None
    memory: int = None
    gem5_opts: dict = field(default_factory=dict)
    kernel_args: tuple = ()
    watchdog_scale: float = None
    max_host_seconds: float = 0


@dataclass
class Outcome:
    console: str
    info: dict                                   # merged into the run's manifest
    dumps: list = field(default_factory=list)    # gem5: one stats dump per ROI, in case order


def get_backend(name: str):
    if name == "qemu":
        from vmscale.backends import qemu
        return qemu
    if name == "native":
        from vmscale.backends import native
        return native
    if name == "gem5":
        from vmscale.backends import gem5
        return gem5
    raise VmscaleError(f"unknown backend {name!r}", f"use one of {', '.join(BACKENDS)}")


def check_options(name: str, backend, req: Request):
    """Refuse an optional field the backend does not take, naming who takes it."""
    for opt, (flag, why) in OPTIONAL.items():
        if getattr(req, opt) and opt not in backend.OPTIONS:
            takers = [b for b in BACKENDS if opt in get_backend(b).OPTIONS]
            raise VmscaleError(f"{flag} applies to {' and '.join(takers)} runs only, not {name}", why)
