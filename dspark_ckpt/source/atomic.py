"""Atomic, all-or-nothing writes of a few files.

A ``Transaction`` stages each file as a temporary file in its destination folder
(written, fsynced), then commits them in the order they were added: each
``os.replace``-d into place, then every touched folder fsynced. Add the file that
makes the others visible (an index) last. Any failure, at any step, rolls back: new
files are removed, replaced ones restored from a hard-linked backup, folders the
transaction made are removed. Destinations that are symlinks are refused, and an
existing file is replaced only with ``force``, keeping its mode bits. A filesystem error while writing
(read-only folder, disk full) is a ``WriteError`` naming the destination, never the
temporary file (a source file to copy that cannot be read is a ``CheckpointError``
naming it); the transaction rolls back as for any failure.

A rollback runs to its end: SIGINT and SIGTERM arriving meanwhile are held and
delivered after it (``signals_held``).

``commit(check=...)`` runs a last check after everything is in place and before the
backups are dropped: if it fails, the transaction rolls back like any other step.

Every step goes through ``step`` (callers name their own checks the same way); tests
point ``fault`` at a function that raises to make any one step fail.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.errors import CheckpointError, UsageError, WriteError

if TYPE_CHECKING:
    from dspark_ckpt.source.pieces import Pieces

# test seam: called as fault(step, path) before every step; raise to inject a failure
fault: Callable[[str, Path], None] | None = None


def step(name: str, path: Path) -> None:
    """Mark one step of a write (the failure-injection seam)."""
    if fault is not None:
        fault(name, path)


HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM arriving inside are held, then delivered to their handlers as
    the block ends, so that no handler's exception cuts it short (a rollback half done
    leaves temporary files and unrestored destinations). Held by a handler that only
    records them, not by ``pthread_sigmask``: a signal blocked in the main thread is
    taken by another thread (numpy's), and the main thread still runs its handler. Only
    the main thread can set handlers; elsewhere nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    before = {signum: signal.signal(signum, lambda n, _: held.append(n)) for signum in HELD_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)


NAME_MAX = 255  # bytes in one file name: Linux's ext4, xfs, btrfs, tmpfs; macOS's APFS


# the Transactions of this process past their commit point (appended: one atomic step)
_COMMITTED: list[Transaction] = []


def committed() -> bool:
    """Whether a ``Transaction`` of this process has passed its commit point: its files
    are in place for good. The CLI's signal handler reads it: a signal after that point
    no longer stops the command (nothing would roll back), which finishes and says so."""
    return bool(_COMMITTED)


def _temp_name(dest: Path, kind: str = "tmp") -> Path:
    """A fresh name beside ``dest``: ``.NAME.RANDOM.KIND``, NAME cut (in bytes) so that
    the whole fits in ``NAME_MAX`` where ``dest``'s own name does (it adds 18 bytes)."""
    suffix = f".{secrets.token_hex(6)}.{kind}"
    keep = NAME_MAX - 1 - len(suffix)
    name = os.fsdecode(os.fsencode(dest.name)[:keep])
    return dest.parent / f".{name}{suffix}"


@contextlib.contextmanager
def writing(dest: Path) -> Iterator[None]:
    """An ``OSError`` inside becomes a ``WriteError`` naming ``dest``."""
    try:
        yield
    except OSError as e:
        raise WriteError(dest, e.strerror or str(e)) from None


COPY_CHUNK = 1 << 20


def _read(source, src: Path) -> bytes:
    """The next chunk of a file being copied; a read error names the source."""
    try:
        return source.read(COPY_CHUNK)
    except OSError as e:
        raise CheckpointError(src, f"{e.strerror or e}; nothing written") from None


NOT_REGULAR = "is no longer a regular file (replaced while this command ran?)"


def _open_source(src: Path, real: str):
    """``src`` opened to be copied, refusing anything but a regular file: opened without
    blocking (a FIFO put in its place would block ``open`` for ever), then the opened
    descriptor is checked, not the path (which can change in between)."""
    try:
        fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise CheckpointError(src, f"{e.strerror or e}; nothing written") from None
    try:
        is_file = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        is_file = False
    if not is_file:
        os.close(fd)
        raise CheckpointError(src, f"{NOT_REGULAR}; nothing written")
    return os.fdopen(fd, "rb")


def open_regular(src: Path):
    """``src`` opened for reading, refused unless a regular file (never blocks)."""
    return _open_source(src, os.path.realpath(src))


