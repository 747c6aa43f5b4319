"""Malformed and hostile checkpoints, each built from scratch into an empty folder.

A case is a function ``build(d) -> Setup`` registered with ``@case``: it writes a
drafter (and, where the case needs one, a target) under ``d`` and says which file
the one-line error must name and which words must describe the problem.
Each safetensors file is real bytes on disk; nothing is mocked.
"""

from __future__ import annotations

import json
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from synth import T, drafter_config, write_json, write_safetensors

VT = 100  # every case runs against --target-vocab-size 100 unless it brings a target
EXIT_FAIL, EXIT_USAGE = 1, 2


@dataclass
class Setup:
    drafter: Path  # what the command is given
    file: Path  # the file the error line must name
    problem: str  # words the error line must contain
    target: list[str] = field(default_factory=lambda: ["--target-vocab-size", str(VT)])
    exit_code: int = EXIT_FAIL


CASES: dict[str, Callable[[Path], Setup]] = {}


def case(fn: Callable[[Path], Setup]) -> Callable[[Path], Setup]:
    CASES[fn.__name__] = fn
    return fn


# --- writers -----------------------------------------------------------------------

NORM = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}  # a valid 8-byte tensor


def raw(path: Path, content: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def framed(header: bytes, data: bytes = b"\0" * 8, n: int | None = None) -> bytes:
    """A safetensors file from raw header bytes: length prefix (``n`` overrides it), header, data."""
    return (len(header) if n is None else n).to_bytes(8, "little") + header + data


def jheader(header: dict) -> bytes:
    return json.dumps(header, separators=(",", ":")).encode()


def drafter_dir(d: Path, weights: bytes | None = None, config: dict | None = None) -> Path:
    """``d/drafter`` with a valid config and, given ``weights``, that ``model.safetensors``."""
    root = d / "drafter"
    write_json(root / "config.json", config or drafter_config(VT, VT))
    if weights is not None:
        raw(root / "model.safetensors", weights)
    return root


def header_case(d: Path, content: bytes, problem: str) -> Setup:
    root = drafter_dir(d, content)
    return Setup(root, root / "model.safetensors", problem)


def tensor_case(
    d: Path, entry: dict, problem: str, data: bytes = b"\0" * 8, name: str = "norm.weight"
) -> Setup:
    return header_case(d, framed(jheader({name: entry}), data), problem)


def valid_file(path: Path, **tensors: T) -> Path:
    return write_safetensors(path, tensors or {"norm.weight": T("F32", (2,), np.ones(2))})


def sharded(d: Path, weight_map: dict[str, str], shards: dict[str, dict[str, T]]) -> Path:
    root = drafter_dir(d)
    for name, tensors in shards.items():
        write_safetensors(root / name, tensors)
    write_json(root / "model.safetensors.index.json", {"metadata": {}, "weight_map": weight_map})
    return root


def norm() -> T:
    return T("F32", (2,), np.ones(2))


# --- the safetensors frame -----------------------------------------------------------


@case
def empty_file(d):
    return header_case(d, b"", "file is 0 bytes")


@case
def seven_bytes(d):
    return header_case(d, b"\x01" * 7, "file is 7 bytes")


@case
def header_length_past_end(d):
    return header_case(d, framed(b"{}", b"", n=1000), "runs past the end of the file")


@case
def header_length_over_limit(d):
    return header_case(d, framed(b"{}", b"", n=100_000_001), "over the 100000000-byte limit")


@case
def header_length_u64_max(d):
    return header_case(d, framed(b"{}", b"", n=2**64 - 1), "over the 100000000-byte limit")


@case
def header_not_utf8(d):
    return header_case(d, framed(b'{"\xff\xfe": 1}'), "not valid UTF-8")


@case
def header_not_json(d):
    return header_case(d, framed(b"{this is not json}"), "not valid JSON")


@case
def header_not_object(d):
    return header_case(d, framed(b'["norm.weight", 1]'), "does not start with '{'")


@case
def header_json_string(d):
    return header_case(d, framed(b'"norm.weight"  '), "does not start with '{'")


@case
def header_nul_padding(d):
    return header_case(d, framed(jheader({"norm.weight": NORM}) + b"\0" * 6), "not valid JSON")


@case
def header_garbage_padding(d):
    return header_case(d, framed(jheader({"norm.weight": NORM}) + b"#!/bin/sh"), "not valid JSON")


@case
def header_nan(d):
    h = b'{"norm.weight":{"dtype":"F32","shape":[NaN],"data_offsets":[0,8]}}'
    return header_case(d, framed(h), "NaN is not valid JSON")


@case
def header_infinity(d):
    h = b'{"norm.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,Infinity]}}'
    return header_case(d, framed(h), "Infinity is not valid JSON")


@case
def header_deeply_nested(d):
    deep = 200_000
    h = b'{"norm.weight":' + b"[" * deep + b"]" * deep + b"}"
    return header_case(d, framed(h), "nested too deeply")


@case
def header_huge_integer(d):
    h = b'{"norm.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,1' + b"0" * 5000 + b"]}}"
    return header_case(d, framed(h), "not valid JSON: an integer of 5001 digits")


@case
def duplicate_tensor_key(d):
    entry = jheader(NORM)
    h = b'{"norm.weight":' + entry + b',"norm.weight":' + entry + b"}"
    return header_case(d, framed(h), "duplicate key 'norm.weight'")


@case
def duplicate_metadata(d):
    h = (
        b'{"__metadata__":{"format":"pt"},"norm.weight":'
        + jheader(NORM)
        + b',"__metadata__":{"format":"np"}}'
    )
    return header_case(d, framed(h), "duplicate key '__metadata__'")


@case
def metadata_not_strings(d):
    h = jheader({"__metadata__": {"format": "pt", "step": 100}, "norm.weight": NORM})
    return header_case(d, framed(h), "__metadata__ must map strings to strings")


@case
def metadata_not_object(d):
    h = jheader({"__metadata__": ["format", "pt"], "norm.weight": NORM})
    return header_case(d, framed(h), "__metadata__ must map strings to strings")


@case
def tensor_entry_not_object(d):
    return header_case(d, framed(jheader({"norm.weight": [0, 8]})), "entry is not an object")


# --- tensor entries -----------------------------------------------------------------


@case
def dtype_unknown(d):
    return tensor_case(d, {**NORM, "dtype": "F128"}, "unknown dtype 'F128'")


@case
def dtype_lowercase(d):
    return tensor_case(d, {**NORM, "dtype": "f32"}, "unknown dtype 'f32'")


@case
def dtype_missing(d):
    return tensor_case(d, {"shape": [2], "data_offsets": [0, 8]}, "missing or non-string dtype")


@case
def dtype_not_string(d):
    return tensor_case(d, {**NORM, "dtype": 32}, "missing or non-string dtype")


@case
def shape_missing(d):
    return tensor_case(d, {"dtype": "F32", "data_offsets": [0, 8]}, "shape must be a list")


@case
def shape_not_list(d):
    return tensor_case(d, {**NORM, "shape": "2"}, "shape must be a list")


@case
def shape_negative(d):
    return tensor_case(d, {**NORM, "shape": [-2]}, "shape must be a list of non-negative")


@case
def shape_boolean(d):
    return tensor_case(d, {**NORM, "shape": [True, 2]}, "shape must be a list of non-negative")


@case
def offsets_missing(d):
    return tensor_case(d, {"dtype": "F32", "shape": [2]}, "data_offsets must be two")


@case
def offsets_not_list(d):
    return tensor_case(d, {**NORM, "data_offsets": {"begin": 0, "end": 8}}, "data_offsets must be")


@case
def offsets_three(d):
    return tensor_case(d, {**NORM, "data_offsets": [0, 4, 8]}, "data_offsets must be two")


@case
def offsets_negative(d):
    return tensor_case(d, {**NORM, "data_offsets": [-8, 0]}, "data_offsets must be two non-neg")


@case
def offsets_float(d):
    return tensor_case(d, {**NORM, "data_offsets": [0.0, 8.0]}, "data_offsets must be two")


@case
def offsets_string(d):
    return tensor_case(d, {**NORM, "data_offsets": ["0", "8"]}, "data_offsets must be two")


@case
def offsets_end_before_begin(d):
    return tensor_case(d, {**NORM, "shape": [0], "data_offsets": [8, 0]}, "is before begin")


@case
def offsets_gap(d):
    h = {"a": NORM, "b": {**NORM, "data_offsets": [16, 24]}}
    return header_case(d, framed(jheader(h), b"\0" * 24), "leaves a gap before it")


@case
def offsets_overlap(d):
    h = {"a": NORM, "b": {**NORM, "data_offsets": [4, 12]}}
    return header_case(d, framed(jheader(h), b"\0" * 12), "overlaps the previous tensor")


@case
def byte_size_mismatch(d):
    return tensor_case(d, {**NORM, "shape": [3]}, "holds 8 bytes but shape [3] of F32 needs 12")


@case
def shape_size_overflows(d):
    return tensor_case(d, {**NORM, "shape": [2**62, 2**62, 2**62]}, "overflows 64 bits")


# safetensors reads each dimension and offset as a u64 and multiplies the shape out with
# overflow checks, left to right: a 0 after the overflow is no excuse, and no dimension
# may take the reader long
def empty_tensor_case(d: Path, shape_json: bytes, problem: str) -> Setup:
    h = b'{"z":{"dtype":"F32","shape":' + shape_json + b',"data_offsets":[0,0]},'
    h += b'"norm.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    return header_case(d, framed(h), problem)


@case
def dimension_over_u64_beside_zero(d):
    return empty_tensor_case(d, b"[18446744073709551616,0]", "does not fit in 64 bits")


@case
def dimensions_many_and_huge_then_zero(d):
    shape = b"[" + b",".join([b"9" * 100] * 40_000) + b",0]"  # 4 MB: under the limits
    return empty_tensor_case(d, shape, "does not fit in 64 bits")


@case
def shape_overflows_before_its_zero(d):
    return empty_tensor_case(d, b"[9223372036854775808,2,0]", "overflows 64 bits")


@case
def shape_minus_zero(d):  # serde_json reads -0 as the float -0.0: not a dimension
    return empty_tensor_case(d, b"[-0]", "shape must be a list of non-negative integers")


@case
def offsets_minus_zero(d):
    h = b'{"norm.weight":{"dtype":"F32","shape":[2],"data_offsets":[-0,8]}}'
    return header_case(d, framed(h), "data_offsets must be two non-negative integers")


@case
def name_lone_surrogate(d):
    h = b'{"norm\\ud800":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    return header_case(d, framed(h), "lone surrogate")


@case
def extra_field_number_out_of_range(d):
    return tensor_case(d, {**NORM, "x": 10**400}, "out of range")


@case
def extra_field_nested_deeper_than_safetensors_parses(d):
    deep = 126  # serde_json's limit is 127 levels in all: header, entry, then 125 here
    h = b'{"norm.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":'
    h += b"[" * deep + b"]" * deep + b"}}"
    return header_case(d, framed(h), "nested over 127 deep")


@case
def sub_byte_size(d):
    return tensor_case(d, {**NORM, "dtype": "F4", "shape": [3]}, "not a whole byte count")


@case
def trailing_bytes_polyglot(d):
    # a valid file with a ZIP end-of-central-directory record appended
    tail = b"PK\x05\x06" + b"\0" * 18
    return header_case(d, framed(jheader({"norm.weight": NORM})) + tail, "22 trailing bytes")


@case
def truncated_data(d):
    return header_case(d, framed(jheader({"norm.weight": NORM}), b"\0" * 5), "truncated")


# --- special files and links where a weight file should be ---------------------------


@case
def weights_fifo(d):
    root = drafter_dir(d)
    os.mkfifo(root / "model.safetensors")
    return Setup(root, root / "model.safetensors", "is a FIFO")


@case
def weights_directory(d):
    root = drafter_dir(d)
    (root / "model.safetensors").mkdir()
    valid_file(root / "model.safetensors" / "inner.safetensors")
    return Setup(root, root / "model.safetensors", "is a directory")


@case
def weights_device_file(d):
    root = drafter_dir(d)
    (root / "dev.safetensors").symlink_to("/dev/zero")  # named directly, so it is opened
    return Setup(root / "dev.safetensors", root / "dev.safetensors", "is a device file")


@case
def weights_symlink_out(d):
    outside = valid_file(d / "elsewhere" / "model.safetensors")
    root = drafter_dir(d)
    (root / "model.safetensors").symlink_to(outside)
    return Setup(root, root / "model.safetensors", "symlink leading out of the checkpoint")


@case
def weights_relative_symlink_out(d):
    valid_file(d / "secret.safetensors")
    root = drafter_dir(d)
    (root / "model.safetensors").symlink_to("../secret.safetensors")
    return Setup(root, root / "model.safetensors", "symlink leading out of the checkpoint")


@case
def config_symlink_out(d):
    write_json(d / "elsewhere" / "config.json", drafter_config(VT, VT))
    root = d / "drafter"
    valid_file(root / "model.safetensors")
    (root / "config.json").symlink_to(d / "elsewhere" / "config.json")
    return Setup(root, root / "config.json", "symlink leading out of the checkpoint")


@case
def config_fifo(d):
    root = d / "drafter"
    valid_file(root / "model.safetensors")
    os.mkfifo(root / "config.json")
    return Setup(root, root / "config.json", "is a FIFO")


# --- sharded checkpoints --------------------------------------------------------------


def bad_shard_name(d: Path, name: str, problem: str = "is not a plain file name") -> Setup:
    root = sharded(d, {"norm.weight": name}, {})
    return Setup(root, root / "model.safetensors.index.json", problem)


@case
def shard_parent_path(d):
    return bad_shard_name(d, "../x.safetensors")


@case
def shard_absolute_path(d):
    return bad_shard_name(d, str(d / "x.safetensors"))


@case
def shard_windows_drive(d):
    return bad_shard_name(d, "C:\\x.safetensors")


@case
def shard_windows_drive_relative(d):
    return bad_shard_name(d, "C:x.safetensors")


@case
def shard_unc_path(d):
    return bad_shard_name(d, "\\\\server\\share\\x.safetensors")


@case
def shard_windows_parent(d):
    return bad_shard_name(d, "..\\x.safetensors")


@case
def shard_bin(d):
    return bad_shard_name(d, "pytorch_model-00001-of-00002.bin", "is not a .safetensors file")


@case
def shard_not_string(d):
    return bad_shard_name(d, 7, "non-string shard 7")  # type: ignore[arg-type]


@case
def shard_empty_name(d):
    return bad_shard_name(d, "", "a shard with an empty file name")


@case
def shards_missing(d):
    root = sharded(
        d,
        {"a": "a.safetensors", "b": "b.safetensors", "c": "c.safetensors"},
        {"a.safetensors": {"a": norm()}},
    )
    return Setup(
        root,
        root / "model.safetensors.index.json",
        "missing shard(s): b.safetensors, c.safetensors",
    )


@case
def shards_missing_by_the_250k(d):
    """An index naming 250,000 shards, none there: the message names five."""
    n = 250_000
    root = drafter_dir(d)
    write_json(
        root / "model.safetensors.index.json",
        {"weight_map": {f"t{i}": f"model-{i:06d}.safetensors" for i in range(n)}},
    )
    return Setup(
        root,
        root / "model.safetensors.index.json",
        f"{n} missing shard(s): model-000000.safetensors, model-000001.safetensors, "
        f"model-000002.safetensors, model-000003.safetensors, model-000004.safetensors "
        f"and {n - 5} more",
    )


@case
def shard_tensor_not_in_index(d):
    root = sharded(
        d, {"a": "a.safetensors"}, {"a.safetensors": {"a": norm(), "extra.weight": norm()}}
    )
    return Setup(
        root,
        root / "model.safetensors.index.json",
        "1 tensor(s) in shards but not in weight_map: extra.weight",
    )


@case
def index_tensor_not_in_shard(d):
    root = sharded(
        d, {"a": "a.safetensors", "ghost": "a.safetensors"}, {"a.safetensors": {"a": norm()}}
    )
    return Setup(
        root,
        root / "model.safetensors.index.json",
        "1 tensor(s) in weight_map but in no shard: ghost",
    )


@case
def index_and_shard_disagree_on_as_many_names(d):
    """One name in the index only, another in a shard only: the counts agree, the names not."""
    root = sharded(
        d,
        {"a": "a.safetensors", "ghost": "a.safetensors"},
        {"a.safetensors": {"a": norm(), "extra.weight": norm()}},
    )
    return Setup(
        root,
        root / "model.safetensors.index.json",
        "1 tensor(s) in weight_map but in no shard: ghost",
    )


@case
def tensor_in_two_shards(d):
    root = sharded(
        d,
        {"a": "a.safetensors", "b": "b.safetensors"},
        {"a.safetensors": {"a": norm()}, "b.safetensors": {"a": norm(), "b": norm()}},
    )
    return Setup(root, root / "b.safetensors", "tensor 'a' is also stored in a.safetensors")


@case
def index_not_json(d):
    root = drafter_dir(d)
    raw(root / "model.safetensors.index.json", b'{"weight_map": {"a": "a.safetensors"')
    return Setup(root, root / "model.safetensors.index.json", "index is not valid JSON")


@case
def index_without_weight_map(d):
    root = drafter_dir(d)
    write_json(root / "model.safetensors.index.json", {"metadata": {}})
    return Setup(root, root / "model.safetensors.index.json", "has no weight_map object")


@case
def shard_symlink_out(d):
    outside = valid_file(d / "elsewhere" / "a.safetensors", a=norm())
    root = sharded(d, {"a": "a.safetensors"}, {})
    (root / "a.safetensors").symlink_to(outside)
    return Setup(root, root / "a.safetensors", "symlink leading out of the checkpoint")


@case
def shard_fifo(d):
    root = sharded(d, {"a": "a.safetensors"}, {})
    os.mkfifo(root / "a.safetensors")
    return Setup(root, root / "a.safetensors", "is a FIFO")


# --- pickles: refused, never loaded ----------------------------------------------------


class Canary:
    """Unpickling this creates the file at ``path``: proof that something was unpickled."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def canary_pickle(d: Path) -> bytes:
    return pickle.dumps({"lm_head.weight": Canary(d / "CANARY")})


@case
def pickle_bin_only(d):
    root = d / "drafter"
    write_json(root / "config.json", drafter_config(VT, VT))
    raw(root / "pytorch_model.bin", canary_pickle(d))
    return Setup(root, root, "holds only pickle weights (pytorch_model.bin), never unpickled")


@case
def pickle_pt_named(d):
    root = d / "drafter"
    write_json(root / "config.json", drafter_config(VT, VT))
    pt = raw(root / "drafter.pt", canary_pickle(d))
    return Setup(pt, pt, "is a pickle file, never unpickled")


@case
def pickle_named_safetensors(d):
    return header_case(d, canary_pickle(d), "over the 100000000-byte limit")


# --- config.json ---------------------------------------------------------------------


def config_case(d: Path, content: bytes, problem: str) -> Setup:
    root = d / "drafter"
    valid_file(root / "model.safetensors")
    raw(root / "config.json", content)
    return Setup(root, root / "config.json", problem)


@case
def config_missing(d):
    root = d / "drafter"
    valid_file(root / "model.safetensors")
    return Setup(root, root / "config.json", "file not found")


@case
def config_broken(d):
    return config_case(d, b'{"vocab_size": 100,', "config is not valid JSON")


@case
def config_not_object(d):
    return config_case(d, b"[100, 100]", "config is not a JSON object")


@case
def config_nan(d):
    return config_case(d, b'{"vocab_size": NaN}', "NaN is not valid JSON")


@case
def config_bool_vocab(d):
    return config_case(d, jheader({"vocab_size": True}), "vocab_size must be an integer")


@case
def config_string_vocab(d):
    return config_case(d, jheader({"vocab_size": "100"}), "vocab_size must be an integer")


@case
def config_float_draft_vocab(d):
    cfg = {"vocab_size": VT, "draft_vocab_size": 100.0}
    return config_case(d, jheader(cfg), "draft_vocab_size must be an integer")


@case
def config_negative_hidden(d):
    cfg = {"vocab_size": VT, "hidden_size": -8}
    return config_case(d, jheader(cfg), "hidden_size must be an integer")


@case
def config_huge_vocab(d):
    return config_case(d, jheader({"vocab_size": 2**40}), "vocab_size must be an integer")


@case
def config_huge_markov_rank(d):
    cfg = {"vocab_size": VT, "dspark_config": {"markov_rank": 10**30}}
    return config_case(d, jheader(cfg), "markov_rank must be an integer")


@case
def config_not_utf8(d):
    return config_case(d, b'{"vocab_size": 100, "name": "\xc3\x28"}', "config is not valid UTF-8")


# --- the target ---------------------------------------------------------------------


def target_config_case(d: Path, make_config, problem: str) -> Setup:
    """A valid drafter and a target folder whose config.json ``make_config(path)`` makes:
    a usage error naming it."""
    root = drafter_dir(d)
    valid_file(root / "model.safetensors")
    (d / "target").mkdir()
    make_config(d / "target" / "config.json")
    return Setup(
        root,
        d / "target" / "config.json",
        problem,
        target=["--target", str(d / "target")],
        exit_code=EXIT_USAGE,
    )


@case
def target_config_broken(d):
    return target_config_case(d, lambda p: raw(p, b"{vocab_size: 100}"), "config is not valid JSON")


@case
def target_config_symlink_out(d):
    """A target without weights whose config.json leads out of its folder."""
    outside = write_json(d / "elsewhere" / "config.json", {"vocab_size": VT})
    return target_config_case(
        d, lambda p: p.symlink_to(outside), "symlink leading out of the checkpoint"
    )


@case
def target_weights_trailing_bytes(d):
    root = drafter_dir(d)
    valid_file(root / "model.safetensors")
    write_json(d / "target" / "config.json", {"vocab_size": VT})
    weights = valid_file(d / "target" / "model.safetensors")
    with open(weights, "ab") as f:
        f.write(b"\0" * 3)
    return Setup(root, weights, "3 trailing bytes", target=["--target", str(d / "target")])


# --- d2t -------------------------------------------------------------------------------


@case
def d2t_too_large_to_read(d):
    """A sparse 256 MiB d2t: refused before its values are read into memory."""
    vt, vd = 2**26, 2**25 + 1
    root = d / "drafter"
    write_json(root / "config.json", drafter_config(vt, vd))
    weights = write_safetensors(
        root / "model.safetensors",
        {"lm_head.weight": T("BF16", (vd, 8)), "d2t": T("I64", (vd,))},  # verify gets to d2t
    )
    return Setup(
        root,
        weights,
        "tensor 'd2t' is 268435464 bytes, over the 268435456-byte limit",
        target=["--target-vocab-size", str(vt)],
    )


@case
def weights_symlink_loop(d):
    root = drafter_dir(d)
    (root / "model.safetensors").symlink_to("model.safetensors")
    return Setup(root, root / "model.safetensors", "Too many levels of symbolic links")


@case
def weights_dangling_symlink(d):
    root = drafter_dir(d)
    (root / "model.safetensors").symlink_to("gone.safetensors")
    return Setup(root, root / "model.safetensors", "file not found")
