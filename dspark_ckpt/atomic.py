"""Atomic file writes: a temp file in the same folder, fsync, ``os.replace``, fsync the folder.

A reader never sees a half-written file, and a crash leaves the old file (or none).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from dspark_ckpt.errors import UsageError


def write_atomic(path: str | Path, data: bytes | str, *, overwrite: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically; refuse an existing file unless ``overwrite``."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent
    if not overwrite and (path.exists() or path.is_symlink()):
        raise UsageError(f"{path}: already exists (use --force to overwrite)")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise UsageError(f"{path}: cannot write: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{path}: cannot write: {e.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dfd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return path
