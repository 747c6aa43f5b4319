"""The tokenizer comparison's bounds (``facts/tokenizer.py``), measured on real files
(a declared vocab of 2^31 ids: ``tests/hostile/test_hostile_tokenizer.py``, in a process
under an address-space limit, as an allocation per declared id would take 64 GiB).

Memory: a parse bounded by ``parse_cost`` before it starts (dense JSON that would take
27 times its size is refused, a real tokenizer.json is parsed). CPU: no Python loop over
the file's characters (a whitespace-padded file costs what ``json.loads`` of it costs).
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

import pytest
from conftest import ROOT

from dspark_ckpt.facts.tokenizer import (
    PARSE_FACTOR,
    PARSE_FLOOR,
    SAME,
    TokenizerError,
    compare_tokenizers,
    parse_cost,
)
from dspark_ckpt.source.local import LocalSource
from dspark_ckpt.source.safetensors import loads_json

sys.path.insert(0, str(ROOT / "benchmarks"))
import tokenizer_bench  # noqa: E402 - the benchmark's Qwen3-shaped tokenizer.json

TARGET = ROOT / "fixtures" / "target-contract" / "tokenizers" / "target"


def folder(path: Path, tokenizer_json: bytes | str) -> LocalSource:
    path.mkdir(parents=True)
    data = tokenizer_json.encode() if isinstance(tokenizer_json, str) else tokenizer_json
    (path / "tokenizer.json").write_bytes(data)
    return LocalSource(path)


def peak_of(fn):
    """(fn's result or the exception it raised, the peak of memory it allocated)."""
    tracemalloc.start()
    try:
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 - measured, then looked at by the caller
            result = e
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_real_sized_tokenizer_is_parsed_within_the_bound(tmp_path, monkeypatch):
    """A Qwen3-shaped tokenizer.json (30k ids, 2 MB): compared, and the whole comparison
    of two such files peaks under PARSE_FACTOR times one of them (~10x measured)."""
    monkeypatch.setattr(tokenizer_bench, "VOCAB", 30_000)
    monkeypatch.setattr(tokenizer_bench, "MERGES", 30_000)
    t = tokenizer_bench.write(tmp_path / "t", tokenizer_bench.tokenizer_doc(), "<|special_1|>")
    tokenizer_bench.write(tmp_path / "d", tokenizer_bench.tokenizer_doc(True), "<|special_2|>")
    n = 30_000 + tokenizer_bench.SPECIAL
    size = t.stat().st_size
    assert parse_cost(t.read_bytes(), t.read_text()) < PARSE_FACTOR * size
    result, peak = peak_of(
        lambda: compare_tokenizers(LocalSource(tmp_path / "d"), LocalSource(tmp_path / "t"), n)
    )
    assert result.differing_ids == 1 and result.first_differences[0][0] == 4242
    assert peak < PARSE_FACTOR * size, peak / size


def test_dense_json_is_refused_before_it_is_built(tmp_path):
    """Sorted keys put ``decoder`` before ``model``: 4 MB of ``[],`` there would take ~27x
    its size to parse (108 MB); it is refused from its counts, having cost ~3x."""
    dense = b'{"decoder": [' + b"[]," * 1_400_000 + b'[]], "model": {"vocab": {"a": 0}}}'
    d = folder(tmp_path / "d", dense)
    t = folder(tmp_path / "t", (TARGET / "tokenizer.json").read_bytes())
    result, peak = peak_of(lambda: compare_tokenizers(d, t, 100))
    assert peak < 4 * len(dense), peak / len(dense)
    assert isinstance(result, TokenizerError), result
    assert "would take about" in result.message and f"more than {PARSE_FACTOR} times" in str(result)


# JSON texts that cost the most memory per byte parsed (containers, one-character
# strings, members), and tokenizer-shaped ones; each about 100-400 kB
SHAPES = {
    "empty lists": b"[" + b"[]," * 100_000 + b"[]]",
    "empty objects": b"[" + b"{}," * 100_000 + b"{}]",
    "nested lists": b"[" + b"[[[[[[]]]]]]," * 30_000 + b"[]]",
    "lists of one list": b"[" + b"[[]]," * 60_000 + b"[]]",
    "objects of one member": b"[" + b'{"":0},' * 50_000 + b"{}]",
    "one-member objects of a list": b"[" + b'{"a":[]},' * 40_000 + b"{}]",
    "CJK one-character strings": b"[" + '"一",'.encode() * 60_000 + b'""]',
    "Latin one-character strings": b"[" + '"Ā",'.encode() * 60_000 + b'""]',
    "escaped astral characters": b"[" + b'"\\ud83d\\ude00a",' * 20_000 + b'""]',
    "an astral character widening ASCII": b"["
    + '"😀aaaaaaaaaaaaaaaaaaaaaa",'.encode() * 10_000
    + b'""]',
    "escapes widening keys": b"{" + b",".join(b'"\\u0100%d":1' % i for i in range(30_000)) + b"}",
    "floats": b"[" + b"1.5," * 100_000 + b"0]",
    "integers": b"[" + b"1000," * 80_000 + b"0]",
    "CJK vocab": json.dumps(
        {"model": {"vocab": {chr(0x4E00 + i): i for i in range(20_000)}}},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode(),
    "Unigram vocab": json.dumps(
        {"model": {"vocab": [[f"▁t{i}", -i / 7] for i in range(20_000)]}},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode(),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_parse_cost_bounds_what_the_strict_parse_takes(shape):
    """``parse_cost`` is an upper bound: the bound docs/safety.md states rests on it."""
    data = SHAPES[shape]
    text = data.decode()
    _, peak = peak_of(lambda: loads_json(data.decode(), Path("x"), "x"))
    assert parse_cost(data, text) >= peak + len(data), (parse_cost(data, text), peak)


def test_a_whitespace_padded_tokenizer_json_runs_no_python_loop_over_it(tmp_path):
    """8 MB of whitespace between the members: the Python lines run are the same few as
    for the file without it (they were one per whitespace character: 69 s for 512 MB)."""
    doc = json.loads((TARGET / "tokenizer.json").read_text())
    pad = " \n\t\r" * 500_000
    padded = (
        "{"
        + pad
        + f",{pad}".join(f"{json.dumps(k)}{pad}:{pad}{json.dumps(v)}" for k, v in doc.items())
        + pad
        + "}"
    )
    d = folder(tmp_path / "d", padded)
    t = folder(tmp_path / "t", (TARGET / "tokenizer.json").read_bytes())
    lines = 0

    def tracer(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return tracer

    sys.settrace(tracer)
    try:
        result = compare_tokenizers(d, t, 100)
    finally:
        sys.settrace(None)
    assert result.result == SAME and result.reason == "the same 100 ids"
    assert lines < 20_000, lines


def test_the_parse_floor_lets_any_small_file_through(tmp_path):
    """Under PARSE_FLOOR a file is parsed whatever its density (a 100 kB one at most
    ~40x: 4 MB), so a small unusual tokenizer is never refused for its shape."""
    small = b'{"decoder": [' + b"[]," * 30_000 + b'[]], "model": {"vocab": {"a": 0}}}'
    assert parse_cost(small, small.decode()) < PARSE_FLOOR
    d = folder(tmp_path / "d", small)
    t = folder(tmp_path / "t", b'{"model": {"vocab": {"a": 0}}}')
    assert compare_tokenizers(d, t, 1).result == SAME


VOCABS = {
    "in id order": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4},
    "another order": {"c": 2, "a": 0, "e": 4, "b": 1, "d": 3},
    "with a gap": {"a": 0, "b": 1, "c": 2, "e": 4},
    "a repeated id": {"a": 0, "b": 1, "c": 2, "x": 2, "d": 3, "e": 4},
    "past n": {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4, "f": 9},
}


@pytest.mark.parametrize("other", VOCABS)
@pytest.mark.parametrize("one", VOCABS)
def test_ids_are_compared_alike_however_a_vocab_is_laid_out(one, other, tmp_path):
    """Dense (in order, or each id once in another order) and sparse (gaps, repeats)
    vocabs are compared id by id, an added token past the vocab too: a layout never
    decides the verdict."""

    def tokenizer(vocab: dict) -> str:
        added = [{"id": 7, "content": "<|x|>", "special": True}]
        return json.dumps({"model": {"vocab": vocab}, "added_tokens": added})

    def by_id(vocab: dict) -> dict:  # a repeated id: the token listed last
        ids = {i: t for t, i in vocab.items() if i < 8}
        return {**ids, 7: "<|x|>"}

    d = folder(tmp_path / "d", tokenizer(VOCABS[one]))
    t = folder(tmp_path / "t", tokenizer(VOCABS[other]))
    result = compare_tokenizers(d, t, 8)
    a, b = by_id(VOCABS[one]), by_id(VOCABS[other])
    differing = sorted(i for i in a.keys() | b.keys() if a.get(i) != b.get(i))
    assert result.differing_ids == len(differing)
    assert [i for i, _, _ in result.first_differences] == differing[:5]
    assert [(x, y) for _, x, y in result.first_differences] == [
        (a.get(i), b.get(i)) for i in differing[:5]
    ]
