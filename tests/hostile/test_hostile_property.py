"""Random mutations of valid files: only ``CheckpointError`` ever escapes the reader,
and the CLI never shows a traceback.

Example counts are modest so the suite stays fast; the atheris harness in
``tools/fuzz_header.py`` runs the same reader for as long as one likes.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from conftest import cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from synth import T, drafter_config, write_json, write_safetensors

from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import drafter_config as parse_drafter
from dspark_ckpt.source.checkpoint import load_checkpoint
from dspark_ckpt.source.safetensors import read_header

# HOSTILE_SCALE=50 python -m pytest tests/hostile/test_hostile_property.py: a longer hunt
SCALE = int(os.environ.get("HOSTILE_SCALE", "1"))
SETTINGS = settings(
    max_examples=150 * SCALE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

TENSORS = {
    "lm_head.weight": T("F32", (4, 2), np.arange(8, dtype=np.float32)),
    "d2t": T("I64", (4,), np.array([0, 1, 1, 2])),
    "t2d": T("BOOL", (7,), np.array([1, 0, 1, 0, 1, 1, 0], dtype=bool)),
}


def valid_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as d:
        return write_safetensors(Path(d) / "m.safetensors", TENSORS).read_bytes()


VALID = valid_bytes()
HEADER_LEN = int.from_bytes(VALID[:8], "little")
HEADER = json.loads(VALID[8 : 8 + HEADER_LEN])
DATA = VALID[8 + HEADER_LEN :]

# --- strategies ----------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | st.sampled_from(["F32", "I64", "BOOL", "f32", "F4", "__metadata__"]),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def byte_mutations(draw) -> bytes:
    """``VALID`` with random bytes flipped, inserted, deleted, or the file cut short."""
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "length"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] ^= draw(st.integers(1, 255))
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 8))]
        elif op == "truncate":
            del data[pos:]
        elif op == "length" and len(data) >= 8:
            data[:8] = draw(st.integers(0, 2**64 - 1)).to_bytes(8, "little")
    return bytes(data)


@st.composite
def header_mutations(draw) -> bytes:
    """A well-framed file whose JSON header has random values, keys or entries replaced."""
    header = json.loads(json.dumps(HEADER))
    names = sorted(header)
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(names))
        op = draw(st.sampled_from(["field", "entry", "drop", "add"]))
        entry = header.get(name)
        if op == "field" and isinstance(entry, dict) and entry:
            key = draw(st.sampled_from(sorted(entry) + ["extra"]))
            entry[key] = draw(json_values)
        elif op == "entry":
            header[name] = draw(json_values)
        elif op == "drop":
            header.pop(name, None)
        else:
            header[draw(st.text(max_size=6))] = draw(json_values)
    raw = json.dumps(header).encode()
    raw += draw(st.sampled_from([b"", b"  ", b"\0", b"\n"]))
    data = DATA[: draw(st.integers(0, len(DATA)))] if draw(st.booleans()) else DATA
    return len(raw).to_bytes(8, "little") + raw + data


# JSON texts where serde_json (the safetensors library's parser) and Python's json differ,
# or where safetensors' u64 arithmetic overflows: each dropped, as raw text, into a field
EDGE_LITERALS = [
    b"-0",
    b"-0.0",
    b"2.0",
    b"18446744073709551615",
    b"18446744073709551616",
    b"1" + b"0" * 400,
    b"1e400",
    b"-1e400",
    b'"\\ud800"',
    b'"x\\udc00"',
    b'"\\ud83d\\ude00"',
    b"[-0]",
    b"[2,-0]",
    b"[18446744073709551616,0]",
    b"[9223372036854775808,2,0]",
    b"[0,9223372036854775808,2]",
    b"[4611686018427387904,0]",
    b"[2305843009213693952]",
    b"[" * 125 + b"]" * 125,
    b"[" * 126 + b"]" * 126,
    b'{"a":"1","a":"2"}',
]
PLACEHOLDER = "@@edge@@"


@st.composite
def edge_mutations(draw) -> bytes:
    """A well-framed file with one field (or one shape/offset element) set to an edge text."""
    header = json.loads(json.dumps(HEADER))
    name = draw(st.sampled_from(sorted(header)))
    entry = header[name]
    key = draw(st.sampled_from(sorted(entry) + ["extra", None]))
    if key is None:
        header[name] = PLACEHOLDER
    elif isinstance(entry.get(key), list) and draw(st.booleans()):
        entry[key][draw(st.integers(0, len(entry[key]) - 1))] = PLACEHOLDER
    else:
        entry[key] = PLACEHOLDER
    raw = (
        json.dumps(header)
        .encode()
        .replace(json.dumps(PLACEHOLDER).encode(), draw(st.sampled_from(EDGE_LITERALS)))
    )
    return len(raw).to_bytes(8, "little") + raw + DATA


def files():
    return byte_mutations() | header_mutations() | edge_mutations()


def reads_or_refuses(path: Path) -> None:
    try:
        read_header(path)
    except CheckpointError as e:
        assert e.path == str(path)
        assert "\n" not in e.message


# --- properties ----------------------------------------------------------------------


@SETTINGS
@given(content=files())
def test_reader_raises_only_checkpoint_error(content):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.safetensors"
        path.write_bytes(content)
        reads_or_refuses(path)


def safetensors_opens(path: Path) -> bool:
    from safetensors import safe_open

    try:
        with safe_open(path, framework="np"):
            return True
    except Exception:  # SafetensorError, and whatever else it raises for a bad file
        return False


@settings(SETTINGS, max_examples=300 * SCALE)
@given(content=files())
def test_at_least_as_strict_as_safetensors(content):
    """Whatever the safetensors library refuses to open, the reader refuses too (a dimension
    over 64 bits beside a 0 once passed the reader)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.safetensors"
        path.write_bytes(content)
        if not safetensors_opens(path):
            with pytest.raises(CheckpointError):
                read_header(path)


