"""Round four's attacks on ``fix`` where the earlier rounds did not reach, through the
real CLI: symlinked shards, a target folder that is the drafter's or the destination,
``--out`` inside the source, two ``fix --out`` runs into one destination at once, two
``--in-place`` runs on one checkpoint, and a head stored under two names that SGLang's
loader may take either of."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
import synth
from conftest import FIXTURES, PAUSE_AT, cli, start_with_fault

from dspark_ckpt.source.folders import lock_folder

SMALL = FIXTURES / "targets/small"
LEGACY = ("--profile", "vllm-legacy")
SHARDS = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
INDEX = "model.safetensors.index.json"


def tree(root: Path) -> dict[str, object]:
    """Every entry under ``root``: a link as its target, a file as its bytes."""
    out: dict[str, object] = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        out[key] = (
            f"-> {os.readlink(p)}" if p.is_symlink() else p.read_bytes() if p.is_file() else 0
        )
    return out


def linked_shards(root: Path) -> Path:
    """The drafter with its shards moved to ``blobs/`` and linked from their names (as a
    Hub cache snapshot or a deduplicating copy lays them out)."""
    synth.padded_sharded(root)
    (root / "blobs").mkdir()
    for name in SHARDS:
        (root / name).rename(root / "blobs" / name)
        (root / name).symlink_to(Path("blobs") / name)
    return root


def test_fix_on_symlinked_shards_never_writes_through_a_link(tmp_path):
    """In place, the linked shards stay links to unchanged files (the new tensor goes to a
    new shard); ``--out`` copies what they point at as regular files; a link leading out
    of the folder, or a file fix would replace that is a link, is refused, nothing
    written."""
    args = ["--target", SMALL, "--emit-d2t", *LEGACY]
    src = linked_shards(tmp_path / "in-place")
    blobs = tree(src / "blobs")
    r = cli("fix", src, *args, "--in-place", "--force")
    assert r.exit_code == 0, r.stderr
    assert all(os.readlink(src / n) == f"blobs/{n}" for n in SHARDS)
    assert tree(src / "blobs") == blobs and (src / "model-dspark-ckpt-fix.safetensors").is_file()
    assert cli("inspect", src, "--target", SMALL, *LEGACY).exit_code == 0

    src = linked_shards(tmp_path / "copied")
    before = tree(src)
    r = cli("fix", src, *args, "--out", tmp_path / "out")
    assert r.exit_code == 0, r.stderr
    assert tree(src) == before
    assert not any((tmp_path / "out" / n).is_symlink() for n in os.listdir(tmp_path / "out"))
    assert cli("inspect", tmp_path / "out", "--target", SMALL, *LEGACY).exit_code == 0

    src = linked_shards(tmp_path / "index-linked")
    (src / INDEX).rename(src / "blobs" / INDEX)
    (src / INDEX).symlink_to(Path("blobs") / INDEX)
    before = tree(src)
    r = cli("fix", src, *args, "--in-place", "--force")
    assert (r.exit_code, r.stderr) == (
        2,
        f"dspark-ckpt: error: {src / INDEX}: is a symlink; refusing to write through it\n",
    )
    assert tree(src) == before

    src = linked_shards(tmp_path / "linked-out")
    outside = tmp_path / "elsewhere.safetensors"
    (src / "blobs" / SHARDS[0]).rename(outside)
    (src / SHARDS[0]).unlink()
    (src / SHARDS[0]).symlink_to(outside)
    before = tree(src)
    r = cli("fix", src, *args, "--out", tmp_path / "out2")
    assert r.exit_code == 1 and "is a symlink leading out of the checkpoint" in r.stderr
    assert tree(src) == before and not (tmp_path / "out2").exists()


def test_fix_never_writes_a_checkpoint_into_the_target_folder(tmp_path):
    """``fix --out TARGET --force`` (a target folder holding only its config.json)
    replaced the target's config.json with the drafter's, exit 0; ``--in-place`` on a
    drafter given as its own target changed the target it was checked against. Both are
    usage errors naming both roles; nothing is written."""
    src = synth.padded_sharded(tmp_path / "src")
    target = tmp_path / "target"
    target.mkdir()
    shutil.copy(SMALL / "config.json", target / "config.json")
    before = tree(tmp_path)
    r = cli("fix", src, "--target", target, "--emit-d2t", *LEGACY, "--out", target, "--force")
    assert (r.exit_code, r.stderr) == (
        2,
        f"dspark-ckpt: error: {target}: is the target's folder (--target {target}), an input "
        "of this run; refusing to write the fixed checkpoint (--out) there\n",
    )
    r = cli("fix", src, "--target", src / "config.json", "--in-place", "--force")
    assert (r.exit_code, r.stderr) == (
        2,
        f"dspark-ckpt: error: {src}: is also the target's folder (--target {src}/config.json); "
        "patching it in place would change the target it is checked against\n",
    )
    assert tree(tmp_path) == before


def test_out_inside_the_source_folder_is_refused(tmp_path):
    """A copy inside the checkpoint it copies would be loaded with it: refused, nothing
    written."""
    src = synth.padded_sharded(tmp_path / "src")
    before = tree(src)
    for out in (src, src / "fixed"):
        r = cli("fix", src, "--target", SMALL, "--emit-d2t", *LEGACY, "--out", out)
        assert r.exit_code == 2 and "is the source checkpoint or inside it" in r.stderr
        assert tree(src) == before


def test_two_fix_out_runs_into_one_destination_do_not_mix(tmp_path):
    """A second ``fix --out`` into the folder a first one is writing found no file in
    place yet, staged its own and committed over the first one's. The folder a
    transaction writes a checkpoint into is locked until it ends: the second is refused,
    naming the folder, and the first completes alone; a run into another folder of the
    same parent does not wait."""
    src = synth.padded_sharded(tmp_path / "src")
    out = tmp_path / "out"
    mark = tmp_path / "paused"
    args = ["fix", src, "--target", SMALL, "--emit-d2t", *LEGACY, "--out", out]
    first = start_with_fault(
        PAUSE_AT, *args, env={"STEP": "write", "NAME": "config.json", "MARK": str(mark)}
    )
    try:
        for _ in range(600):
            if mark.exists() or first.poll() is not None:
                break
            time.sleep(0.05)
        assert mark.exists(), first.communicate()
        staged = tree(out)
        second = cli(*args, "--format", "json")
        assert second.exit_code == 2
        assert second.stderr == (
            f"dspark-ckpt: error: {out}: another dspark-ckpt run is writing there; "
            "nothing written\n"
        )
        assert tree(out) == staged  # the second touched nothing of the first's
        beside = cli(*args[:-1], tmp_path / "other")  # another folder of the same parent
        assert beside.exit_code == 0, beside.stderr
        Path(f"{mark}.go").write_text("")
        _, err = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 0, err
    r = cli("inspect", out, "--target", SMALL, *LEGACY, "--format", "json")
    assert r.exit_code == 0 and not [n for n in os.listdir(out) if n.startswith(".")]


@pytest.mark.parametrize(
    "how", [["--emit-d2t", *LEGACY], ["--profile", "vllm"]], ids=["emit", "repair"]
)
def test_a_second_in_place_fix_is_refused_before_it_reads(tmp_path, how):
    """Two ``fix --in-place`` runs on one checkpoint: the second read the files the first
    was replacing and planned on them. The folder is held from before the first read
    until the write ends: while another run holds it (held here as a running fix
    holds it), an in-place run is refused, naming the folder, and changes nothing; once
    it is free the same command runs."""
    src = synth.padded_sharded(tmp_path / "src")
    before = tree(src)
    args = ["fix", src, "--target", SMALL, *how, "--in-place", "--force"]
    fd = lock_folder(src)
    try:
        r = cli(*args)
    finally:
        os.close(fd)
    assert r.exit_code == 2
    assert r.stderr == (
        f"dspark-ckpt: error: {src}: another dspark-ckpt run is writing there; nothing written\n"
    )
    assert tree(src) == before
    assert cli(*args).exit_code == 0  # free again: the same command repairs it
    assert tree(src) != before


def test_a_head_stored_under_two_names_is_refused_for_sglang(tmp_path):
    """SGLang's loader maps stored names onto its parameters and skips what it does not
    know: a head stored as ``lm_head.weight`` and ``model.lm_head.weight`` may load
    either. What exists today, through the CLI: DSC209 under SGLang's profile."""
    root = tmp_path / "d"
    head = synth.head(128, 8, 1)
    tensors = {**synth.backbone(8), "lm_head.weight": head, "model.lm_head.weight": head}
    synth.write_json(root / "config.json", synth.drafter_config(128, None))
    synth.shard(root, {**tensors, "embed_tokens.weight": head}, 1)
    r = cli("inspect", root, "--target", SMALL, "--profile", "sglang-dspark", "--format", "json")
    assert r.exit_code == 1
    [dup] = [f for f in r.json["findings"] if f["code"] == "DSC209"]
    assert dup["severity"] == "error" and "model.lm_head.weight" in dup["message"]
    assert json.loads((root / "config.json").read_text())["vocab_size"] == 128
