"""The drafter's vocab against the target's: names, classification, the padded-row mask.

A drafter proposes ids ``[0, Vd)`` that become target ids through ``d2t``
(``i + d2t[i]``, the identity without it). Against the target's ``Vt`` its draft vocab
is pruned (``Vd < Vt``), equal, or padded (rows ``[Vt, Vd)`` are padding, not tokens).

The padded-row mask says which draft ids may be sampled: ``True`` for a draft id whose
target id lies in ``[0, Vt)``, ``False`` for padded rows. A runtime applies it by
setting the logits of ``False`` rows to ``-inf`` before argmax, top-k and sampling.
``fix --emit-mask`` writes it; ``verify`` applies it.

The rules compute on ``d2t`` and ``t2d`` in plain Python (``target_ids``); numpy is
imported only where a mask or a map is built for ``fix`` and ``verify``.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add, eq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from dspark_ckpt.source.safetensors import TensorInfo

PRUNED, EQUAL, PADDED = "pruned", "equal", "padded"

# the tensors the rules read, by unprefixed name (Checkpoint.find)
LM_HEAD = "lm_head.weight"
EMBED = "embed_tokens.weight"
D2T = "d2t"
T2D = "t2d"
MARKOV_W1 = "markov_head.markov_w1.weight"
MARKOV_W2 = "markov_head.markov_w2.weight"
FC = "fc.weight"
INPUT_NORM = "input_norm.weight"
ROLE_TENSORS = (LM_HEAD, EMBED, D2T, T2D, MARKOV_W1, MARKOV_W2, FC, INPUT_NORM)

MASK_TENSOR = "draft_vocab_mask"  # bool [Vd], True = may be sampled
BIAS_TENSOR = "draft_vocab_bias"  # float32 [Vd], 0 = may be sampled, -inf = padded
MASK_MEANING = "True = this draft id may be sampled; False = padded row, set its logit to -inf"

# d2t dtypes a runtime loads: int64, and int32 (converted on load: DSC305)
D2T_DTYPES = ("I64", "I32")


def classify(vd: int, vt: int) -> str:
    """pruned (Vd < Vt, mapped through d2t), equal (identity), padded (rows [Vt, Vd) are padding)."""
    return PRUNED if vd < vt else EQUAL if vd == vt else PADDED


def padded_rows(vd: int, vt: int) -> int:
    """How many rows ``[Vt, Vd)`` of a padded drafter are padding, not tokens."""
    return max(vd - vt, 0)


def d2t_layout_problem(info: TensorInfo, vd: int) -> str | None:
    """The DSC206 condition, stated once: a ``d2t`` is rank-1 ``I64`` (or ``I32``,
    converted on load) of length ``Vd``. What is wrong with ``info``, or None."""
    if info.dtype not in D2T_DTYPES or info.shape != (vd,):
        return f"d2t is {info.dtype} {list(info.shape)}; expected I64 [{vd}] (draft_vocab_size)"
    return None


def t2d_layout_problem(info: TensorInfo, vt: int) -> str | None:
    """A ``t2d`` is ``BOOL [Vt]``: what is wrong with ``info``, or None."""
    if info.dtype != "BOOL" or info.shape != (vt,):
        return f"t2d is {info.dtype} {list(info.shape)}; expected BOOL [{vt}]"
    return None


def same(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether two id sequences hold the same values in the same order (a list, an
    ``array`` or a ``range`` alike), stopping at the first difference."""
    return len(a) == len(b) and all(map(eq, a, b))


def target_ids(d2t_offsets: Sequence[int]) -> list[int]:
    """The target id of every draft id, ``i + d2t[i]``, in plain Python (what the rules
    compute on: no numpy)."""
    return list(map(add, range(len(d2t_offsets)), d2t_offsets))


def target_id_array(vd: int, d2t_offsets: Sequence[int] | None = None) -> np.ndarray:
    """``target_ids`` as an int64 numpy array (``fix``'s mask, ``verify``), the identity
    ``i`` without a map."""
    import numpy as np

    ids = np.arange(vd, dtype=np.int64)
    return ids if d2t_offsets is None else ids + np.asarray(d2t_offsets, dtype=np.int64)


def sampleable_mask(vd: int, vt: int, d2t_offsets: Sequence[int] | None = None) -> np.ndarray:
    """bool ``[Vd]``: True where the draft id maps into the target vocab ``[0, Vt)``."""
    ids = target_id_array(vd, d2t_offsets)
    return (ids >= 0) & (ids < vt)


def t2d_disagreement(
    selected: Sequence[int] | None, offsets: Sequence[int], ids: list[int] | None = None
) -> str | None:
    """How the target ids a ``BOOL [Vt]`` t2d selects (ascending) contradict the ``d2t``
    offsets (it must select exactly the ``Vd`` target ids d2t maps to), or None. None
    without a selection (no t2d, or one of another layout: vLLM skips it) and for the
    all-False placeholder speculators writes when it has no mapping: nothing to compare.
    ``ids``: the sorted target ids of ``offsets``, where the caller has them."""
    if not selected:
        return None
    vd = len(offsets)
    if len(selected) != vd:
        return f"t2d selects {len(selected)} target ids; Vd is {vd}"
    if not same(selected, ids if ids is not None else sorted(target_ids(offsets))):
        return "t2d selects other target ids than d2t maps to"
    return None