@st.composite
def checkpoints(draw) -> dict:
    """A drafter directory's parts: a mutated config, weights, maybe an index."""
    cfg = drafter_config(7, 4, hidden=2)
    for _ in range(draw(st.integers(0, 2))):
        cfg[draw(st.sampled_from(["vocab_size", "draft_vocab_size", "hidden_size", "x"]))] = draw(
            json_values
        )
    index = None
    if draw(st.booleans()):
        shard = draw(st.sampled_from(["model.safetensors", "x.safetensors", "../m.safetensors"]))
        index = {
            "weight_map": dict.fromkeys(HEADER, shard)
            | draw(st.dictionaries(st.text(max_size=4), json_values, max_size=2))
        }
        if draw(st.booleans()):
            index = draw(json_values)
    return {"config": cfg, "weights": draw(files()), "index": index}


def write_checkpoint(root: Path, parts: dict) -> None:
    write_json(root / "config.json", parts["config"])
    (root / "model.safetensors").write_bytes(parts["weights"])
    if parts["index"] is not None:
        (root / "model.safetensors.index.json").write_text(json.dumps(parts["index"]))


@settings(SETTINGS, max_examples=100 * SCALE)
@given(parts=checkpoints())
def test_load_checkpoint_raises_only_our_errors(parts):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "drafter"
        root.mkdir()
        write_checkpoint(root, parts)
        with contextlib.suppress(CheckpointError, UsageError):
            parse_drafter(load_checkpoint(root))


@settings(SETTINGS, max_examples=40 * SCALE)
@given(parts=checkpoints(), fmt=st.sampled_from(["table", "json"]))
def test_cli_never_shows_a_traceback(parts, fmt):
    """In-process with ``catch_exceptions=False``: an escaping exception fails the test."""
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "drafter"
        root.mkdir()
        write_checkpoint(root, parts)
        r = cli("inspect", root, "--target-vocab-size", 5, "--format", fmt)
        assert r.exit_code in (0, 1)
        assert "Traceback" not in r.stdout + r.stderr
        if fmt == "json":
            json.loads(r.stdout)
        errors = r.stderr.splitlines()
        assert all(line.startswith("dspark-ckpt: error: ") for line in errors)
        assert len(errors) <= 1


def test_valid_file_reads():
    """The mutations start from a file the reader accepts (else they would prove nothing)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.safetensors"
        path.write_bytes(VALID)
        assert sorted(read_header(path).tensors) == sorted(TENSORS)
