"""Atomic, all-or-nothing writes of a few files (a checkpoint), and of one report.

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

The commit point is on disk too, for a process killed outright (``kill -9``, a power
cut): each folder written holds an undo record naming every file the transaction
creates there before it exists (``journal.py``, which also holds ``recover``); a
``committed`` line in it, synced, is the commit point. ``recover(folder)``, which every
transaction runs on each folder before it writes there, rolls back or finishes what a
record left by a dead process names, and touches nothing else.

An append-only or immutable folder is refused before anything is written there
(``folders.py``). Where the flags cannot be read, a leftover that cannot be removed is
named in the error, never left silently; a temporary file of our own is emptied first.

Every step goes through ``step`` (callers name their own checks the same way); tests
point ``fault`` at a function that raises to make any one step fail.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from dspark_ckpt.errors import CheckpointError, UsageError, WriteError, few
from dspark_ckpt.record import record
from dspark_ckpt.source.folders import lock_folder, refuse_sealed
from dspark_ckpt.source.journal import (
    NAME_MAX,
    Record,
    fsync_folder,
    leftovers,
    other_file,
    recover,
    signals_held,
    temp_name,
)

__all__ = [
    "NAME_MAX",
    "Transaction",
    "check_destination",
    "committed",
    "leftovers",
    "open_to_read",
    "recover",
    "refuse_symlink",
    "signals_held",
    "step",
    "write_atomic",
    "writing",
]


if TYPE_CHECKING:
    from dspark_ckpt.source.pieces import Pieces

# test seam: called as fault(step, path) before every step; raise to inject a failure
fault: Callable[[str, Path], None] | None = None


def step(name: str, path: Path) -> None:
    """Mark one step of a write (the failure-injection seam)."""
    if fault is not None:
        fault(name, path)


# the Transactions of this process past their commit point (appended: one atomic step)
_COMMITTED: list[Transaction] = []


def _write_new(temp: Path, data: bytes) -> None:
    """``data`` into the new file ``temp`` (never an existing one), synced to disk."""
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


def committed() -> bool:
    """Whether a ``Transaction`` of this process has passed its commit point: its files
    are in place for good. The CLI's signal handler reads it: a signal after that point
    no longer stops the command (nothing would roll back), which finishes and says so."""
    return bool(_COMMITTED)


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


def open_to_read(src: Path):
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


@record(frozen=False)
class _Staged:
    dest: Path
    temp: Path
    backup: Path | None = None  # the backup made of the file it replaces
    committed: bool = False
    linked: bool = False  # the temp is a hard link to the source: its mode is the source's
    same: bool = False  # the temp is a hard link to the very file at dest: nothing to replace
    backup_name: Path | None = None  # chosen when staged: the undo record names it


class Transaction:
    """Stage files, then ``commit`` them all or none. Use as a context manager."""

    def __init__(self, *, force: bool = False) -> None:
        self.force = force
        self.staged: list[_Staged] = []
        self.claimed: set[Path] = set()  # every dest staged: a set, or staging n files is n**2
        self.made_dirs: list[Path] = []
        self.checked: set[Path] = set()  # folders found neither append-only nor immutable
        self.locks: list[int] = []  # a descriptor of each folder make_dir gave, flock-ed
        self.records: dict[Path, Record] = {}  # per folder written: its undo record
        self.recovered: list[str] = []  # what recover() did in the folders written
        self.left: list[Path] = []  # what a rollback could not remove
        self.unrestored: list[_Staged] = []  # replaced files a rollback could not restore

    # -- staging ---------------------------------------------------------------

    def make_dir(self, folder: Path) -> None:
        """Create ``folder`` (its parent must exist); removed again on rollback. One left
        by an interrupted transaction that made it is first rolled back (``recover``)."""
        refuse_symlink(folder)
        with writing(folder):
            if folder.is_dir() and not folder.is_symlink():
                self._writable(folder)
                self._lock(folder)
                self.recovered += recover(folder, remove_made=True)
            if folder.exists():
                if not folder.is_dir():
                    raise UsageError(f"{folder}: exists and is not a directory")
                return
            if not folder.parent.is_dir():
                raise UsageError(f"{folder.parent}: no such directory")
            self._writable(folder.parent)
        self.made_dirs.append(folder)  # before it exists: a signal cannot orphan it
        with writing(folder):
            step("mkdir", folder)
            try:
                folder.mkdir()
            except FileExistsError:  # made by another run meanwhile: not ours to remove
                self.made_dirs.remove(folder)
                raise UsageError(
                    f"{folder}: made by another run meanwhile; nothing written"
                ) from None
        self._lock(folder)

    def _writable(self, folder: Path) -> None:
        """Before anything is written in ``folder``: refuse it if append-only or
        immutable."""
        if folder not in self.checked:
            refuse_sealed(folder)
            self.checked.add(folder)

    def _lock(self, folder: Path) -> None:
        """The folder ``make_dir`` gives (a whole checkpoint: ``fix --out``) is this
        transaction's alone until it ends: another one writing there is refused
        (``lock_folder``). Folders that only receive a file (side files, reports) are
        not locked: runs writing other files there do not wait on each other."""
        with writing(folder):
            self.locks.append(lock_folder(folder))

    def _unlock(self) -> None:
        locks, self.locks = self.locks, []
        for fd in locks:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _claim(self, dest: Path) -> Path:
        check_destination(dest, self.force)
        if dest in self.claimed:
            raise UsageError(f"{dest}: written twice by one command")
        self._writable(dest.parent)
        self.claimed.add(dest)
        return temp_name(dest)

    def _record(self, s: _Staged) -> Record:
        """Name ``s`` in its folder's undo record, made (after ``recover``-ing what an
        interrupted write left there) with the folder's first staged file. Called before
        the temporary file exists: a kill cannot leave it unnamed."""
        folder = s.dest.parent
        record = self.records.get(folder)
        if record is None:
            self.recovered += recover(folder)
            record = self.records[folder] = Record(folder)  # before it exists, as for temps
            step("record", record.path)
            record.create(made=folder in self.made_dirs)
        s.backup_name = temp_name(s.dest, "bak")
        names = {"dest": s.dest.name, "temp": s.temp.name, "backup": s.backup_name.name}
        record.add({**names, "new": not s.dest.exists()})
        return record

    def _made(self, record: Record, s: _Staged) -> None:
        """The temporary file exists: its inode, by which a recovery knows it in place."""
        record.made("temp", s.temp)

    def add_bytes(self, dest: Path, data: bytes) -> None:
        """Stage ``data`` as the new content of ``dest``."""
        temp = self._claim(dest)
        s = _Staged(dest, temp)
        self.staged.append(s)  # before it exists: a signal cannot orphan it
        with writing(dest):
            step("temp", temp)
            record = self._record(s)
            _write_new(temp, data)
            self._made(record, s)

    def add_copy(self, dest: Path, src: Path, *, link: bool = False) -> None:
        """Stage ``src`` as ``dest``: a streamed copy (never loaded into memory); with
        ``link`` a hard link where the filesystem allows (one file: an edit of either
        edits both, so only for files nobody edits, like weight shards). A source that
        cannot be read is a ``CheckpointError`` naming it; only the writing is ``dest``'s."""
        temp = self._claim(dest)
        s = _Staged(dest, temp)
        self.staged.append(s)  # before it exists: a signal cannot orphan it
        real = os.path.realpath(src)
        if link:
            with writing(dest):
                step("link", temp)
                record = self._record(s)
            try:
                os.link(real, temp)
                linked = True
            except OSError:
                linked = False
            if linked:  # whatever ``real`` is now (replaced by a FIFO?): the link is of it
                s.linked = True
                with writing(dest):
                    is_file = stat.S_ISREG(os.lstat(temp).st_mode)
                    self._made(record, s)
                if not is_file:
                    raise CheckpointError(src, f"{NOT_REGULAR}; nothing written")
                return
        with _open_source(src, real) as source, writing(dest):
            step("write", temp)
            record = self.records.get(dest.parent) if link else self._record(s)
            with open(temp, "xb") as out:
                self._made(record, s)
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
        staged = _Staged(dest, temp)
        self.staged.append(staged)  # before it exists: a signal cannot orphan it
        with writing(dest):
            step("temp", temp)
            record = self._record(staged)
            step("write", temp)
            out = open(temp, "xb")  # noqa: SIM115 - closed by the with below
        # closing flushes what is buffered: on a full disk it fails too, after (and instead
        # of) the write's own error, so the close names ``dest`` as well
        with writing(dest), out:
            chunks = pieces.chunks(open_to_read)
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
        with writing(dest):
            self._made(record, staged)

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
            for folder, record in self.records.items():  # on disk before anything moves
                with writing(next(s.dest for s in self.staged if s.dest.parent == folder)):
                    step("fsync", record.path)
                    record.sync()
            for s in self.staged:
                with writing(s.dest):
                    self._put(s)
            for folder in self._folders():
                with writing(folder):
                    fsync_dir(folder)
            if check is not None:
                check()
            with signals_held():  # the commit point, on disk and here: nothing between
                for folder, record in self.records.items():
                    with writing(folder):
                        step("mark", record.path)
                        record.commit()
                _COMMITTED.append(self)  # one atomic step
        except BaseException as err:
            if not self.done:
                self.rollback()
                _tell_leftovers(err, self)
            raise
        self._drop_backups()

    def _drop_backups(self) -> None:
        """After the commit point: the backups go, then the undo records, whatever
        signal arrives meanwhile; one that cannot be removed is left (a record says
        which backups a later ``recover`` may drop), never an error: the change stands."""
        with signals_held():
            staged, self.staged, self.made_dirs = self.staged, [], []
            records, self.records = self.records, {}
            for s in staged[-1:]:
                with contextlib.suppress(OSError):
                    step("commit", s.dest)
            for s in staged:
                if s.backup is not None:
                    with contextlib.suppress(OSError):
                        step("drop_backup", s.backup)
                        s.backup.unlink()
            for folder, record in records.items():
                record.close()
                with contextlib.suppress(OSError):
                    step("drop_record", record.path)
                    os.unlink(record.path)
                with contextlib.suppress(OSError):  # durable where the disk allows
                    fsync_folder(folder)
            self._unlock()

    def _put(self, s: _Staged) -> None:
        """Put one staged file in place, keeping a hard-linked backup of the old one."""
        if s.dest.exists() and os.path.samefile(s.temp, s.dest):
            # rename() between two links to one file does nothing: drop the temp
            s.temp.unlink()
            s.same = s.committed = True
            return
        if s.dest.exists():
            s.backup = s.backup_name or temp_name(s.dest, "bak")
            step("backup", s.backup)
            os.link(s.dest, s.backup)
            record = self.records.get(s.dest.parent)
            if record is not None:  # by its inode a recovery knows the backup its own
                record.made("backup", s.backup)
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
            try:
                step("rollback", s.dest)
                if s.same:
                    continue
                if s.committed and s.backup is not None:
                    os.replace(s.backup, s.dest)
                elif s.committed:
                    s.dest.unlink()
            except OSError:
                if s.committed and s.backup is not None and other_file(s.backup, s.dest):
                    self.unrestored.append(s)
            # a temp of our own bytes that cannot go is emptied; never a link to a source
            self._remove(s.temp, empty=not s.linked)
            if s.backup is not None and s not in self.unrestored:
                self._remove(s.backup)
        for rec in self.records.values():
            rec.close()
            self._remove(rec.path)
        for folder in reversed(self.made_dirs):
            with contextlib.suppress(OSError):
                step("rollback", folder)
                folder.rmdir()
        for folder in self._folders():
            with contextlib.suppress(OSError):
                if folder.exists():
                    fsync_folder(folder)
        self.staged = []
        self.made_dirs = []
        self.records = {}
        self._unlock()

    def _remove(self, path: Path, *, empty: bool = False) -> None:
        """Remove a leftover; one that cannot be removed is kept in ``left`` (named in
        the error), emptied first where ``empty``."""
        try:
            step("remove", path)
            os.unlink(path)
        except FileNotFoundError:
            return
        except OSError:
            if empty:
                with contextlib.suppress(OSError):
                    flags = os.O_WRONLY | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
                    os.close(os.open(path, flags | getattr(os, "O_NONBLOCK", 0)))
            self.left.append(path)

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.done:  # a signal cut short dropping the backups: finish, roll nothing back
            self._drop_backups()
        elif exc_type is not None or self.staged or self.records:
            self.rollback()
            if exc is not None:
                _tell_leftovers(exc, self)
        self._unlock()


