"""Whether a shipped ``embed_tokens`` is the target's own, compared on a few rows.

vLLM 0.33.0 keeps a drafter's embedding whose values differ from the target's and shares
the target's only for an exact copy (``torch.equal``); a trainer ships the target's
(frozen) embedding, a bad export another one of the same shape (random: TorchSpec issue
#38). Reading both whole would cost gigabytes: ``SAMPLED`` rows spread over the vocab,
first and last included, are read from each local file. One row that differs proves the
copies differ; all equal is taken as the same copy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.errors import CheckpointError

if TYPE_CHECKING:  # the rules read SAMPLED: explain and profiles import no reader
    from dspark_ckpt.source.checkpoint import Checkpoint
    from dspark_ckpt.source.safetensors import TensorInfo

SAMPLED = 16
# the widest row compared (bytes): an embedding row is a few KiB (hidden 16384 in BF16 is
# 32 KiB); a header declaring rows of gigabytes (a sparse file) is not read, nor told
MAX_ROW_BYTES = 1 << 20
TARGET_EMBEDDING = "embed_tokens.weight"


def sampled_rows(rows: int, k: int = SAMPLED) -> list[int]:
    """``k`` row numbers spread over ``rows``, the first and the last included."""
    if rows <= k:
        return list(range(rows))
    return sorted({i * (rows - 1) // (k - 1) for i in range(k)})


def same_embedding(
    embed: TensorInfo | None, ckpt: Checkpoint, target: Checkpoint | None
) -> bool | None:
    """Whether the drafter's ``embed`` holds the target's input embedding at the sampled
    rows; None where it cannot be told here: no embedding shipped, no local target weights,
    another shape or dtype (a different tensor by its header alone), or a row unreadable."""
    from dspark_ckpt.source.local import LocalSource
    from dspark_ckpt.source.safetensors import read_rows

    if embed is None or target is None or len(embed.shape) != 2 or not embed.numel:
        return None  # no rows (or none with bytes) to compare
    width, part = divmod(embed.nbytes, embed.shape[0])
    if part or not width or width > MAX_ROW_BYTES:
        return None  # rows of a sub-byte width (F4 [N, 1]) or too wide to read a few of
    theirs = target.find(TARGET_EMBEDDING)
    if theirs is None or (theirs.shape, theirs.dtype) != (embed.shape, embed.dtype):
        return None
    if not all(isinstance(c.origin, LocalSource) for c in (ckpt, target)):
        return None  # the Hub: no row reads of a target not downloaded
    rows = sampled_rows(embed.shape[0])
    try:
        return read_rows(embed, rows) == read_rows(theirs, rows)
    except CheckpointError:
        return None
