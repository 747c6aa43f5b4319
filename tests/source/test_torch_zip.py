"""The pickle reader against ``torch.load``: files written by ``torch.save`` here, read
without running them, every tensor compared with what torch itself loads."""

from __future__ import annotations

import os
import zipfile
from collections import OrderedDict
from pathlib import Path

import pytest

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.source.atomic import open_to_read
from dspark_ckpt.source.pieces import Range, Strided
from dspark_ckpt.source.torch_zip import plan_conversion, read_torch_zip, safetensors_name

torch = pytest.importorskip("torch")
from safetensors.torch import load as st_load  # noqa: E402


def converted(folder: Path) -> dict:
    """Every tensor of the folder's conversion, as the safetensors library reads it."""
    conv = plan_conversion(folder, [p.name for p in folder.iterdir()])
    out = {}
    for pieces in conv.files.values():
        out.update(st_load(b"".join(pieces.chunks(open_to_read))))
    return out


def same(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for name, w in want.items():
        g, w = got[name], w.detach()
        assert (g.dtype, g.shape) == (w.dtype, w.shape), name
        assert torch.equal(g, w), name


def test_every_dtype_is_read_as_torch_loads_it(tmp_path):
    sd = {
        "bf16": torch.randn(5, 7).to(torch.bfloat16),
        "fp16": torch.randn(3, 2).to(torch.float16),
        "fp32": torch.randn(4),
        "fp64": torch.randn(2, 2, dtype=torch.float64),
        "i64": torch.arange(-3, 5, dtype=torch.int64),
        "i32": torch.arange(6, dtype=torch.int32).reshape(2, 3),
        "i16": torch.arange(4, dtype=torch.int16),
        "i8": torch.arange(-2, 2, dtype=torch.int8),
        "u8": torch.arange(4, dtype=torch.uint8),
        "bool": torch.tensor([True, False, True]),
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 4),
        "param": torch.nn.Parameter(torch.ones(3)),
    }
    torch.save(sd, tmp_path / "pytorch_model.bin")
    same(converted(tmp_path), torch.load(tmp_path / "pytorch_model.bin"))


def test_a_module_state_dict_with_its_metadata(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.LayerNorm(2)).half()
    torch.save(model.state_dict(), tmp_path / "drafter.pt", pickle_protocol=4)
    same(converted(tmp_path), torch.load(tmp_path / "drafter.pt", weights_only=False))


def test_shared_storages_views_and_strides(tmp_path):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    sd = OrderedDict(
        base=base,
        tied=base,  # the same tensor twice
        row=base[2],  # a view at an offset
        transposed=base.t(),  # non-contiguous: written contiguous
        columns=base[:, 1:4],
        every_other=base[::2, ::3],
    )
    path = tmp_path / "pytorch_model.bin"
    torch.save(sd, path)
    same(converted(tmp_path), torch.load(path))
    tensors = read_torch_zip(path).tensors
    _, _, row = tensors["row"]
    _, _, base_part = tensors["base"]
    assert isinstance(row, Range) and row.start == base_part.start + 2 * 6 * 4  # no copy
    assert isinstance(tensors["transposed"][2], Strided)  # gathered when written


@pytest.mark.parametrize("wrapper", ["state_dict", "model", "module"])
def test_a_nested_state_dict_and_the_module_prefix(tmp_path, wrapper):
    sd = {"module.lm_head.weight": torch.randn(4, 2), "module.fc.weight": torch.randn(2, 4)}
    torch.save({wrapper: sd, "epoch": 3, "optimizer": {"lr": 0.1}}, tmp_path / "x.pt")
    want = {k.removeprefix("module."): v for k, v in sd.items()}
    same(converted(tmp_path), want)


def test_a_sharded_index_becomes_a_safetensors_index(tmp_path):
    a, b = {"a.weight": torch.randn(3, 3)}, {"b.weight": torch.arange(4)}
    torch.save(a, tmp_path / "pytorch_model-00001-of-00002.bin")
    torch.save(b, tmp_path / "pytorch_model-00002-of-00002.bin")
    wmap = {
        "a.weight": "pytorch_model-00001-of-00002.bin",
        "b.weight": "pytorch_model-00002-of-00002.bin",
    }
    (tmp_path / "pytorch_model.bin.index.json").write_text(
        f'{{"weight_map": {__import__("json").dumps(wmap)}}}'
    )
    conv = plan_conversion(tmp_path, [p.name for p in tmp_path.iterdir()])
    assert sorted(conv.files) == [
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
    ]
    index = __import__("json").loads(conv.index)
    assert index["weight_map"] == {k: safetensors_name(v) for k, v in wmap.items()}
    assert index["metadata"]["total_size"] == 9 * 4 + 4 * 8
    same(converted(tmp_path), {**a, **b})


