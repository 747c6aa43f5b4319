"""The draft-to-target map, padding and defaults every runtime shares (DSC001, DSC301-DSC305,
DSC310-DSC314, DSC401, DSC501): firing rows and their clean twins, judged by the engine in-process.

Vt is 100 unless a row names another target; the drafter is synth.py's DSpark drafter
(hidden 8, fc [8, 16], markov_rank 4, mask id 0) with the row's changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import synth
from rules_harness import (
    DROP,
    EAGLE3,
    Case,
    Tgt,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    mapping,
    split_off,
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

# drafters made for one target and judged against another (DSC310): Llama 3.x and Qwen3
LLAMA3_VT, QWEN3_VT = 128256, 151936
LLAMA3, QWEN3 = Tgt.of(vocab_size=LLAMA3_VT), Tgt.of(vocab_size=QWEN3_VT)
EAGLE3_PROFILES = ("vllm-eagle3", "vllm-eagle3-legacy", "sglang-eagle3", "trtllm-eagle3")


def vocab_map(vt: int, vd: int, seed: int) -> dict[str, T]:
    """A sorted producer map of ``vd`` ids over a ``vt``-id vocab, with its head."""
    offsets, mask = synth.sorted_mapping(vt, vd, seed)
    return {
        "lm_head.weight": head(vd),
        "d2t": T("I64", (vd,), offsets),
        "t2d": T("BOOL", (vt,), mask),
    }


LLAMA3_MAP = vocab_map(LLAMA3_VT, 32, 5)
QWEN3_MAP = vocab_map(QWEN3_VT, 32, 5)
# 45 of 100 ids, no two adjacent (1, 3, 5, ...): offsets 1, 2, 3, ... that look like ids
ODD_IDS = {"lm_head.weight": head(45), "d2t": d2t(np.arange(45) + 1)}

CASES: list[Case] = [
    # DSC001: a checkpoint that cannot be read is one finding, never an exception
    fires("DSC001", "truncated-weights", mutate=truncate, says="truncated",
          verdicts={"vllm": False}),
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
    # as many ids as d2t, other ones: DSC314 says it (the head was trained on t2d's)
    clean("DSC303", "t2d-other-ids-is-dsc314", draft=4,
          tensors=pruned4([1, 1, 1, 1], [1, 2, 3, 5])),
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
          hint="--emit-mask", exactly=("DSC401",), verdicts={"vllm": True},
          at=("lm_head.weight", None)),
    # the tensor whose rows are padding: the head, else markov_w2, else d2t, else the key
    fires("DSC401", "padded-no-head-names-markov-w2", vocab=128, draft=128,
          tensors={**PADDED, "lm_head.weight": DROP},
          at=("markov_head.markov_w2.weight", None)),
    fires("DSC401", "padded-head-of-other-rows-names-markov-w2", vocab=128, draft=128,
          tensors={**PADDED, "lm_head.weight": head(140)},
          at=("markov_head.markov_w2.weight", None)),
    fires("DSC401", "padded-at-et", vocab=128, draft=128, tensors=PADDED, target="small",
          says="each becomes an illegal target token", says_not="out-of-bounds"),
    fires("DSC401", "padded-eagle3-d2t-only", profile="vllm-eagle3", vocab=128, draft=128,
          config=EAGLE3, tensors={"d2t": d2t([0] * 128)}, at=("d2t", None)),
    fires("DSC401", "padded-eagle3-nothing-of-vd-rows", profile="vllm-eagle3", vocab=128,
          draft=128, config=EAGLE3, at=("draft_vocab_size", None)),
    fires("DSC401", "padded-past-vt-below-et", vocab=101, draft=101, tensors={
          "lm_head.weight": head(101), "embed_tokens.weight": head(101), **markov(101, 101)},
          target="small", says="1 padded rows [100, 101) can be sampled (no runtime masks "
          "them): each becomes an illegal target token", exactly=("DSC401",)),
    fires("DSC401", "padded-past-et", vocab=128, draft=128, tensors=PADDED, target="tight",
          says="or an out-of-bounds index at or above Et 112"),
    clean("DSC401", "equal", tensors={"lm_head.weight": head(VT)}),
    # DSC501: draft_vocab_size defaulted to vocab_size
    # a DSpark drafter: SGLang's DFlash/DSpark loaders never read the key (issue 27: not
    # the EAGLE-3 loader's failure, which is not this drafter's)
    fires("DSC501", "no-draft-vocab-size", draft=None,
          says="use vocab_size 100 (SGLang does not read the key); "
          "the speculators library would default to 32000"),
    fires("DSC501", "eagle3-no-draft-vocab-size", profile="vllm-eagle3", draft=None,
          config=EAGLE3, says="use vocab_size 100 (SGLang's EAGLE-3 loader fails without the "
          "key: DSC681)"),
    fires("DSC501", "speculators-config", profile="vllm-eagle3", draft=None,
          config={**EAGLE3, "speculators_model_type": "eagle3"},
          says="(this is a speculators-format config, whose library defaults to 32000)"),
    clean("DSC501", "draft-vocab-size-set"),
    # DSC310: made for another target's vocab (vocab_size, t2d length, d2t reach)
    fires("DSC310", "llama3-dspark-on-qwen3", vocab=LLAMA3_VT, draft=32, tensors=LLAMA3_MAP,
          target=QWEN3, says="vocab_size 128256 is the Llama 3.x vocab (128256 ids); t2d "
          "[128256] has one entry per id of the Llama 3.x vocab",
          hint="a Qwen2.5 or Qwen3 drafter", verdicts={"vllm": False}, at=("vocab_size", None)),
    # the case: a Llama-3.1 EAGLE-3 drafter against Qwen3-8B passed every runtime
    fires("DSC310", "llama3-eagle3-on-qwen3", profile="vllm-eagle3", vocab=LLAMA3_VT, draft=32,
          config=EAGLE3, tensors=LLAMA3_MAP, target=QWEN3, exactly=("DSC310",),
          verdicts=dict.fromkeys(EAGLE3_PROFILES, False)),
    fires("DSC310", "t2d-of-llama3-on-qwen3", vocab=QWEN3_VT, draft=32, tensors=LLAMA3_MAP,
          target=QWEN3, says="t2d [128256] has one entry per id of the Llama 3.x vocab",
          exactly=("DSC310",)),
    # the finding names the tensor that is its evidence, in its own file (d2t and t2d apart)
    fires("DSC310", "t2d-evidence-names-the-t2d-file", vocab=QWEN3_VT, draft=32,
          tensors=LLAMA3_MAP, target=QWEN3, mutate=split_off("t2d"),
          at=("t2d", "model-00002-of-00002.safetensors")),
    fires("DSC310", "prefixed-t2d-evidence-names-it", vocab=QWEN3_VT, draft=32,
          tensors={**LLAMA3_MAP, "t2d": DROP, "model.t2d": LLAMA3_MAP["t2d"]}, target=QWEN3,
          profile="sglang-dspark", at=("model.t2d", "model.safetensors")),
    fires("DSC310", "d2t-evidence-names-the-d2t-file", vocab=LLAMA3_VT, draft=32,
          tensors={**QWEN3_MAP, "t2d": DROP}, target=LLAMA3, mutate=split_off("lm_head.weight"),
          at=("d2t", "model-00001-of-00002.safetensors")),
    fires("DSC310", "d2t-reaching-past-llama3", vocab=LLAMA3_VT, draft=32,
          tensors={**QWEN3_MAP, "t2d": DROP}, target=LLAMA3,
          says="up to 151798: a vocab of at least 151799 ids, such as Qwen2.5 or Qwen3"),
    clean("DSC310", "llama3-dspark-on-llama3", vocab=LLAMA3_VT, draft=32, tensors=LLAMA3_MAP,
          target=LLAMA3, exactly=()),
    clean("DSC310", "qwen-152064-on-qwen3-151936", profile="sglang-dspark", vocab=152064,
          draft=32, tensors=QWEN3_MAP, target=QWEN3),
    clean("DSC310", "target-of-no-known-vocab", vocab=LLAMA3_VT, draft=32, tensors=LLAMA3_MAP),
    # a config vocab_size of another family, but its t2d was made over this target's vocab
    clean("DSC310", "t2d-over-this-vocab-outweighs-vocab-size", vocab=32000, draft=32,
          tensors={**LLAMA3_MAP, "embed_tokens.weight": DROP}, target=LLAMA3),
    clean("DSC303", "t2d-of-llama3-is-dsc310", vocab=QWEN3_VT, draft=32, tensors=LLAMA3_MAP,
          target=QWEN3),
    # DSC311: d2t holds the selected target ids, not offsets
    fires("DSC311", "d2t-equals-t2d-ids", draft=4, tensors=pruned4([10, 20, 30, 40],
          [10, 20, 30, 40]), says="d2t equals the target ids t2d selects: it holds absolute "
          "target ids, not offsets", exactly=("DSC311",)),
    fires("DSC311", "increasing-ids-past-vt-as-offsets", draft=4,
          tensors=pruned4([10, 40, 70, 98]),
          says="1 of 4 draft ids land outside [0, 100) (first: draft id 3 -> 101)"),
    clean("DSC311", "offsets-of-those-ids", draft=4,
          tensors=pruned4([10, 19, 28, 37], [10, 20, 30, 40]), exactly=()),
    # DSC312: strictly increasing with no t2d to tell ids from offsets
    fires("DSC312", "increasing-no-t2d", draft=45, tensors=ODD_IDS,
          says="d2t is strictly increasing (1, 2, 3, 4, ...) and the checkpoint has no t2d",
          exactly=("DSC312",), verdicts={"vllm": True}),
    clean("DSC312", "increasing-confirmed-by-t2d", draft=45,
          tensors={**ODD_IDS, "t2d": t2d(range(1, 90, 2))}, exactly=()),
    # a small draft vocab may well have no two adjacent ids: not judged
    clean("DSC312", "few-ids-increasing", draft=4, tensors=pruned4([10, 20, 30, 40])),
    clean("DSC312", "producer-map-without-t2d", draft=40,
          tensors={**PRUNED_HEAD, "d2t": mapping(40)["d2t"]}, exactly=()),
    # DSC313: arange written for the identity
    fires("DSC313", "arange-no-t2d", draft=4, tensors=pruned4([0, 1, 2, 3]),
          says="d2t is arange(4) (0, 1, 2, ...): the identity d2t is all zeros", exactly=("DSC313",)),
    fires("DSC313", "arange-against-first-ids-t2d", draft=4,
          tensors=pruned4([0, 1, 2, 3], [0, 1, 2, 3]), says="proposed as 2i"),
    clean("DSC313", "arange-confirmed-by-t2d", draft=4,
          tensors=pruned4([0, 1, 2, 3], [0, 2, 4, 6]), exactly=()),
    # DSC314: t2d (what the head was trained on) selects other ids than d2t (what is served)
    fires("DSC314", "t2d-other-ids", draft=4, tensors=pruned4([1, 1, 1, 1], [1, 2, 3, 5]),
          says="1 of 4 differ; first: draft row 3 was trained as t2d's id 5, d2t proposes 4",
          exactly=("DSC314",)),
    clean("DSC314", "t2d-same-ids", draft=4, tensors=pruned4([1, 1, 1, 1], [1, 2, 3, 4]),
          exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)
