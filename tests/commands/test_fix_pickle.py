"""``fix`` on pickle checkpoints, through the CLI: converted to safetensors without running
the pickle, then repaired as any drafter; hostile pickles refused in one line, nothing run,
nothing written."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, cli
from hostile.cases import Canary
from safetensors.numpy import load_file
from synth import VT

torch = pytest.importorskip("torch")
from safetensors.torch import load_file as torch_load_file  # noqa: E402

PADDED, EQUAL, SMALL = FIXTURES / "padded", FIXTURES / "equal", FIXTURES / "targets/small"


def tensors(folder: Path) -> dict[str, np.ndarray]:
    out = {}
    for f in sorted(folder.glob("*.safetensors")):
        out.update(load_file(f))
    return out


def pickled(fixture: Path, dest: Path, name: str = "pytorch_model.bin", wrap=None) -> Path:
    """The fixture's drafter with its weights saved by ``torch.save`` instead."""
    dest.mkdir()
    sd = torch_load_file(fixture / "model.safetensors")
    torch.save(sd if wrap is None else {wrap: sd}, dest / name)
    shutil.copy(fixture / "config.json", dest / "config.json")
    return dest


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_out_converts_then_repairs_as_for_safetensors(cwd):
    drafter = pickled(PADDED, cwd / "drafter")
    r = cli("fix", drafter, "--target", SMALL, "--out", "fixed", "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json["drafter"] == str(drafter)  # the folder named, not the stage
    notes = " ".join(r.json["notes"])
    assert "converted pytorch_model.bin (18 tensors) to model.safetensors" in notes
    assert "nothing in the pickle was run" in notes
    ref = cli("fix", PADDED, "--target", SMALL, "--out", "reference")
    assert ref.exit_code == 0, ref.stderr
    got, want = tensors(cwd / "fixed"), tensors(cwd / "reference")
    assert set(got) == set(want)
    for name in want:  # the padding trimmed, as for the safetensors drafter
        assert got[name].dtype == want[name].dtype and np.array_equal(got[name], want[name])
    cfg = json.loads((cwd / "fixed/config.json").read_text())
    assert cfg["draft_vocab_size"] == VT
    assert sorted(os.listdir(cwd)) == ["drafter", "fixed", "reference"]  # no stage left
    assert sorted(os.listdir(cwd / "fixed")) == ["config.json", "model.safetensors"]
    after = cli("inspect", cwd / "fixed", "--target", SMALL)
    assert after.exit_code == 0, after.stdout


def test_nothing_to_repair_still_writes_the_conversion(cwd):
    drafter = pickled(EQUAL, cwd / "drafter", name="drafter.pt", wrap="state_dict")
    (drafter / "tokenizer.json").write_text("{}")
    r = cli("fix", drafter, "--target", SMALL, "--out", "out")
    assert r.exit_code == 0, r.stderr
    assert sorted(os.listdir(cwd / "out")) == ["config.json", "model.safetensors", "tokenizer.json"]
    got, want = tensors(cwd / "out"), tensors(EQUAL)
    assert {k: v.tobytes() for k, v in got.items()} == {k: v.tobytes() for k, v in want.items()}
    assert f"drafter   {drafter}" in r.stdout  # the folder named, not the stage


def test_in_place_force_adds_the_safetensors_and_keeps_the_pickle(cwd):
    drafter = pickled(PADDED, cwd / "drafter")
    refused = cli("fix", drafter, "--target", SMALL, "--in-place")
    assert refused.exit_code == 2 and "pass --force" in refused.stderr
    assert sorted(os.listdir(drafter)) == ["config.json", "pytorch_model.bin"]
    r = cli("fix", drafter, "--target", SMALL, "--in-place", "--force")
    assert r.exit_code == 0, r.stderr
    assert sorted(os.listdir(drafter)) == ["config.json", "model.safetensors", "pytorch_model.bin"]
    assert "pytorch_model.bin kept beside the safetensors files" in r.stdout
    assert tensors(drafter)["lm_head.weight"].shape[0] == VT
    assert sorted(os.listdir(cwd)) == ["drafter"]
    assert cli("inspect", drafter, "--target", SMALL).exit_code == 0


def test_a_sharded_pickle_checkpoint_is_converted_with_its_index(cwd):
    src = torch_load_file(EQUAL / "model.safetensors")
    names = sorted(src)
    drafter = cwd / "drafter"
    drafter.mkdir()
    shutil.copy(EQUAL / "config.json", drafter)
    wmap = {}
    for i, part in enumerate((names[::2], names[1::2]), 1):
        shard = f"pytorch_model-0000{i}-of-00002.bin"
        torch.save({n: src[n] for n in part}, drafter / shard)
        wmap.update(dict.fromkeys(part, shard))
    (drafter / "pytorch_model.bin.index.json").write_text(json.dumps({"weight_map": wmap}))
    r = cli("fix", drafter, "--target", SMALL, "--out", "out")
    assert r.exit_code == 0, r.stderr
    assert sorted(os.listdir(cwd / "out")) == [
        "config.json",
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
        "model.safetensors.index.json",
    ]
    index = json.loads((cwd / "out/model.safetensors.index.json").read_text())
    assert set(index["weight_map"]) == set(names)
    assert {k: v.tobytes() for k, v in tensors(cwd / "out").items()} == {
        k: v.numpy().tobytes() for k, v in src.items()
    }


def test_inspect_says_how_to_convert_and_runs_nothing(cwd):
    drafter = cwd / "drafter"
    drafter.mkdir()
    shutil.copy(EQUAL / "config.json", drafter)
    torch_zip(drafter / "pytorch_model.bin", pickle.dumps({"w": Canary(cwd / "CANARY")}))
    r = cli("inspect", drafter, "--target", SMALL, "--format", "json")
    assert r.exit_code == 1
    [finding] = r.json["findings"]
    assert finding["code"] == "DSC001" and "never unpickled" in finding["message"]
    command = f"dspark-ckpt fix {drafter} --target TARGET --out {drafter}-safetensors"
    assert command in finding["hint"]
    assert not (cwd / "CANARY").exists()
    # the command it gives converts the drafter, still running nothing
    (drafter / "pytorch_model.bin").unlink()
    torch.save(torch_load_file(EQUAL / "model.safetensors"), drafter / "pytorch_model.bin")
    argv = command.split()[1:]
    argv[argv.index("TARGET")] = str(SMALL)
    assert cli(*argv).exit_code == 0
    assert cli("inspect", f"{drafter}-safetensors", "--target", SMALL).exit_code == 0


# --- hostile pickles: nothing runs, nothing is written, one line ---------------------


def torch_zip(path: Path, pkl: bytes, storages: dict | None = None, compress=False) -> Path:
    """A zip laid out as ``torch.save`` lays it out, holding ``pkl`` as its data.pkl."""
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/byteorder", "little")
        for key, data in (storages or {}).items():
            z.writestr(f"archive/data/{key}", data, compress_type=method)
    return path


def tensor_pickle(numel: int) -> bytes:
    """A state dict of one F32 tensor [numel] on storage 0, as torch pickles it."""
    return (
        b"\x80\x02}X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n("
        b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu"
        + b"J"
        + numel.to_bytes(4, "little")
        + b"tQK\x00J"
        + numel.to_bytes(4, "little")
        + b"\x85K\x01\x85\x89tRs."
    )


def _hostile(kind: str, d: Path) -> tuple[str, str]:
    """The pickle file written in ``d`` for ``kind``, and words its refusal must hold."""
    bin_ = d / "pytorch_model.bin"
    canary = d.parent / "CANARY"
    if kind == "os.system":
        torch_zip(bin_, f"cos\nsystem\n(S'touch {canary}'\ntR.".encode())
        return str(bin_), "asks for the global os.system"
    if kind == "builtins.eval":
        torch_zip(bin_, f"cbuiltins\neval\n(S'open({str(canary)!r}, \"w\")'\ntR.".encode())
        return str(bin_), "asks for the global builtins.eval"
    if kind == "reduce":
        torch_zip(bin_, pickle.dumps({"w": Canary(canary)}, protocol=2))
        return str(bin_), "asks for the global io.open"
    if kind == "deep":
        torch_zip(bin_, b"\x80\x02" + b"(" * 10_000 + b".")
        return str(bin_), "malformed pickle: nested deeper than 64 levels"
    if kind == "huge":
        torch_zip(bin_, tensor_pickle(2**31 - 1), {"0": b"\0" * 16})
        return str(bin_), "declares 8589934588 bytes; its entry holds 16"
    if kind == "zipbomb":
        torch_zip(bin_, tensor_pickle(2**20), {"0": b"\0" * 2**22}, compress=True)
        return str(bin_), "entry archive/data/0 is compressed"
    if kind == "legacy":
        torch.save({"w": torch.ones(2)}, bin_, _use_new_zipfile_serialization=False)
        return str(bin_), "legacy format of torch < 1.6"
    if kind == "symlink":
        outside = torch_zip(d.parent / "elsewhere.bin", tensor_pickle(4), {"0": b"\0" * 16})
        bin_.symlink_to(outside)
        return str(bin_), "symlink leading out of the checkpoint"
    raise AssertionError(kind)


HOSTILE = ["os.system", "builtins.eval", "reduce", "deep", "huge", "zipbomb", "legacy", "symlink"]


@pytest.mark.parametrize("mode", ["out", "in-place"])
@pytest.mark.parametrize("kind", HOSTILE)
def test_hostile_pickles_are_refused_in_one_line(kind, mode, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = tmp_path / "drafter"
    d.mkdir()
    shutil.copy(EQUAL / "config.json", d)
    file, words = _hostile(kind, d)
    before = listing(tmp_path)
    where = ["--out", tmp_path / "out"] if mode == "out" else ["--in-place", "--force"]
    r = cli("fix", d, "--target", SMALL, *where)
    assert r.exit_code == 1, (r.stdout, r.stderr)  # the README's table: unreadable input
    [line] = r.stderr.splitlines()
    assert line.startswith(f"dspark-ckpt: error: {file}: ") and words in line, line
    assert "Traceback" not in r.stdout + r.stderr
    assert not (tmp_path / "CANARY").exists()  # nothing ran
    assert listing(tmp_path) == before  # nothing written, no stage left


def test_out_stages_beside_the_destination_not_in_the_temporary_folder(cwd, monkeypatch):
    """The conversion is staged beside the destination (one filesystem, no copy of a large
    checkpoint through a small /tmp): --out works with no usable temporary folder; a
    destination whose folder does not exist is refused, nothing written."""
    drafter = pickled(PADDED, cwd / "drafter")
    monkeypatch.setattr(tempfile, "tempdir", str(cwd / "no-such-tmp"))
    r = cli("fix", drafter, "--target", SMALL, "--out", "fixed")
    assert r.exit_code == 0, r.stderr
    assert sorted(os.listdir(cwd)) == ["drafter", "fixed"]
    r = cli("fix", drafter, "--target", SMALL, "--out", cwd / "missing/fixed")
    assert r.exit_code == 2 and "missing: no such directory" in r.stderr, r.stderr
    assert sorted(os.listdir(cwd)) == ["drafter", "fixed"]


def test_diff_converts_in_a_temporary_folder_and_writes_nothing(cwd):
    drafter = pickled(PADDED, cwd / "drafter")
    stages = set(Path(tempfile.gettempdir()).glob(".dspark-ckpt-convert-*"))
    r = cli("fix", drafter, "--target", SMALL, "--diff")
    assert r.exit_code == 1, r.stderr  # a change to make, as for the safetensors drafter
    assert "DSC401 safe: trim the 28 padded rows [100, 128)" in r.stdout
    assert "converted pytorch_model.bin (18 tensors)" in r.stdout
    assert sorted(os.listdir(drafter)) == ["config.json", "pytorch_model.bin"]
    assert os.listdir(cwd) == ["drafter"]
    assert set(Path(tempfile.gettempdir()).glob(".dspark-ckpt-convert-*")) == stages


def test_a_megabyte_long_global_is_named_in_a_bounded_line(tmp_path):
    d = tmp_path / "drafter"
    d.mkdir()
    shutil.copy(EQUAL / "config.json", d)
    torch_zip(d / "pytorch_model.bin", b"c" + b"m" * 2**20 + b"\nx\n.")
    r = cli("fix", d, "--target", SMALL, "--out", tmp_path / "out")
    assert r.exit_code == 1
    [line] = r.stderr.splitlines()
    assert len(line) < 600 and "asks for the global mmmm" in line and "[...]" in line
    assert not (tmp_path / "out").exists()
