"""Sweep specs: a TOML cross product of axes, expanded into points and grouped into jobs.

    name = "fault-scaling"
    backend = "qemu"            # qemu | native | gem5
    repetitions = 2
    one_point_per_job = false   # true: no two points share a boot (each its own Slurm task, in parallel)
    [axes]                      # every combination is a point
    cores = [1, 2, 4, 8]
    kernel_variant = ["stock", "rwlock"]
    workload = ["local", "fault"]
    "param.iters" = [100, 200]  # a workload parameter as an axis
    "gem5.topology" = ["crossbar", "mesh"]
    [fixed]                     # the same for every point
    "param.fault.pages" = 32
    "gem5.cpu" = "timing"
    [variants]                  # optional: the variants each workload compares
    fault = ["stock", "rwlock"] # (a subset of the kernel_variant axis; others: all)
    [slurm]                     # optional: `vmscale sweep slurm`'s request per job, where measured
    hours = 40                  # runs say the estimate from cores and cases is short (a Ruby ROI
    mem_gib = 14                # cannot resume: a job cut by its limit loses the case)

A point's ID is a hash of what defines it, so IDs are stable across expansions.  Points
that can share one machine (same backend, cores, board options, parameters and repetition:
they differ only in variant and workload) form one job: one boot runs them all.
"""

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from vmscale import variants, workloads
from vmscale.backends import BACKENDS, get_backend
from vmscale.errors import VmscaleError

CORE_AXES = ("cores", "kernel_variant", "workload")


@dataclass
class Point:
    values: dict              # axis -> value (cores, kernel_variant, workload, param.*, gem5.*)
    rep: int

    @property
    def id(self) -> str:
        return hashlib.sha256(json.dumps([self.values, self.rep], sort_keys=True).encode()).hexdigest()[:12]


@dataclass
class Job:
    backend: str
    cores: int
    params: list             # --param items
    gem5: dict
    rep: int
    points: list = field(default_factory=list)
    alone: str = ""          # the point's ID, where the spec runs one point per job

    @property
    def id(self) -> str:
        key = [self.backend, self.cores, sorted(self.params), sorted(self.gem5.items()), self.rep]
        key += [self.alone] if self.alone else []
        return f"{self.cores:03d}c-r{self.rep}-" + hashlib.sha256(json.dumps(key).encode()).hexdigest()[:8]

    @property
    def workloads(self) -> list:
        return sorted({p.values["workload"] for p in self.points}, key=workloads.NAMES.index)

    @property
    def variants(self) -> list:
        return sorted({p.values["kernel_variant"] for p in self.points}, key=list(variants.VARIANTS).index)

    @property
    def cases(self) -> list:
        """VARIANT/WORKLOAD pairs, when the points are not all of variants x workloads."""
        pairs = {f"{p.values['kernel_variant']}/{p.values['workload']}" for p in self.points}
        return [] if len(pairs) == len(self.variants) * len(self.workloads) else sorted(pairs)


@dataclass
class Spec:
    name: str
    backend: str
    axes: dict
    fixed: dict
    repetitions: int = 1
    one_point_per_job: bool = False
    source: str = ""
    variants: dict = field(default_factory=dict)   # workload -> the variants it runs under
    slurm: dict = field(default_factory=dict)      # hours, mem_gib: a Slurm job's request (slurm.resources)


def load(path) -> Spec:
    path = Path(path)
    try:
        text = path.read_text()
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise VmscaleError(f"sweep spec {path} not found")
    except tomllib.TOMLDecodeError as e:
        raise VmscaleError(f"sweep spec {path}: {e}")
    return parse(data, text, default_name=path.stem)


def parse(data: dict, text: str = "", default_name: str = "sweep") -> Spec:
    unknown = set(data) - {"name", "backend", "repetitions", "one_point_per_job", "axes", "fixed", "variants", "slurm"}
    if unknown:
        raise VmscaleError(f"sweep spec: unknown key(s) {', '.join(sorted(unknown))}",
                           "use name, backend, repetitions, one_point_per_job, [axes], [fixed], [variants], [slurm]")
    if not isinstance(data.get("one_point_per_job", False), bool):
        raise VmscaleError("sweep spec: one_point_per_job must be true or false")
    spec = Spec(name=str(data.get("name", default_name)), backend=data.get("backend", "qemu"),
                axes=dict(data.get("axes", {})), fixed=dict(data.get("fixed", {})),
                repetitions=int(data.get("repetitions", 1)), source=text,
                one_point_per_job=data.get("one_point_per_job", False),
                variants=dict(data.get("variants", {})), slurm=dict(data.get("slurm", {})))
    validate(spec)
    return spec


