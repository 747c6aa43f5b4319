"""The padded-row mask: which draft ids may be sampled.

``True`` for a draft id whose target id (``i + d2t[i]``, identity without ``d2t``)
lies in ``[0, Vt)``; ``False`` for padded rows. A runtime applies it by setting the
logits of ``False`` rows to ``-inf`` before argmax, top-k and sampling.
``fix --emit-mask`` writes it; ``verify`` applies it.
"""

from __future__ import annotations

import numpy as np

MASK_TENSOR = "draft_vocab_mask"  # bool [Vd], True = may be sampled
BIAS_TENSOR = "draft_vocab_bias"  # float32 [Vd], 0 = may be sampled, -inf = padded
MASK_MEANING = "True = this draft id may be sampled; False = padded row, set its logit to -inf"


def target_ids(vd: int, d2t_offsets: np.ndarray | None = None) -> np.ndarray:
    """The target id of every draft id: ``i + d2t[i]``, or ``i`` without a map."""
    ids = np.arange(vd, dtype=np.int64)
    return ids if d2t_offsets is None else ids + d2t_offsets.astype(np.int64)


def sampleable_mask(vd: int, vt: int, d2t_offsets: np.ndarray | None = None) -> np.ndarray:
    """bool ``[Vd]``: True where the draft id maps into the target vocab ``[0, Vt)``."""
    ids = target_ids(vd, d2t_offsets)
    return (ids >= 0) & (ids < vt)
