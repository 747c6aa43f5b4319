"""What a folder allows before anything is written in it, and who else writes there.

An append-only folder (``chattr +a``) lets files be created and written, never renamed
into place or removed: a write there would leave its temporary files for good. An
immutable one (``chattr +i``) allows nothing. Both are refused before a byte is written,
from the folder's inode flags (Linux's ``FS_IOC_GETFLAGS``, which ``lsattr`` reads).
A filesystem without the flags (tmpfs, NFS, another system) answers nothing: the write
goes ahead, and what it cannot remove is named (``atomic``)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from dspark_ckpt.errors import UsageError, WriteError

try:
    import fcntl
except ImportError:  # not a Unix: no flags to read
    fcntl = None  # type: ignore[assignment]

FS_IOC_GETFLAGS = 0x80086601  # _IOR('f', 1, long) on 64-bit Linux
FS_IMMUTABLE_FL = 0x10
FS_APPEND_FL = 0x20


def folder_flags(folder: Path) -> int:
    """The inode flags of ``folder`` (0 where the filesystem or system has none)."""
    if fcntl is None or not sys.platform.startswith("linux"):
        return 0
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK)
    except OSError:
        return 0  # cannot open it: the write itself says why
    try:
        buf = bytearray(8)
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf, True)
    except OSError:  # ENOTTY, EINVAL: no flags on this filesystem
        return 0
    finally:
        os.close(fd)
    return int.from_bytes(buf[:4], sys.byteorder)


def refuse_sealed(folder: Path) -> None:
    """A ``WriteError`` naming ``folder`` if it is immutable or append-only."""
    flags = folder_flags(folder)
    if flags & FS_IMMUTABLE_FL:
        raise WriteError(folder, "the folder is immutable (chattr +i)")
    if flags & FS_APPEND_FL:
        raise WriteError(
            folder,
            "the folder is append-only (chattr +a): a file written there could never be "
            "put in place or removed",
        )


def lock_folder(folder: Path) -> int:
    """A descriptor of ``folder`` holding its exclusive lock (``flock``): one write of this
    tool per folder at a time. Another holding it is a ``UsageError``; a filesystem
    without locks (some NFS) lends none, and the write goes ahead. ``OSError`` if the
    folder cannot be opened."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    if fcntl is None:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise UsageError(
            f"{folder}: another dspark-ckpt run is writing there; nothing written"
        ) from None
    except OSError:  # no locks on this filesystem
        pass
    return fd


@contextlib.contextmanager
def held_in_place(source: str, in_place: bool) -> Iterator[None]:
    """``fix --in-place``: the checkpoint's folder (a file's parent) is this run's alone
    from before it is read until its write ends (``lock_folder``), so a second in-place
    run on it is refused rather than planned on files the first one is replacing."""
    path = Path(source)
    if not in_place or not path.exists():
        yield
        return
    fd = lock_folder(path if path.is_dir() else path.parent)
    try:
        yield
    finally:
        os.close(fd)