def _check_key(key: str, where: str):
    if key.startswith("gem5."):
        from vmscale_gem5.board import NAMES
        if key[len("gem5."):].replace("-", "_") not in NAMES:
            raise VmscaleError(f"sweep spec [{where}]: unknown gem5 option {key!r}",
                               f"use gem5.KEY with KEY one of {', '.join(NAMES)}")
        return
    if key in CORE_AXES or key.startswith("param."):
        return
    raise VmscaleError(f"sweep spec [{where}]: unknown axis {key!r}",
                       "use cores, kernel_variant, workload, param.NAME or gem5.KEY")


SLURM_KEYS = ("hours", "mem_gib")


def validate(spec: Spec):
    for key, value in spec.slurm.items():
        if key not in SLURM_KEYS:
            raise VmscaleError(f"sweep spec [slurm]: unknown key {key!r}", f"use {', '.join(SLURM_KEYS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise VmscaleError(f"sweep spec [slurm]: {key} must be a positive number, not {value!r}")
    if spec.backend not in BACKENDS:
        raise VmscaleError(f"sweep spec: unknown backend {spec.backend!r}", f"use {', '.join(BACKENDS)}")
    if spec.repetitions < 1:
        raise VmscaleError("sweep spec: repetitions must be >= 1")
    for key, values in spec.axes.items():
        _check_key(key, "axes")
        if not isinstance(values, list) or not values:
            raise VmscaleError(f"sweep spec [axes]: {key} must be a non-empty list")
    for key in spec.fixed:
        _check_key(key, "fixed")
        if key in spec.axes:
            raise VmscaleError(f"sweep spec: {key} is both an axis and fixed")
    for key in CORE_AXES:
        if key not in spec.axes and key not in spec.fixed:
            raise VmscaleError(f"sweep spec: no {key} given", f"add {key} to [axes] or [fixed]")
    values = lambda k: spec.axes.get(k, [spec.fixed.get(k)])  # noqa: E731
    for w in values("workload"):
        if w not in workloads.NAMES:
            raise VmscaleError(f"sweep spec: unknown workload {w!r}", f"use {', '.join(workloads.NAMES)}")
    for v in values("kernel_variant"):
        variants.sysctls(v)
    limit = get_backend(spec.backend).CORE_LIMIT   # each backend owns its core limit
    for c in values("cores"):
        if not isinstance(c, int) or c < 1:
            raise VmscaleError(f"sweep spec: cores {c!r} must be a positive integer")
        if limit and c > limit:
            raise VmscaleError(f"sweep spec: {c} cores is above what {spec.backend} supports ({limit})")
    for w, vs in spec.variants.items():
        if w not in values("workload"):
            raise VmscaleError(f"sweep spec [variants]: {w!r} is not one of the sweep's workloads")
        if not isinstance(vs, list) or not vs or any(v not in values("kernel_variant") for v in vs):
            raise VmscaleError(f"sweep spec [variants]: {w} = {vs!r} must be a non-empty list drawn from "
                               f"kernel_variant {values('kernel_variant')}")
    if any(k.startswith("gem5.") for k in list(spec.axes) + list(spec.fixed)) and spec.backend != "gem5":
        raise VmscaleError("sweep spec: gem5.* options need backend = \"gem5\"")


def expand(spec: Spec) -> list:
    keys = sorted(spec.axes)
    points = []
    for combo in itertools.product(*(spec.axes[k] for k in keys)):
        values = dict(spec.fixed)
        values.update(zip(keys, combo))
        if values["kernel_variant"] not in spec.variants.get(values["workload"], [values["kernel_variant"]]):
            continue
        for rep in range(spec.repetitions):
            points.append(Point(values, rep))
    return points


def jobs(spec: Spec, points=None) -> list:
    """Group points that one machine can run: they differ only in variant and workload (none, where
    the spec runs one point per job)."""
    out = {}
    for p in points if points is not None else expand(spec):
        params = sorted(f"{k[len('param.'):]}={v}" for k, v in p.values.items() if k.startswith("param."))
        gem5 = {k[len("gem5."):]: str(v) for k, v in p.values.items() if k.startswith("gem5.")}
        job = Job(spec.backend, int(p.values["cores"]), params, gem5, p.rep, alone=p.id if spec.one_point_per_job else "")
        out.setdefault(job.id, job).points.append(p)
    return sorted(out.values(), key=lambda j: (j.cores, j.rep, j.id))