def fsync_dir(folder: Path) -> None:
    step("fsync_dir", folder)
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def refuse_symlink(path: Path) -> None:
    """Nothing is ever written through a symlink (it could lead anywhere). A path that
    cannot even be looked at (a folder on the way the user may not search) is a
    ``WriteError`` naming it, as for any write."""
    with writing(path):
        if path.is_symlink():
            raise UsageError(f"{path}: is a symlink; refusing to write through it")


def check_destination(dest: Path, force: bool) -> None:
    """Refuse a symlink always, and an existing file without ``force``."""
    refuse_symlink(dest)
    with writing(dest):
        if dest.exists():
            if not dest.is_file():
                raise UsageError(f"{dest}: exists and is not a regular file")
            if not force:
                raise UsageError(f"{dest}: exists; pass --force to overwrite it")


@dataclass
class _Staged:
    dest: Path
    temp: Path
    backup: Path | None = None
    committed: bool = False
    linked: bool = False  # the temp is a hard link to the source: its mode is the source's
    same: bool = False  # the temp is a hard link to the very file at dest: nothing to replace


class Transaction:
    """Stage files, then ``commit`` them all or none. Use as a context manager."""

    def __init__(self, *, force: bool = False) -> None:
        self.force = force
        self.staged: list[_Staged] = []
        self.claimed: set[Path] = set()  # every dest staged: a set, or staging n files is n**2
        self.made_dirs: list[Path] = []

    # -- staging ---------------------------------------------------------------

    def make_dir(self, folder: Path) -> None:
        """Create ``folder`` (its parent must exist); removed again on rollback."""
        refuse_symlink(folder)
        with writing(folder):
            if folder.exists():
                if not folder.is_dir():
                    raise UsageError(f"{folder}: exists and is not a directory")
                return
            if not folder.parent.is_dir():
                raise UsageError(f"{folder.parent}: no such directory")
        self.made_dirs.append(folder)  # before it exists: a signal cannot orphan it
        with writing(folder):
            step("mkdir", folder)
            folder.mkdir()

    def _claim(self, dest: Path) -> Path:
        check_destination(dest, self.force)
        if dest in self.claimed:
            raise UsageError(f"{dest}: written twice by one command")
        self.claimed.add(dest)
        return _temp_name(dest)

    def add_bytes(self, dest: Path, data: bytes) -> None:
        """Stage ``data`` as the new content of ``dest``."""
        temp = self._claim(dest)
        self.staged.append(_Staged(dest, temp))  # before it exists: a signal cannot orphan it
        with writing(dest):
            step("temp", temp)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                step("write", temp)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                step("fsync", temp)
                os.fsync(fd)
            finally:
                os.close(fd)

    def add_copy(self, dest: Path, src: Path, *, link: bool = False) -> None:
        """Stage ``src`` as ``dest``: a streamed copy (never loaded into memory); with
        ``link`` a hard link where the filesystem allows (one file: an edit of either
        edits both, so only for files nobody edits, like weight shards). A source that
        cannot be read is a ``CheckpointError`` naming it; only the writing is ``dest``'s."""
        temp = self._claim(dest)
        self.staged.append(_Staged(dest, temp))  # before it exists: a signal cannot orphan it
        real = os.path.realpath(src)
        if link:
            with writing(dest):
                step("link", temp)
            try:
                os.link(real, temp)
                linked = True
            except OSError:
                linked = False
            if linked:  # whatever ``real`` is now (replaced by a FIFO?): the link is of it
                self.staged[-1].linked = True
                with writing(dest):
                    is_file = stat.S_ISREG(os.lstat(temp).st_mode)
                if not is_file:
                    raise CheckpointError(src, f"{NOT_REGULAR}; nothing written")
                return
        with _open_source(src, real) as source, writing(dest):
            step("write", temp)
            with open(temp, "xb") as out:
                while chunk := _read(source, src):
                    out.write(chunk)
                step("fsync", temp)
                out.flush()
                os.fsync(out.fileno())

    def add_pieces(self, dest: Path, pieces: Pieces) -> None:
        """Stage ``pieces`` (new bytes and ranges of existing files, ``source/pieces.py``)
        as the new content of ``dest``: streamed, never loaded; a source that cannot be
        read is a ``CheckpointError`` naming it."""
        temp = self._claim(dest)
        self.staged.append(_Staged(dest, temp))  # before it exists: a signal cannot orphan it
        with writing(dest):
            step("write", temp)
            out = open(temp, "xb")  # noqa: SIM115 - closed by the with below
        with out:
            chunks = pieces.chunks(open_regular)
            while True:
                try:
                    chunk = next(chunks, None)
                except OSError as e:
                    raise CheckpointError(dest, f"{e.strerror or e}; nothing written") from None
                if chunk is None:
                    break
                with writing(dest):
                    out.write(chunk)
            with writing(dest):
                step("fsync", temp)
                out.flush()
                os.fsync(out.fileno())

    # -- commit and rollback ---------------------------------------------------

    @property
    def done(self) -> bool:
        """Past the commit point: the change stands, nothing rolls back."""
        return any(t is self for t in _COMMITTED)

    def commit(self, check: Callable[[], None] | None = None) -> None:
        """Put every staged file in place, then run ``check``; any failure before the
        commit point rolls back. The commit point is passed as ``check`` returns: from
        there nothing rolls back; the backups are dropped with signals held."""
        try:
            for s in self.staged:
                with writing(s.dest):
                    self._put(s)
            for folder in self._folders():
                with writing(folder):
                    fsync_dir(folder)
            if check is not None:
                check()
            _COMMITTED.append(self)  # the commit point: one atomic step
        except BaseException:
            if not self.done:
                self.rollback()
            raise
        self._drop_backups()

    def _drop_backups(self) -> None:
        """After the commit point: the backups go, whatever signal arrives meanwhile; one
        that cannot be removed is left (a hidden hard link of the old file), never an
        error: the change stands."""
        with signals_held():
            staged, self.staged, self.made_dirs = self.staged, [], []
            for s in staged[-1:]:
                with contextlib.suppress(OSError):
                    step("commit", s.dest)
            for s in staged:
                if s.backup is not None:
                    with contextlib.suppress(OSError):
                        step("drop_backup", s.backup)
                        s.backup.unlink()

    def _put(self, s: _Staged) -> None:
        """Put one staged file in place, keeping a hard-linked backup of the old one."""
        if s.dest.exists() and os.path.samefile(s.temp, s.dest):
            # rename() between two links to one file does nothing: drop the temp
            s.temp.unlink()
            s.same = s.committed = True
            return
        if s.dest.exists():
            s.backup = _temp_name(s.dest, "bak")
            step("backup", s.backup)
            os.link(s.dest, s.backup)
            if not s.linked:  # the replaced file's owner and mode (a 0444 index stays 0444)
                st = os.stat(s.dest)
                if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
                    # root fixing a user's checkpoint; best effort: a user namespace, a
                    # root-squashed NFS or a vfat mount may not allow it, and the fix is
                    # worth more than the owner
                    with contextlib.suppress(OSError):
                        os.chown(s.temp, st.st_uid, st.st_gid)
                os.chmod(s.temp, stat.S_IMODE(st.st_mode))
        step("replace", s.dest)
        # marked first: rolling back a replace that did not happen is harmless (the
        # backup is the same file), missing one that did is not
        s.committed = True
        os.replace(s.temp, s.dest)

    def _folders(self) -> list[Path]:
        folders = [p.parent for p in self.made_dirs] + [s.dest.parent for s in self.staged]
        return list(dict.fromkeys(folders))

    def rollback(self) -> None:
        """Undo everything staged or committed so far; never raises. SIGINT and SIGTERM
        wait until it is done (``signals_held``), then stop the program as usual."""
        with signals_held():
            self._undo()

    def _undo(self) -> None:
        for s in reversed(self.staged):
            with contextlib.suppress(OSError):
                step("rollback", s.dest)
                if s.same:
                    continue
                if s.committed and s.backup is not None:
                    os.replace(s.backup, s.dest)
                elif s.committed:
                    s.dest.unlink()
            for leftover in (s.temp, s.backup):
                if leftover is not None:
                    with contextlib.suppress(OSError):
                        leftover.unlink()
        for folder in reversed(self.made_dirs):
            with contextlib.suppress(OSError):
                step("rollback", folder)
                folder.rmdir()
        for folder in self._folders():
            with contextlib.suppress(OSError):
                if folder.exists():
                    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
        self.staged = []
        self.made_dirs = []

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.done:  # a signal cut short dropping the backups: finish, roll nothing back
            self._drop_backups()
        elif exc_type is not None or self.staged:
            self.rollback()


def write_atomic(path: str | Path, data: bytes | str, *, overwrite: bool = True) -> Path:
    """Write one file atomically (a one-file ``Transaction``); refuse an existing file
    unless ``overwrite``. Used for ``-o/--output``."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with Transaction(force=overwrite) as tx:
        tx.add_bytes(path, raw)
        tx.commit()
    return path
