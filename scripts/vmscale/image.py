"""The guest disk image: an ext2 file system made without root by `mke2fs -d`.

It holds static busybox (every applet as a symlink), the m5 tool, the workloads and
/init.  One image serves every kernel variant and every backend.

The image is reproducible: the same inputs give the same bytes, whoever builds it where.
Every inode is owned by root and carries one time (EPOCH, or SOURCE_DATE_EPOCH), the
superblock's times come from it too (E2FSPROGS_FAKE_TIME), and the UUID and the directory
hash seed are fixed.  Only the staged files' contents vary, and the manifest hashes each.
"""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from vmscale.errors import VmscaleError
from vmscale.fileutil import atomic_write_text, sha256_file

BUSYBOX = Path("/bin/busybox")
SIZE_MIB = 192
DIRS = ["bin", "sbin", "dev", "proc", "sys", "tmp", "var/tmp", "etc", "root"]
EPOCH = 1704067200                                # 2024-01-01T00:00:00Z: every time in the image
UUID = "8c1e5a2b-6d3f-4a57-9b0e-2f4d6c8a1b3e"      # the file system's UUID and directory hash seed


def epoch() -> int:
    return int(os.environ.get("SOURCE_DATE_EPOCH") or EPOCH)


def _tool(name: str) -> str:
    path = shutil.which(name) or f"/sbin/{name}"
    if not Path(path).exists():
        raise VmscaleError(f"{name} not found", "apt-get install e2fsprogs")
    return path


def pin_inodes(image: Path, stage: Path, when: int):
    """Every inode of the image: owned by root, changed at `when`.  mke2fs -d takes owners and
    inode change times from the staged files (a ctime no one can set); debugfs rewrites them."""
    paths = ["/"] + sorted("/" + str(p.relative_to(stage)) for p in stage.rglob("*"))
    paths.append("/lost+found")
    cmds = "".join(f'sif "{p}" {field} {value}\n' for p in paths
                   for field, value in (("uid", 0), ("gid", 0), ("ctime", f"@{when}"), ("atime", f"@{when}"),
                                        ("mtime", f"@{when}"), ("crtime", f"@{when}")))
    r = subprocess.run([_tool("debugfs"), "-w", "-f", "-", str(image)], input=cmds, capture_output=True, text=True,
                       env=dict(os.environ, E2FSPROGS_FAKE_TIME=str(when)))
    errors = [l for l in r.stderr.splitlines() if l.strip() and not l.startswith("debugfs ")]
    if r.returncode or errors:
        raise VmscaleError(f"debugfs could not pin the image's inodes: {(errors or [r.stderr.strip()])[0]}")


def find_busybox() -> Path:
    for cand in (BUSYBOX, Path("/usr/bin/busybox")):
        if cand.is_file():
            out = subprocess.run(["file", "-L", str(cand)], capture_output=True, text=True).stdout
            if "statically linked" in out or "static-pie" in out:
                return cand
    raise VmscaleError("no static busybox found", "apt-get install busybox-static")


def shared_libraries(binary) -> list:
    """The libraries (and the loader) a dynamically linked host binary needs, by `ldd`."""
    r = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
    if r.returncode:
        raise VmscaleError(f"ldd {binary}: {r.stderr.strip() or r.stdout.strip()}")
    libs = []
    for line in r.stdout.splitlines():
        path = line.split("=>")[-1].split("(")[0].strip()
        if path.startswith("/"):
            libs.append(Path(path))
    return libs


def build_image(out: Path, init: Path, programs: list, busybox: Path = None, extra: dict = None,
                host_programs: list = ()) -> dict:
    """Stage a tree and make `out` from it; return (and write beside it) a manifest.
    host_programs: dynamically linked host binaries (third-party test tools), put in /bin with
    their libraries at the paths the loader looks for them."""
    busybox = busybox or find_busybox()
    mke2fs = _tool("mke2fs")
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = out.parent / "stage"
    shutil.rmtree(stage, ignore_errors=True)
    for d in DIRS:
        (stage / d).mkdir(parents=True)
    shutil.copy2(busybox, stage / "bin/busybox")
    applets = subprocess.run([str(busybox), "--list"], capture_output=True, text=True,
                             check=True).stdout.split()
    for applet in applets:
        if applet != "busybox" and not (stage / "bin" / applet).exists():
            (stage / "bin" / applet).symlink_to("busybox")
    for prog in programs:
        shutil.copy2(prog, stage / "bin" / Path(prog).name)
    for directory, files in (extra or {}).items():  # e.g. {"selftests": [...]}
        (stage / directory).mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copy2(f, stage / directory / Path(f).name)
    host_files = {}
    for prog in host_programs:
        host_files[f"/bin/{Path(prog).name}"] = Path(prog)
        for lib in shared_libraries(prog):
            host_files[str(lib)] = lib
    for dest, src in host_files.items():
        (stage / dest.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, stage / dest.lstrip("/"))  # follows symlinks: the library itself
    shutil.copy2(init, stage / "init")
    (stage / "init").chmod(0o755)
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    for p in [stage] + sorted(stage.rglob("*")):   # modes as a umask of 022 gives, whoever builds
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() or p.stat().st_mode & 0o111 else 0o644)
    when = epoch()
    r = subprocess.run([mke2fs, "-q", "-F", "-t", "ext2", "-L", "vmscale", "-U", UUID,
                        "-E", f"root_owner=0:0,hash_seed={UUID}", "-d", str(stage), str(tmp), f"{SIZE_MIB}M"],
                       capture_output=True, text=True, env=dict(os.environ, E2FSPROGS_FAKE_TIME=str(when)))
    if r.returncode:
        raise VmscaleError(f"mke2fs failed: {r.stderr.strip()}")
    pin_inodes(tmp, stage, when)
    tmp.rename(out)
    manifest = {
        "image": str(out),
        "sha256": sha256_file(out),
        "files": {f"/bin/{Path(p).name}": sha256_file(p) for p in programs}
        | {f"/{d}/{Path(f).name}": sha256_file(f) for d, fs in (extra or {}).items() for f in fs}
        | {dest: sha256_file(src) for dest, src in host_files.items()} | {
            "/init": sha256_file(init), "/bin/busybox": sha256_file(busybox)},
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reproducible": {"epoch": when, "uuid": UUID, "tool": subprocess.run(
            [mke2fs, "-V"], capture_output=True, text=True).stderr.splitlines()[0].strip(),
            "sha256 covers": "the image's bytes: the files' contents (hashed one by one in files), names and "
                             "modes; owners, times, UUID and hash seed are pinned"},
    }
    atomic_write_text(out.with_suffix(".json"), json.dumps(manifest, indent=2) + "\n")
    return manifest
