"""Build a Linux 6.12 kernel with the vmscale patch series, out of tree and incrementally.

Source: Debian's linux-source-6.12 tarball by default, or any 6.12.y tarball.  The tree
is extracted once, turned into a git repository and the series in kernel-patches/ is
applied with `git am`; the configuration is `make tinyconfig` plus the fragments in
kernel-patches/config/.  Outputs: vmlinux (gem5), bzImage (QEMU) and manifest.json.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from vmscale import paths
from vmscale.errors import VmscaleError
from vmscale.fileutil import atomic_write_text, sha256_file

DEBIAN_SOURCE = Path("/usr/src/linux-source-6.12.tar.xz")
FLAVORS = {
    "normal": ["base.config"],
    "debug": ["base.config", "debug.config"],
    "kasan": ["base.config", "debug.config", "kasan.config"],
}
GIT_ID = ["-c", "user.name=vmscale build", "-c", "user.email=vmscale@localhost", "-c", "gc.auto=0"]


# --- pure logic -------------------------------------------------------------

def parse_kernel_version(makefile_text: str) -> tuple:
    """(VERSION, PATCHLEVEL, SUBLEVEL) from the top-level Makefile's text."""
    fields = {}
    for key in ("VERSION", "PATCHLEVEL", "SUBLEVEL"):
        m = re.search(rf"^{key}\s*=\s*(\d+)\s*$", makefile_text, re.M)
        if not m:
            raise VmscaleError(f"kernel Makefile has no {key}", "point at a Linux source tarball")
        fields[key] = int(m.group(1))
    return fields["VERSION"], fields["PATCHLEVEL"], fields["SUBLEVEL"]


