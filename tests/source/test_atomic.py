"""``atomic``'s undo records and ``journal.recover``, on real files: what a write
interrupted outright leaves is rolled back or cleared, and nothing else is touched (a
write still in progress, a record that names anything outside its folder, a file the
record's run did not make, a hidden file no record names)."""

from __future__ import annotations

import json
import os

from dspark_ckpt.source.atomic import Transaction, leftovers, recover


def hidden(folder) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


def test_a_write_in_progress_is_left_alone(tmp_path):
    """Its record is locked: another recovery (a second fix on the same folder) leaves
    the record and the files it names, and the write then commits."""
    (tmp_path / "a.json").write_text("old")
    with Transaction(force=True) as tx:
        tx.add_bytes(tmp_path / "a.json", b"new")
        tx.add_bytes(tmp_path / "b.json", b"new too")
        staged = hidden(tmp_path)
        assert len(staged) == 3  # two temporary files and the record
        assert recover(tmp_path) == [] and leftovers(tmp_path) == []
        assert hidden(tmp_path) == staged
        tx.commit()
    assert (tmp_path / "a.json").read_text() == "new" and (tmp_path / "b.json").exists()
    assert hidden(tmp_path) == []


def test_a_rollback_removes_its_record(tmp_path):
    with Transaction() as tx:
        tx.add_bytes(tmp_path / "a.json", b"new")
        tx.rollback()
    assert os.listdir(tmp_path) == []


def dead_record(folder, *lines) -> str:
    """An undo record no process holds (as a kill -9 leaves one)."""
    name = ".dspark-ckpt-write.0123456789ab.undo"
    (folder / name).write_text("".join(json.dumps(x) + "\n" for x in lines))
    return name


def test_a_record_is_read_as_names_in_its_folder_only(tmp_path):
    """A record is hidden input too (a checkpoint folder can ship one): entries naming
    anything outside the folder, or anything but our own temporary files and backups, or
    a new file whose inode is not the temporary file's, touch nothing; the record itself
    is cleared."""
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (tmp_path / "victim").write_text("keep")
    (folder / "config.json").write_text("keep")
    (folder / "kept.json").write_text("keep")
    name = dead_record(
        folder,
        {"made": True},
        {"dest": "../victim", "temp": "x.tmp", "backup": "../victim.bak", "new": True},
        {"dest": "config.json", "temp": "/etc/passwd", "backup": "b", "new": True},
        {"dest": "x", "temp": "config.json", "backup": "kept.json", "new": True},
        {"dest": "kept.json", "temp": ".t.0123456789ab.tmp", "backup": ".t.1234.bak", "new": 1},
        {"dest": "kept.json", "temp": ".t.0123456789ab.tmp", "backup": ".t.0123456789ab.bak"},
        {"temp": ".t.0123456789ab.tmp", "ino": os.stat(folder / "config.json").st_ino},
        "not an entry",
    )
    said = recover(folder, remove_made=True)
    assert said == [f"cleared 1 hidden file(s) an interrupted write left in {folder}: {name}"]
    assert sorted(os.listdir(folder)) == ["config.json", "kept.json"]
    assert (tmp_path / "victim").read_text() == "keep"


def test_a_dead_record_is_rolled_back(tmp_path):
    """Backups go back over their files, a new file that is the record's temporary file
    (by inode) goes, temporary files go; said in one line each."""
    (tmp_path / "config.json").write_text("new")
    (tmp_path / ".config.json.aaaaaaaaaaaa.bak").write_text("old")
    (tmp_path / "shard.safetensors").write_text("new shard")
    (tmp_path / ".index.json.bbbbbbbbbbbb.tmp").write_text("new index")
    ino = os.stat(tmp_path / "shard.safetensors").st_ino
    dead_record(
        tmp_path,
        {"made": False},
        {"temp": ".config.json.eeeeeeeeeeee.tmp", "ino": os.stat(tmp_path / "config.json").st_ino},
        {
            "dest": "shard.safetensors",
            "temp": ".shard.safetensors.cccccccccccc.tmp",
            "backup": ".shard.safetensors.dddddddddddd.bak",
            "new": True,
        },
        {"temp": ".shard.safetensors.cccccccccccc.tmp", "ino": ino},
        {
            "dest": "config.json",
            "temp": ".config.json.eeeeeeeeeeee.tmp",
            "backup": ".config.json.aaaaaaaaaaaa.bak",
            "new": False,
        },
        {
            "dest": "index.json",
            "temp": ".index.json.bbbbbbbbbbbb.tmp",
            "backup": ".index.json.ffffffffffff.bak",
            "new": True,
        },
    )
    said = recover(tmp_path)
    assert said[0] == (
        f"rolled back a write interrupted before its commit point in {tmp_path}: "
        "restored config.json; removed shard.safetensors"
    )
    assert said[1].startswith(f"cleared 2 hidden file(s) an interrupted write left in {tmp_path}")
    assert os.listdir(tmp_path) == ["config.json"]
    assert (tmp_path / "config.json").read_text() == "old"