def test_an_index_that_disagrees_with_its_shards_is_refused(tmp_path):
    torch.save({"a": torch.ones(1)}, tmp_path / "pytorch_model-1.bin")
    (tmp_path / "pytorch_model.bin.index.json").write_text(
        '{"weight_map": {"b": "pytorch_model-1.bin"}}'
    )
    with pytest.raises(CheckpointError, match="weight_map disagrees with the shards on a, b"):
        plan_conversion(tmp_path, [p.name for p in tmp_path.iterdir()])


def test_the_legacy_format_is_refused_in_one_line(tmp_path):
    path = tmp_path / "old.bin"
    torch.save({"a": torch.ones(2)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(CheckpointError, match="legacy format of torch < 1.6") as e:
        read_torch_zip(path)
    assert "\n" not in str(e.value)


def test_a_storage_larger_than_its_entry_is_refused(tmp_path):
    path = tmp_path / "x.bin"
    torch.save({"a": torch.ones(4)}, path)
    with zipfile.ZipFile(path) as z:
        entries = {i.filename: z.read(i) for i in z.infolist()}
    pkl = next(n for n in entries if n.endswith("data.pkl"))
    entries[pkl] = entries[pkl].replace(b"K\x04t", b"J\x00\x00\x00\x40t")  # numel 2**30
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    with pytest.raises(CheckpointError, match=r"declares 4294967296 bytes; its entry holds 16"):
        read_torch_zip(path)


def _rewritten(path: Path, **changes: bytes) -> None:
    """The zip at ``path`` with entries (by their last name part) replaced."""
    with zipfile.ZipFile(path) as z:
        entries = {i.filename: z.read(i) for i in z.infolist()}
    for name in entries:
        last = name.rsplit("/", 1)[-1]
        if last in changes:
            entries[name] = changes[last]
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)


def test_big_endian_storages_are_refused(tmp_path):
    path = tmp_path / "x.bin"
    torch.save({"a": torch.ones(4)}, path)
    _rewritten(path, byteorder=b"big")
    with pytest.raises(CheckpointError, match="stores big-endian tensors; refused"):
        read_torch_zip(path)


def test_a_tensor_reaching_past_its_storage_is_refused(tmp_path):
    path = tmp_path / "x.bin"
    torch.save({"a": torch.ones(4)}, path)
    with zipfile.ZipFile(path) as z:
        pkl = next(z.read(n) for n in z.namelist() if n.endswith("data.pkl"))
    _rewritten(path, **{"data.pkl": pkl.replace(b"K\x00K\x04\x85", b"K\x02K\x04\x85")})
    with pytest.raises(CheckpointError, match="reaches past the end of its storage 0"):
        read_torch_zip(path)


def test_several_pickles_without_an_index_are_refused(tmp_path):
    for name in ("a.pt", "b.pt"):
        torch.save({"w": torch.ones(1)}, tmp_path / name)
    with pytest.raises(CheckpointError, match=r"holds several pickle files \(a.pt, b.pt\)"):
        plan_conversion(tmp_path, ["a.pt", "b.pt"])


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pytorch_model.bin")
    with pytest.raises(CheckpointError, match="is a FIFO, not a regular file"):
        plan_conversion(tmp_path, ["pytorch_model.bin"])


def test_an_oversized_pickle_is_refused_before_it_is_read(tmp_path, monkeypatch):
    import dspark_ckpt.source.torch_zip as tz

    path = tmp_path / "x.bin"
    torch.save({"a": torch.ones(4)}, path)
    monkeypatch.setattr(tz, "MAX_PICKLE_BYTES", 64)  # the bound, not 100 MB of test data
    with pytest.raises(CheckpointError, match="data.pkl is over the 64 byte limit"):
        read_torch_zip(path)


@pytest.mark.parametrize(
    "body, words",
    [
        (b"N" * 100_001, "its stack or memo grows past the bounds"),  # 100k objects at once
        (b"(" * 65, "nested deeper than 64 levels"),
        (b"\x93", "malformed pickle"),  # STACK_GLOBAL on an empty stack
    ],
)
def test_a_pickle_past_the_bounds_is_refused_before_anything_is_built(tmp_path, body, words):
    path = tmp_path / "x.bin"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02" + body + b".")
    with pytest.raises(CheckpointError, match=words):
        read_torch_zip(path)
