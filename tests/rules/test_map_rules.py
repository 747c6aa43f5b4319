"""The draft-to-target map, padding and defaults every runtime shares (DSC001, DSC301-DSC305,
DSC401, DSC501): firing rows and their clean twins, judged by the engine in-process.

Vt is 100 unless a row names another target; the drafter is synth.py's DSpark drafter
(hidden 8, fc [8, 16], markov_rank 4, mask id 0) with the row's changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rules_harness import (
    EAGLE3,
    Case,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    mapping,
    t2d,
    truncate,
)
from synth import VT, T, markov


def broken_config(folder: Path) -> None:
    (folder / "config.json").write_text("{")


def pruned4(offsets, t2d_ids=None) -> dict[str, T]:
    """A 4-id pruned drafter's head, d2t and (given its ids) t2d."""
    out = {"lm_head.weight": head(4), "d2t": d2t(offsets)}
    if t2d_ids is not None:
        out["t2d"] = t2d(t2d_ids)
    return out


PRUNED_HEAD = {"lm_head.weight": head(40)}
PADDED = {"embed_tokens.weight": head(128), "lm_head.weight": head(128), **markov(128, 128)}
ARANGE = {"lm_head.weight": head(60), "d2t": d2t(np.arange(60))}  # the trainer bug
LONE_T2D_35 = {"lm_head.weight": head(32), "t2d": mapping(35, seed=2)["t2d"]}
LONE_T2D_32 = {"lm_head.weight": head(32), "t2d": mapping(32, seed=2)["t2d"]}

CASES: list[Case] = [
    # DSC001: a checkpoint that cannot be read is one finding, never an exception
    fires("DSC001", "truncated-weights", mutate=truncate, says="truncated"),
    fires("DSC001", "config-not-json", mutate=broken_config, says="config is not valid JSON"),
    clean("DSC001", "whole-weights", exactly=()),
    # DSC301: ids mapped outside [0, Vt)
    fires("DSC301", "one-id-past-vt", draft=4, tensors=pruned4([0, 1, 2, 200]),
          says="1 of 4 draft ids map outside [0, 100); first: draft id 3 -> 203"),
    fires("DSC301", "arange-identity", draft=60, tensors=ARANGE,
          says="10 of 60 draft ids map outside [0, 100); first: draft id 50 -> 100 (d2t looks "
          "like arange: the identity is all zeros)"),
    clean("DSC301", "ids-within-vt", draft=4, tensors=pruned4([0, 1, 2, 3])),
    clean("DSC301", "padded-identity-rows-are-padding", profile="vllm-legacy", vocab=128,
          draft=128, tensors={**PADDED, "d2t": d2t(np.zeros(128))}),
    # DSC302: two draft ids onto one target id
    fires("DSC302", "all-onto-5", draft=4, tensors=pruned4([5, 4, 3, 2]),
          says="d2t maps 4 draft ids onto 1 distinct target ids"),
    clean("DSC302", "injective", draft=4, tensors=pruned4([5, 5, 5, 5])),
    # DSC303: t2d and d2t disagree (or a lone t2d no d2t can be derived from)
    fires("DSC303", "t2d-other-ids", draft=4, tensors=pruned4([0, 1, 2, 3], [0, 2, 4, 7]),
          says="t2d selects other target ids than d2t maps to"),
    clean("DSC303", "t2d-same-ids", draft=4, tensors=pruned4([0, 1, 2, 3], [0, 2, 4, 6]),
          exactly=()),
    fires("DSC303", "t2d-5-ids", draft=4, tensors=pruned4([0, 1, 2, 3], [0, 2, 4, 6, 8]),
          says="t2d selects 5 target ids; Vd is 4"),
    fires("DSC303", "t2d-not-bool", draft=4,
          tensors={**pruned4([0, 1, 2, 3]), "t2d": d2t(np.zeros(VT))},
          says="t2d is I64 [100]; expected BOOL [100]"),
    # a t2d over another vocab: exported for another target, and the hint says so
    fires("DSC303", "t2d-of-another-vocab", draft=4,
          tensors={**pruned4([0, 1, 2, 3]), "t2d": T("BOOL", (151936,), np.ones(151936, bool))},
          says="t2d is BOOL [151936]; expected BOOL [100]",
          hint="one entry per id of a 151936-id vocab, this target has 100"),
    clean("DSC303", "speculators-all-false-placeholder", draft=4,
          tensors={**pruned4([0, 1, 2, 3]), "t2d": T("BOOL", (VT,), np.zeros(VT, bool))}),
    fires("DSC303", "lone-t2d-35-ids", draft=32, tensors=LONE_T2D_35,
          says="t2d selects 35 target ids; Vd is 32: no d2t can be derived from it"),
    clean("DSC303", "lone-t2d-32-ids", draft=32, tensors=LONE_T2D_32),
    # DSC304: an unsorted map (legal, but no producer that sorts writes it)
    fires("DSC304", "unsorted", draft=4, tensors=pruned4([9, 0, 1, 2]),
          says="i + d2t[i] is not strictly increasing"),
    clean("DSC304", "sorted", draft=4, tensors=pruned4([9, 9, 9, 9])),
    # DSC305: int32 d2t, converted on load
    fires("DSC305", "d2t-i32", draft=40,
          tensors={**PRUNED_HEAD, "d2t": d2t(mapping(40)["d2t"].values, "I32")},
          says="d2t is I32 [40]: vLLM's weight loader converts it", exactly=("DSC305",),
          verdicts={"vllm": True}),
    clean("DSC305", "d2t-i64", draft=40, tensors={**PRUNED_HEAD, **mapping(40)}, exactly=()),
    # DSC401: padded rows [Vt, Vd) can be sampled
    fires("DSC401", "padded-128", vocab=128, draft=128, tensors=PADDED,
          says="28 padded rows [100, 128) can be sampled (no runtime masks them)",
          hint="--emit-mask", exactly=("DSC401",), verdicts={"vllm": True}),
    fires("DSC401", "padded-past-et", vocab=128, draft=128, tensors=PADDED, target="tight",
          says="or an out-of-bounds index at or above Et 112"),
    clean("DSC401", "equal", tensors={"lm_head.weight": head(VT)}),
    # DSC501: draft_vocab_size defaulted to vocab_size
    fires("DSC501", "no-draft-vocab-size", draft=None,
          says="use vocab_size 100 (SGLang's EAGLE-3 loader fails without the key: DSC681); "
          "the speculators library would default to 32000"),
    fires("DSC501", "speculators-config", profile="vllm-eagle3", draft=None,
          config={**EAGLE3, "speculators_model_type": "eagle3"},
          says="(this is a speculators-format config, whose library defaults to 32000)"),
    clean("DSC501", "draft-vocab-size-set"),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)
