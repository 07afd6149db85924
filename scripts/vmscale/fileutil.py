"""Small file helpers: hashes, writes that never leave a half-written file, and locks."""

import errno
import fcntl
import hashlib
import os
import socket
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path


def sha256_file(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def atomic_write_text(path, text: str):
    """Write to a temporary file in the same directory, then rename over the target."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@contextmanager
def exclusive(path, what: str, say=print):
    """Hold an exclusive lock on `path` (created if missing) for the block: a POSIX record
    lock (lockf), which local processes and, on NFS, other hosts' processes respect, and which
    the kernel drops when its holder dies, so a killed job never leaves a lock behind.  A
    caller that finds it taken says who holds it and waits."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EACCES, errno.EAGAIN):
                raise
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
            say(f"{what}: held by {holder}; waiting for it", flush=True)
            fcntl.lockf(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since "
                      f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}\n".encode(), 0)
        yield
    finally:
        os.close(fd)