def _tell_leftovers(err: BaseException, tx: Transaction) -> None:
    """Add to the error ``err`` what ``tx``'s rollback could not undo: replaced files it
    could not restore (their old content is in the backup, named), hidden files it could
    not remove (named: an append-only folder allows neither rename nor removal). Once:
    the error passes through ``commit`` and ``__exit__``."""
    extra = ""
    if tx.unrestored:
        pairs = [f"{s.dest.name} (its old content is {s.backup.name})" for s in tx.unrestored]
        extra += f"; could not restore {few(pairs)}"
    if tx.left:
        names = [p.name for p in tx.left]
        extra += (
            f"; left {len(names)} hidden file(s) it could not remove in "
            f"{tx.left[0].parent}: {few(names)} (our temporary files emptied; remove "
            "them by hand)"
        )
    tx.unrestored, tx.left = [], []
    if not extra or not isinstance(err, (CheckpointError, UsageError)):
        return
    if isinstance(err, CheckpointError) or hasattr(err, "message"):
        err.message += extra
    err.args = (f"{err.args[0]}{extra}" if err.args else extra,)
    if isinstance(err, CheckpointError):
        err.args = (str(err),)


def write_atomic(path: str | Path, data: bytes | str, *, overwrite: bool = True) -> Path:
    """Write one file (a report: ``-o``, ``--also``) atomically: a temporary file beside
    it, written and synced, then renamed over it. Nothing else in its folder is looked
    at, cleared or rolled back: a report's folder is the user's, not a checkpoint this
    tool writes. A symlink, a folder and (without ``overwrite``) an existing file are
    refused, so is an append-only or immutable folder; a replaced file keeps its mode.
    On any failure, a signal included, the temporary file goes; a kill -9 can leave it
    (``.NAME.RANDOM.tmp``), which no later run removes: it is not known to be ours."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    check_destination(path, overwrite)
    with writing(path):
        refuse_sealed(path.parent if str(path.parent) else Path("."))
    temp = temp_name(path)
    try:
        with writing(path):
            step("temp", temp)
            _write_new(temp, raw)
            with contextlib.suppress(FileNotFoundError):
                os.chmod(temp, stat.S_IMODE(os.stat(path).st_mode))
            step("replace", path)
            os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):  # durable where the disk allows
        fsync_folder(path.parent)
    return path
