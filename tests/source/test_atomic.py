"""``atomic``'s undo records and ``recover``, on real files: what a write interrupted
outright leaves is rolled back or cleared, and nothing else is touched (a write still in
progress, a record that names anything outside its folder)."""

from __future__ import annotations

import json
import os

from dspark_ckpt.source.atomic import Transaction, leftovers, recover


def test_a_write_in_progress_is_left_alone(tmp_path):
    """Its record is locked: another recovery (a second fix on the same folder) leaves
    the record and the files it names, and the write then commits."""
    (tmp_path / "a.json").write_text("old")
    with Transaction(force=True) as tx:
        tx.add_bytes(tmp_path / "a.json", b"new")
        tx.add_bytes(tmp_path / "b.json", b"new too")
        staged = leftovers(tmp_path)
        assert len(staged) == 3  # two temporary files and the record
        assert recover(tmp_path) == []
        assert leftovers(tmp_path) == staged
        tx.commit()
    assert (tmp_path / "a.json").read_text() == "new" and (tmp_path / "b.json").exists()
    assert leftovers(tmp_path) == []


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
