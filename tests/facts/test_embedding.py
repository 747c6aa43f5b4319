"""A shipped embedding held against the target's on a few rows (facts/embedding.py), on real
safetensors files: the rows it reads, the answers it gives, and what it refuses to tell."""

from __future__ import annotations

import os

from synth import T, head, write_json, write_safetensors

from dspark_ckpt.facts.embedding import SAMPLED, same_embedding, sampled_rows
from dspark_ckpt.source.checkpoint import open_checkpoint

H = 8


def _checkpoint(folder, embedding: T, name: str = "model.embed_tokens.weight"):
    write_json(folder / "config.json", {"architectures": ["Qwen3ForCausalLM"], "vocab_size": 100})
    write_safetensors(folder / "model.safetensors", {name: embedding})
    return open_checkpoint(str(folder))


def test_the_rows_read_are_spread_over_the_vocab_first_and_last_included():
    rows = sampled_rows(151936)
    assert len(rows) == SAMPLED and rows[0] == 0 and rows[-1] == 151935
    assert rows == sorted(set(rows))
    assert sampled_rows(3) == [0, 1, 2] and sampled_rows(0) == []


def test_the_targets_copy_is_the_same_and_another_one_differs(tmp_path):
    target = _checkpoint(tmp_path / "t", head(100, H, 7))
    copy = _checkpoint(tmp_path / "a", head(100, H, 7), "embed_tokens.weight")
    other = _checkpoint(tmp_path / "b", head(100, H, 1), "embed_tokens.weight")
    assert same_embedding(copy.find("embed_tokens.weight"), copy, target) is True
    assert same_embedding(other.find("embed_tokens.weight"), other, target) is False


def test_what_cannot_be_told_is_none_never_an_error(tmp_path):
    target = _checkpoint(tmp_path / "t", head(100, H, 7))
    wide = _checkpoint(tmp_path / "w", head(100, 2 * H, 7), "embed_tokens.weight")
    half = _checkpoint(tmp_path / "h", T("F16", (100, H)), "embed_tokens.weight")
    for ckpt in (wide, half):  # another shape or dtype: the header alone cannot tell
        assert same_embedding(ckpt.find("embed_tokens.weight"), ckpt, target) is None
    assert same_embedding(None, wide, target) is None
    assert same_embedding(wide.find("embed_tokens.weight"), wide, None) is None
    # no rows at all: nothing to read (a division by the row count would raise)
    empty_t = _checkpoint(tmp_path / "et", T("F32", (0, H)))
    empty = _checkpoint(tmp_path / "e", T("F32", (0, H)), "embed_tokens.weight")
    assert same_embedding(empty.find("embed_tokens.weight"), empty, empty_t) is None


def test_a_file_cut_short_after_its_header_was_read_is_not_told(tmp_path):
    """A target file truncated between its header's read and the rows' (another process
    rewriting it): the comparison says nothing rather than failing the inspect."""
    target = _checkpoint(tmp_path / "t", head(100, H, 7))
    copy = _checkpoint(tmp_path / "a", head(100, H, 7), "embed_tokens.weight")
    theirs = target.find("embed_tokens.weight")
    os.truncate(theirs.path, theirs.start + 4)
    assert same_embedding(copy.find("embed_tokens.weight"), copy, target) is None


def test_rows_narrower_than_a_byte_are_not_told(tmp_path):
    """F4 [N, 1]: half a byte a row, 0 bytes by the row width: 16 empty rows compared would
    say any two such embeddings are the same copy."""
    target = _checkpoint(tmp_path / "t", T("F4", (100, 1)))
    other = _checkpoint(tmp_path / "o", T("F4", (100, 1)), "embed_tokens.weight")
    theirs = target.find("embed_tokens.weight")
    with open(theirs.path, "r+b") as f:  # the target's values all set, the drafter's zero
        f.seek(theirs.start)
        f.write(b"\xff" * theirs.nbytes)
    assert same_embedding(other.find("embed_tokens.weight"), other, target) is None