def test_hidden_files_no_record_names_are_never_touched(tmp_path):
    """Leftovers are known by a record, never by a name: files named as this tool names
    its temporary files and backups, without a record naming them, are someone else's."""
    names = [".ledger.csv.0123456789ab.bak", ".notes.aaaaaaaaaaaa.tmp", ".x.bbbbbbbbbbbb.undo"]
    for name in names:
        (tmp_path / name).write_text("the user's")
    assert recover(tmp_path) == [] and leftovers(tmp_path) == []
    assert hidden(tmp_path) == sorted(names)


def test_a_planted_record_replaces_no_file_its_run_did_not_make(tmp_path):
    """A record shipped in a folder (a downloaded checkpoint) names a file of the user's
    and a planted backup of it: the file is no temporary file of that run (its inode is
    not the one recorded, or none is), so it stays; the planted backup is left beside it
    and named."""
    (tmp_path / "ledger.csv").write_text("the user's ledger")
    (tmp_path / "other").write_text("x")
    for n, ino in enumerate([None, os.stat(tmp_path / "other").st_ino]):
        backup = f".ledger.csv.{n:012x}.bak"
        (tmp_path / backup).write_text("planted")
        entry = {"dest": "ledger.csv", "temp": f".ledger.csv.{n + 10:012x}.tmp", "backup": backup}
        lines = [{"made": True}, {**entry, "new": True}]
        if ino is not None:
            lines.append({"temp": entry["temp"], "ino": ino})
        name = dead_record(tmp_path, *lines)
        said = recover(tmp_path, remove_made=True)
        assert (tmp_path / "ledger.csv").read_text() == "the user's ledger"
        assert said == [
            f"cleared 1 hidden file(s) an interrupted write left in {tmp_path}: {name}",
            f"could not remove what an interrupted write left in {tmp_path}: {backup} "
            "(remove them by hand)",
        ]


def test_a_record_past_its_commit_point_keeps_the_change_and_drops_its_backups(tmp_path):
    """Killed between the commit point and dropping the backups: the change stands; the
    backups the run made (by inode) go, one it did not make stays."""
    (tmp_path / "config.json").write_text("new")
    (tmp_path / ".config.json.aaaaaaaaaaaa.bak").write_text("old")
    (tmp_path / ".index.json.cccccccccccc.bak").write_text("not the run's")
    ino = os.stat(tmp_path / ".config.json.aaaaaaaaaaaa.bak").st_ino
    entry = {"dest": "config.json", "temp": ".config.json.bbbbbbbbbbbb.tmp"}
    name = dead_record(
        tmp_path,
        {"run": "r", "made": False},
        {**entry, "backup": ".config.json.aaaaaaaaaaaa.bak", "new": False},
        {"backup": ".config.json.aaaaaaaaaaaa.bak", "ino": ino},
        {"dest": "index.json", "temp": ".index.json.dddddddddddd.tmp"}
        | {"backup": ".index.json.cccccccccccc.bak", "new": False},
        {"committed": "r"},
    )
    said = recover(tmp_path)
    assert said == [
        f"cleared 2 hidden file(s) an interrupted write left in {tmp_path}: "
        f".config.json.aaaaaaaaaaaa.bak, {name}"
    ]
    assert (tmp_path / "config.json").read_text() == "new"
    assert hidden(tmp_path) == [".index.json.cccccccccccc.bak"]