def fragment_options(text: str) -> dict:
    """CONFIG_X -> value ('n' for '# CONFIG_X is not set' and 'CONFIG_X=n')."""
    opts = {}
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line) or re.match(r"^# (CONFIG_\w+) is not set$", line)
        if m:
            opts[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
    return opts


def config_mismatches(config_text: str, fragment_texts: list) -> list:
    """Options the fragments ask for that the final .config does not have."""
    have = fragment_options(config_text)
    want = {}
    for text in fragment_texts:
        want.update(fragment_options(text))
    bad = []
    for key, value in want.items():
        got = have.get(key, "n")
        if got != value:
            bad.append(f"{key}={value} (got {got})")
    return bad


COVER_LETTER = "0000-cover-letter.patch"


def series_files(patch_dir: Path) -> list:
    """The series' patches in order; the cover letter (0000, as git format-patch names it) is
    not one of them: it changes no file, and its edits rebuild nothing."""
    return sorted(p for p in patch_dir.glob("*.patch") if p.name != COVER_LETTER)


def digest(parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def series_digest(patches: list) -> str:
    return digest([p.name.encode() + p.read_bytes() for p in patches])


def cache_key(source_sha256: str, series: str, flavor: str, fragment_texts: list, compiler: str) -> str:
    """Everything a kernel build's output depends on: a built kernel is reused only when
    the source, the series, the flavour's config fragments and the compiler are the same.
    (2: builds are reproducible since; entries of 1 were not.)"""
    return digest(["vmscale-kernel-cache-2", source_sha256, series, flavor, compiler] + fragment_texts)


# A reproducible build (https://docs.kernel.org/kbuild/reproducible-builds.html): the version
# string's time, user, host and build number are fixed, and the source and output trees'
# paths are mapped out of what is compiled, so the same source, series, config and toolchain
# give the same vmlinux on any machine, in any directory.
BUILD_EPOCH = 1704067200      # 2024-01-01T00:00:00Z (SOURCE_DATE_EPOCH overrides)


def build_env(tree: Path, out: Path, environ=None) -> dict:
    environ = dict(os.environ if environ is None else environ)
    when = int(environ.get("SOURCE_DATE_EPOCH") or BUILD_EPOCH)
    maps = f"-ffile-prefix-map={tree}/= -ffile-prefix-map={out}/="
    return dict(environ, KBUILD_BUILD_TIMESTAMP=time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime(when)),
                KBUILD_BUILD_USER="vmscale", KBUILD_BUILD_HOST="vmscale", KBUILD_BUILD_VERSION="1",
                KCFLAGS=(environ.get("KCFLAGS", "") + " " + maps).strip(), LC_ALL="C", TZ="UTC")


def parse_pin(text: str) -> dict:
    """kernel-patches/debian-source: key=value lines (package, version, sha256), # comments."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))


def pin_warning(source_sha256: str, pin: dict):
    """What to say when a build's source is not the pinned one the records were built from (None if it is)."""
    if not pin.get("sha256") or source_sha256 == pin["sha256"]:
        return None
    return (f"kernel: warning: this source (sha256 {source_sha256[:12]}) is not {pin.get('package', 'the pinned source')} "
            f"{pin.get('version', '')} (sha256 {pin['sha256'][:12]}), which the records were built from: the kernel "
            f"builds, but its gem5 points will not re-make the records' ticks (apt-get install "
            f"{pin.get('package', 'linux-source-6.12')}={pin.get('version', '')}, or scripts/setup.sh)")


# --- I/O --------------------------------------------------------------------

def resolve_source(source=None) -> Path:
    src = Path(source or os.environ.get("VMSCALE_KERNEL_SOURCE") or DEBIAN_SOURCE)
    if not src.is_file():
        raise VmscaleError(
            f"Linux 6.12 source not found at {src}",
            "apt-get install linux-source-6.12, or pass --kernel-source linux-6.12.y.tar.xz")
    return src


def _run(cmd, log=None, cwd=None, env=None):
    r = subprocess.run(cmd, cwd=cwd, stdout=log or subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode:
        out = r.stdout[-2000:] if r.stdout else f"see {getattr(log, 'name', 'the log')}"
        raise VmscaleError(f"`{' '.join(map(str, cmd))}` failed: {out.strip()}")
    return r.stdout


def extract_source(tarball: Path) -> Path:
    """Extract once into build/linux-src/<name>-<hash>/ (atomically); return the tree."""
    # named by content, not by where the tarball lies: the same on every machine
    key = _source_sha256(tarball)[:12]
    stem = tarball.name.split(".tar")[0]
    root = paths.build_dir() / "linux-src"
    dest = root / f"{stem}-{key}"
    if (dest / "Makefile").is_file():
        return dest
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".extract-{key}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    print(f"kernel: extracting {tarball} ...", flush=True)
    _run(["tar", "-xf", str(tarball), "-C", str(tmp)])
    tops = [p for p in tmp.iterdir()]
    if len(tops) != 1 or not (tops[0] / "Makefile").is_file():
        shutil.rmtree(tmp, ignore_errors=True)
        raise VmscaleError(f"{tarball} is not a Linux source tarball (one top directory with a Makefile)")
    version = parse_kernel_version((tops[0] / "Makefile").read_text())
    if version[:2] != (6, 12):
        shutil.rmtree(tmp, ignore_errors=True)
        raise VmscaleError(f"{tarball} is Linux {'.'.join(map(str, version))}, not 6.12.y",
                           "use Debian's linux-source-6.12 or a linux-6.12.y tarball")
    (tmp / ".sha256").write_text(sha256_file(tarball))
    tops[0].rename(dest)
    (tmp / ".sha256").rename(dest / ".vmscale-source-sha256")
    tmp.rmdir()
    return dest


def apply_series(tree: Path, patches: list) -> str:
    """Reset the tree to pristine and `git am` the series, unless it is already applied."""
    git = ["git", "-C", str(tree)] + GIT_ID
    series = series_digest(patches)
    stamp = tree / ".git" / "vmscale-series"
    if not (tree / ".git").is_dir():
        print("kernel: recording the pristine tree in git ...", flush=True)
        _run(git + ["init", "-q"])
        _run(git + ["add", "-f", "-A"])  # Debian's .gitignore ignores the top level
        _run(git + ["commit", "-q", "-m", "pristine source"])
        _run(git + ["tag", "vmscale-base"])
    if stamp.is_file() and stamp.read_text() == series:
        return series
    # Keep the longest prefix of the series that is already applied, so that changing the
    # last patch rewrites only its files (and make recompiles only what depends on them).
    applied_path = tree / ".git" / "vmscale-applied"
    applied = json.loads(applied_path.read_text()) if applied_path.is_file() else []
    want = [series_digest([p]) for p in patches]
    keep = 0
    while keep < min(len(applied), len(want)) and applied[keep][0] == want[keep]:
        keep += 1
    applied = applied[:keep]
    stamp.unlink(missing_ok=True)
    applied_path.write_text(json.dumps(applied))
    _run(git + ["reset", "-q", "--hard", applied[-1][1] if applied else "vmscale-base"])
    _run(git + ["clean", "-q", "-f", "-d", "-x", "-e", ".vmscale-source-sha256"])
    for patch, d in zip(patches[keep:], want[keep:]):
        print(f"kernel: applying {patch.name}", flush=True)
        r = subprocess.run(git + ["am", "-q", "--3way", str(patch)], capture_output=True, text=True)
        if r.returncode:
            subprocess.run(git + ["am", "--abort"], capture_output=True)
            raise VmscaleError(f"{patch.name} does not apply to {tree.name}: {r.stdout.strip()} {r.stderr.strip()}",
                               "rebase the patch on this 6.12.y or use Debian's linux-source-6.12")
        applied.append([d, _run(git + ["rev-parse", "HEAD"]).strip()])
        applied_path.write_text(json.dumps(applied))
    stamp.write_text(series)
    return series


def configure(tree: Path, out: Path, flavor: str, series: str) -> str:
    """tinyconfig + fragments + olddefconfig, redone only when an input changed."""
    frags = [paths.CONFIG_DIR / f for f in FLAVORS[flavor]]
    texts = [f.read_text() for f in frags]
    key = digest([series, tree.name] + texts)
    stamp = out / ".vmscale-config-key"
    if stamp.is_file() and stamp.read_text() == key and (out / ".config").is_file():
        return key
    out.mkdir(parents=True, exist_ok=True)
    print(f"kernel: configuring {flavor} ({', '.join(FLAVORS[flavor])})", flush=True)
    make = ["make", "-C", str(tree), f"O={out}"]
    env = build_env(tree, out)
    _run(make + ["tinyconfig"], env=env)
    _run([str(tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(out), str(out / ".config")]
         + [str(f) for f in frags], cwd=out, env=env)
    _run(make + ["olddefconfig"], env=env)
    bad = config_mismatches((out / ".config").read_text(), texts)
    if bad:
        raise VmscaleError(f"kernel config dropped options: {', '.join(bad)}",
                           "fix the fragment in kernel-patches/config/ (missing dependency?)")
    stamp.write_text(key)
    return key


def make_kernel(tree: Path, out: Path, jobs: int):
    """Build bzImage (and with it vmlinux), logging to build.log, with progress lines."""
    log_path = out / "build.log"
    cmd = ["make", "-C", str(tree), f"O={out}", f"-j{jobs}", "bzImage"]
    start = time.time()
    n = 0
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=build_env(tree, out))
        for line in proc.stdout:
            log.write(line)
            if line.lstrip().startswith(("CC ", "LD ", "AR ", "AS ")):
                n += 1
                if n % 250 == 0:
                    print(f"kernel: {n} objects built ({time.time() - start:.0f} s)", flush=True)
        rc = proc.wait()
    if rc:
        tail = "".join(log_path.read_text().splitlines(True)[-15:])
        raise VmscaleError(f"kernel build failed (log: {log_path}):\n{tail}")
    print(f"kernel: built in {time.time() - start:.0f} s", flush=True)


# What a cached kernel keeps: what QEMU boots, what gem5 loads, and what the runner reads.
CACHED_FILES = ["arch/x86/boot/bzImage", "vmlinux", ".config", "System.map"]


def _compiler() -> str:
    r = subprocess.run(["gcc", "--version"], capture_output=True, text=True)
    return r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else "unknown"


def _source_sha256(tarball: Path) -> str:
    """The tarball's hash, remembered per (path, size, mtime) so a cache lookup is cheap."""
    if not paths.cache_enabled():
        return sha256_file(tarball)
    st = tarball.stat()
    memo = paths.cache_dir() / "sources" / digest([tarball.resolve(), st.st_size, st.st_mtime_ns])[:24]
    if memo.is_file():
        return memo.read_text().strip()
    sha = sha256_file(tarball)
    atomic_write_text(memo, sha + "\n")
    return sha


def cache_restore(key: str, out: Path):
    """Copy a cached build into `out` and return its manifest, or None on a miss.  A cached
    entry whose files do not match the hashes it recorded is ignored (and rebuilt)."""
    entry = paths.cache_dir() / "kernels" / key
    man_path = entry / "manifest.json"
    if not man_path.is_file() or not all((entry / f).is_file() for f in CACHED_FILES):
        return None
    manifest = json.loads(man_path.read_text())
    if sha256_file(entry / "vmlinux") != manifest["vmlinux_sha256"] or \
            sha256_file(entry / ".config") != manifest["config_sha256"]:
        print(f"kernel: cache entry {entry} is corrupt; rebuilding", flush=True)
        return None
    for f in CACHED_FILES:
        (out / f).parent.mkdir(parents=True, exist_ok=True)
        tmp = out / f"{f}.vmscale-tmp"
        shutil.copy2(entry / f, tmp)   # keeps the build's mtimes: make still sees newer sources
        os.replace(tmp, out / f)
    # The restored .config may belong to another series than the tree's objects: make the
    # next real build reconfigure.
    (out / ".vmscale-config-key").unlink(missing_ok=True)
    manifest.update(vmlinux=str(out / "vmlinux"), bzImage=str(out / "arch/x86/boot/bzImage"),
                    cache={"key": key, "entry": str(entry),
                           "restored_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    print(f"kernel: {manifest['flavor']} kernel reused from the cache ({entry})", flush=True)
    return manifest


def cache_store(key: str, out: Path, manifest: dict):
    """Publish a finished build under its key (atomically: a reader never sees half an entry)."""
    root = paths.cache_dir() / "kernels"
    entry = root / key
    if entry.exists():
        return
    tmp = root / f".{key}.{os.getpid()}"
    try:
        for f in CACHED_FILES:
            (tmp / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(out / f, tmp / f)
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        os.rename(tmp, entry)
    except OSError as e:   # a full disk or a race with another build: the cache is optional
        print(f"kernel: not cached ({e})", flush=True)
        shutil.rmtree(tmp, ignore_errors=True)


def build_kernel(flavor="normal", source=None, jobs=None) -> dict:
    """Build one flavour (or reuse the per-user cache); return its manifest (also written to
    <out>/manifest.json)."""
    if flavor not in FLAVORS:
        raise VmscaleError(f"unknown kernel flavour {flavor!r}", f"use one of {', '.join(FLAVORS)}")
    tarball = resolve_source(source)
    patches = series_files(paths.PATCH_DIR)
    out = paths.kernel_dir(flavor)
    key = None
    if paths.cache_enabled():
        key = cache_key(_source_sha256(tarball), series_digest(patches), flavor,
                        [(paths.CONFIG_DIR / f).read_text() for f in FLAVORS[flavor]], _compiler())
        manifest = cache_restore(key, out)
        if manifest:
            return manifest
    tree = extract_source(tarball)
    pin = paths.PATCH_DIR / "debian-source"
    note = pin_warning((tree / ".vmscale-source-sha256").read_text().strip(),
                       parse_pin(pin.read_text()) if pin.is_file() else {})
    if note:
        print(note, file=sys.stderr, flush=True)
    series = apply_series(tree, patches)
    configure(tree, out, flavor, series)
    make_kernel(tree, out, jobs or os.cpu_count() or 1)
    release = _run(["make", "-s", "-C", str(tree), f"O={out}", "kernelrelease"],
                   env=build_env(tree, out)).strip().splitlines()[-1]
    manifest = {
        "kernel_release": release,
        "version": ".".join(map(str, parse_kernel_version((tree / "Makefile").read_text()))),
        "flavor": flavor,
        "source": {"tarball": str(tarball),
                   "sha256": (tree / ".vmscale-source-sha256").read_text().strip()},
        "patches": [{"name": p.name, "sha256": sha256_file(p)} for p in patches],
        "series_sha256": series,
        "fragments": [{"name": f, "sha256": sha256_file(paths.CONFIG_DIR / f)} for f in FLAVORS[flavor]],
        "config_sha256": sha256_file(out / ".config"),
        "vmlinux": str(out / "vmlinux"),
        "bzImage": str(out / "arch/x86/boot/bzImage"),
        "vmlinux_sha256": sha256_file(out / "vmlinux"),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reproducible": {
            "compiler": _compiler(), "env": {k: v for k, v in build_env(tree, out, {}).items()
                                             if k.startswith("KBUILD_")},
            "vmlinux_sha256 covers": "the kernel's bytes: source, series and config (hashed above) built by this "
                                     "compiler; build time, user, host and paths are pinned or mapped out"},
    }
    atomic_write_text(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    if key:
        cache_store(key, out, manifest)
    return manifest


# The programs of the kernel's tools/testing/selftests/mm that build static here (all but
# khugepaged, memfd_secret, migration, mlock-random-test and ksm_tests, which need libcap or
# libnuma headers; see README: "Kernel selftests").  Those that fail in this guest by
# design are listed with the reason in guest-workloads/selftests.expect.
SELFTESTS = ["map_fixed_noreplace", "mremap_dontunmap", "madv_populate", "mlock2-tests",
             "mdwe_test", "mseal_test", "mkdirty", "uffd-unit-tests", "uffd-stress",
             "cow", "compaction_test", "gup_longterm", "gup_test", "hmm-tests", "hugetlb-madvise",
             "hugetlb-read-hwpoison", "hugetlb-soft-offline", "hugepage-mmap", "hugepage-mremap", "hugepage-shm",
             "hugepage-vmemmap", "map_hugetlb", "map_populate", "mrelease_test", "mremap_test", "seal_elf",
             "on-fault-limit", "pagemap_ioctl", "thuge-gen", "transhuge-stress", "split_huge_page_test",
             "ksm_functional_tests", "hugetlb_fault_after_madv", "hugetlb_madv_vs_map", "hugetlb_dio", "droppable",
             "soft-dirty", "protection_keys_64", "pkey_sighandler_tests_64", "va_high_addr_switch",
             "virtual_address_range", "write_to_hugetlbfs"]
# Minutes under TCG, or a stress by design: left out of the every-design run in CI
# (tests/test_qemu_stress.py); `selftests` with its default runs them.
SELFTESTS_LONG = ["uffd-unit-tests", "transhuge-stress", "mremap_test", "pagemap_ioctl", "cow"]


def build_selftests(out: Path, source=None, jobs=None) -> list:
    """Build the SELFTESTS subset static from the patched tree, into `out`."""
    tree = extract_source(resolve_source(source))
    apply_series(tree, series_files(paths.PATCH_DIR))
    headers = paths.build_dir() / "selftests-headers"
    _run(["make", "-s", "-C", str(tree), f"O={headers}", "headers"])
    out.mkdir(parents=True, exist_ok=True)
    targets = [str(out / t) for t in SELFTESTS]
    _run(["make", "-k", "-C", str(tree / "tools/testing/selftests/mm"), f"OUTPUT={out}",
          f"KHDR_INCLUDES=-isystem {headers}/usr/include", "EXTRA_CFLAGS=-static",
          f"-j{jobs or os.cpu_count() or 1}"] + targets)
    missing = [t for t in SELFTESTS if not (out / t).is_file()]
    if missing:
        raise VmscaleError(f"selftests did not build: {', '.join(missing)}", f"see make output in {out}")
    (out / "SUBSET").write_text(",".join(SELFTESTS) + "\n")
    return [out / t for t in SELFTESTS] + [out / "SUBSET"]


def load_manifest(flavor: str) -> dict:
    path = paths.kernel_dir(flavor) / "manifest.json"
    if not path.is_file():
        raise VmscaleError(f"no {flavor} kernel built ({path} missing)",
                           f"run `vmscale build kernel --flavor {flavor}`")
    manifest = json.loads(path.read_text())
    # The files beside the manifest, wherever the build directory now is (a copy made with
    # VMSCALE_BUILD must not run the kernel of the build it was copied from).
    manifest.update(vmlinux=str(path.parent / "vmlinux"), bzImage=str(path.parent / "arch/x86/boot/bzImage"))
    return manifest


def check_vmlinux(manifest: dict) -> None:
    """The vmlinux a run is about to load is the one its manifest (and a checkpoint key) names."""
    vmlinux = Path(manifest["vmlinux"])
    if not vmlinux.is_file() or sha256_file(vmlinux) != manifest["vmlinux_sha256"]:
        raise VmscaleError(f"{vmlinux} is not the kernel its manifest describes (a build is running, or it "
                           "changed since)", "wait for `vmscale build kernel` to finish; to keep running gem5 "
                           "while you rebuild, copy the build directory and point VMSCALE_BUILD at the copy")


def kernel_nr_cpus(flavor: str) -> int:
    """NR_CPUS of the built kernel, from its .config."""
    text = (paths.kernel_dir(flavor) / ".config").read_text()
    m = re.search(r"^CONFIG_NR_CPUS=(\d+)$", text, re.M)
    return int(m.group(1)) if m else 1


if __name__ == "__main__":  # used by SConstruct.local
    print(json.dumps(build_kernel(*sys.argv[1:2]), indent=2))
