"""The undo record of a checkpoint write (its journal), and the recovery of what a write
killed outright (``kill -9``, a power cut) left.

A ``Transaction`` (``atomic.py``) keeps one record per folder it writes in, from its
first staged file until its backups are dropped: ``.dspark-ckpt-write.RANDOM.undo``,
locked (``flock``) while its process lives, one JSON line each:

- ``{"run": RUN, "pid": PID, "made": BOOL}`` first: the run that wrote it, and whether
  the run made the folder;
- ``{"dest", "temp", "backup", "new"}`` per staged file, written *before* the temporary
  file or the backup exists, so a kill cannot leave one unnamed;
- ``{"temp": NAME, "ino": N}`` once the temporary file exists, ``{"backup": NAME,
  "ino": N}`` once the backup (a hard link of the replaced file) exists: by their
  inodes a recovery knows the very files this run made;
- ``{"committed": RUN}``: the commit point, synced to disk; then the backups go, then
  the record.

``recover(folder)`` acts only on what a record whose process is dead names, and only on
files that are the very files that run made: before the commit point a destination is
put back from its backup only where it is still the file the run put there (its inode
is the temporary file's), and a new destination is removed only then; after it only
the backups the run made (by inode) go. The temporary files and backups it names go,
and the record. Nothing is found by a name pattern alone: a hidden file no record names
is someone else's, never touched. A record is input too (a downloaded checkpoint can
ship one): it names plain names of its own folder only (no path), of the kinds this
tool makes, so a record can touch nothing outside its folder, and inside it only files
whose inode it recorded, which a record written anywhere else cannot know.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from dspark_ckpt.errors import few

try:
    import fcntl
except ImportError:  # no flock: every record counts as alive (reported, never rolled back)
    fcntl = None  # type: ignore[assignment]

NAME_MAX = 255  # bytes in one file name: Linux's ext4, xfs, btrfs, tmpfs; macOS's APFS
RECORD = "dspark-ckpt-write"  # an undo record's name: .dspark-ckpt-write.RANDOM.undo
RECORD_NAME = re.compile(r"\.dspark-ckpt-write\.[0-9a-f]{12}\.undo")
# what temp_name makes: a temporary file, a backup, an undo record
TEMP_NAME = re.compile(r"\.(.+)\.[0-9a-f]{12}\.(tmp|bak|undo)", re.S)
MAX_RECORD = 1 << 20  # an undo record holds a line per file written: read up to 1 MiB
RUN = os.urandom(8).hex()  # this process's run, as its records name it

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


def temp_name(dest: Path, kind: str = "tmp") -> Path:
    """A fresh name beside ``dest``: ``.NAME.RANDOM.KIND``, NAME cut (in bytes) so that
    the whole fits in ``NAME_MAX`` where ``dest``'s own name does (it adds 18 bytes)."""
    suffix = f".{os.urandom(6).hex()}.{kind}"
    keep = NAME_MAX - 1 - len(suffix)
    name = os.fsdecode(os.fsencode(dest.name)[:keep])
    return dest.parent / f".{name}{suffix}"


def fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def other_file(a: Path, b: Path) -> bool:
    """Whether ``a`` exists and is not the very file at ``b``."""
    try:
        return not (b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


class Record:
    """A folder's undo record, as this run writes it (the format above)."""

    def __init__(self, folder: Path) -> None:
        self.path = temp_name(folder / RECORD, "undo")
        self.fd: int | None = None

    def create(self, made: bool) -> None:
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        if fcntl is not None:
            with contextlib.suppress(OSError):  # no locks on this filesystem: looks alive
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self.add({"run": RUN, "pid": os.getpid(), "made": made})

    def add(self, entry: dict) -> None:
        """One line; written, not synced (a killed process's writes are in the page
        cache): ``sync`` before the first file is put in place."""
        if self.fd is not None:
            os.write(self.fd, (json.dumps(entry) + "\n").encode())

    def made(self, kind: str, path: Path) -> None:
        """The temporary file or backup ``path`` exists: its inode."""
        self.add({kind: path.name, "ino": os.lstat(path).st_ino})

    def sync(self) -> None:
        if self.fd is not None:
            os.fsync(self.fd)

    def commit(self) -> None:
        """The commit point of this folder, on disk."""
        self.add({"committed": RUN})
        self.sync()

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


# --- reading a record ------------------------------------------------------------------


def _plain(name: object, kind: str | None = None) -> bool:
    """A file name of this folder, as a record may name one (nothing with a path); with
    ``kind``, one ``temp_name`` makes of that kind (a record can only name our own
    temporary files and backups)."""
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\0" in name:
        return False
    return kind is None or ((m := TEMP_NAME.fullmatch(name)) is not None and m[2] == kind)


class _Read:
    """What a record says: whether the run made the folder, passed its commit point, its
    staged files (newest last) and the inode of each temporary file and backup made."""

    def __init__(self, raw: bytes) -> None:
        self.made = self.committed = False
        self.entries: list[dict] = []
        self.inodes: dict[str, int] = {}
        for line in raw.split(b"\n"):
            try:
                entry = json.loads(line)
            except ValueError:  # a line cut short by the kill
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("made") is True:
                self.made = True
            if isinstance(entry.get("committed"), str):
                self.committed = True
            temp, backup, ino = entry.get("temp"), entry.get("backup"), entry.get("ino")
            if isinstance(ino, int) and (_plain(temp, "tmp") or _plain(backup, "bak")):
                self.inodes[temp if _plain(temp, "tmp") else backup] = ino
            elif _plain(entry.get("dest")) and _plain(temp, "tmp") and _plain(backup, "bak"):
                self.entries.append(entry)

    def names(self) -> set[str]:
        return {e[k] for e in self.entries for k in ("temp", "backup")}

    def is_made(self, path: Path, key: str) -> bool:
        """Whether ``path`` is the very file this record's ``key`` was when made."""
        ino = self.inodes.get(key)
        try:
            return ino is not None and os.lstat(path).st_ino == ino
        except OSError:
            return False


def _alive(fd: int) -> bool:
    """Whether the process that holds the record's lock still runs (no locks: alive)."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    return False


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _roll_back(folder: Path, record: _Read, out: dict) -> None:
    """Undo, newest first, what a dead run's record names, touching only the files that
    run made: a destination that is still the run's temporary file (by inode) gets its
    backup back, or, new, goes; a backup of a destination never replaced (the same file)
    is only a second name, cleared with the temporary files."""
    for entry in reversed(record.entries):
        dest, temp, backup = (folder / entry[k] for k in ("dest", "temp", "backup"))
        put = not os.path.lexists(temp) and record.is_made(dest, temp.name)
        try:
            if _regular(backup) and other_file(backup, dest):
                if put:
                    os.replace(backup, dest)
                    out["restored"].append(dest.name)
                else:  # dest is not the run's file: its old content stays beside it
                    out["left"].append(backup.name)
            elif entry.get("new") is True and put:
                os.unlink(dest)
                out["removed"].append(dest.name)
        except FileNotFoundError:
            pass
        except OSError:
            out["left"].append(backup.name if os.path.lexists(backup) else dest.name)


def _clear(folder: Path, record: _Read, out: dict) -> None:
    """Past the commit point: the change stands; the backups the run made (by inode)
    and its temporary files go."""
    for entry in record.entries:
        backup = folder / entry["backup"]
        if not record.is_made(backup, backup.name):
            out["keep"].add(backup.name)


def recover(folder: Path, *, remove_made: bool = False) -> list[str]:
    """Find and clear what an interrupted write of this tool left in ``folder``; say
    what was done, one line each (nothing found: no line).

    Only undo records are looked for. A record whose process is dead (its lock is free)
    is of a write stopped outright: before its commit point it is rolled back
    (``_roll_back``), after it its backups go (``_clear``); either way the temporary
    files it names and the record go. A living record (a write in progress, or a
    filesystem without locks) and what it names are left alone. With ``remove_made``,
    a folder a rolled-back write had made is removed once empty. Like a rollback, it
    runs to its end whatever signal arrives (``signals_held``)."""
    try:
        records = sorted(n for n in os.listdir(folder) if RECORD_NAME.fullmatch(n))
    except OSError:
        return []
    if not records:
        return []
    with signals_held():
        return _recover(folder, records, remove_made)


def _dead(folder: Path, name: str) -> _Read | None:
    """The record ``name`` read, if its process is dead (else, or unreadable: None)."""
    try:
        fd = os.open(folder / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:  # cannot look at its lock: left alone
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or _alive(fd):
            return None
        return _Read(os.read(fd, MAX_RECORD))
    finally:
        os.close(fd)


def _recover(folder: Path, records: list[str], remove_made: bool) -> list[str]:
    out: dict = {"restored": [], "removed": [], "left": [], "keep": set(), "cleared": []}
    made = False
    for name in records:
        record = _dead(folder, name)
        if record is None:
            continue
        made |= record.made and not record.committed
        if record.committed:
            _clear(folder, record, out)
        else:
            _roll_back(folder, record, out)
        for gone in sorted(record.names() - out["keep"] - set(out["left"])) + [name]:
            try:
                os.unlink(folder / gone)
                out["cleared"].append(gone)
            except FileNotFoundError:
                pass
            except OSError:
                out["left"].append(gone)
    with contextlib.suppress(OSError):
        fsync_folder(folder)
    said = []
    if out["restored"] or out["removed"]:
        done = [f"restored {few(out['restored'])}"] if out["restored"] else []
        done += [f"removed {few(out['removed'])}"] if out["removed"] else []
        said.append(
            f"rolled back a write interrupted before its commit point in {folder}: "
            + "; ".join(done)
        )
    if out["cleared"]:
        said.append(
            f"cleared {len(out['cleared'])} hidden file(s) an interrupted write left in "
            f"{folder}: {few(out['cleared'])}"
        )
    if out["left"]:
        said.append(
            f"could not remove what an interrupted write left in {folder}: "
            f"{few(sorted(set(out['left'])))} (remove them by hand)"
        )
    if made and remove_made:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return said


def leftovers(folder: Path) -> list[str]:
    """What an interrupted write of this tool left in ``folder``, read only (``recover``
    clears it): each dead undo record and the files it names that are there."""
    try:
        records = sorted(n for n in os.listdir(folder) if RECORD_NAME.fullmatch(n))
    except OSError:
        return []
    found = []
    for name in records:
        record = _dead(folder, name)
        if record is not None:
            found += [name, *sorted(n for n in record.names() if os.path.lexists(folder / n))]
    return found
