"""Shapes, dtypes and config values every loader checks (DSC201-DSC211): firing rows and
their clean twins, judged by the engine in-process.

Vt is 100 unless a row names another target; the drafter is synth.py's DSpark drafter
(hidden 8, fc [8, 16], markov_rank 4, mask id 0) with the row's changes."""

from __future__ import annotations

import numpy as np
import pytest
from rules_harness import (
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_DSPARK,
    Case,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    mapping,
    zeros,
)
from synth import VT, H, T, markov

PRUNED_HEAD = {"lm_head.weight": head(40)}
PADDED = {"embed_tokens.weight": head(128), "lm_head.weight": head(128), **markov(128, 128)}
# a ModelOpt NVFP4 head: two columns packed per U8, with its scales
NVFP4_HEAD = {
    "lm_head.weight": zeros("U8", (40, H // 2)),
    "lm_head.weight_scale": T("F32", (40, 1), np.ones((40, 1), np.float32)),
    "d2t": mapping(40)["d2t"],
}
NVFP4 = {"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}
# a speculators EAGLE-3 config with 4 top-level aux ids: vLLM's model counts none of them
SPEC_AUX = {
    **EAGLE3,
    "speculators_model_type": "eagle3",
    "eagle_config": None,
    "eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4],
}
FC4 = {"fc.weight": zeros("F32", (H, 4 * H))}


def pruned4(offsets, dtype: str = "I64") -> dict[str, T]:
    """A 4-id pruned drafter's head and d2t."""
    return {"lm_head.weight": head(4), "d2t": d2t(offsets, dtype)}


CASES: list[Case] = [
    # DSC201: lm_head rows are draft_vocab_size
    fires("DSC201", "head-99-rows", tensors={"lm_head.weight": head(99)},
          says="lm_head.weight is [99, 8]; expected [draft_vocab_size 100, H]"),
    fires("DSC201", "head-101-rows", tensors={"lm_head.weight": head(101)},
          says="lm_head.weight is [101, 8]; expected [draft_vocab_size 100, H]"),
    clean("DSC201", "head-100-rows", tensors={"lm_head.weight": head(VT)}),
    # DSC202: embed_tokens rows are vocab_size
    fires("DSC202", "embed-90-rows", tensors={"embed_tokens.weight": head(90)},
          says="expected [vocab_size 100, H]"),
    fires("DSC202", "embed-101-rows", tensors={"embed_tokens.weight": head(101)},
          says="embed_tokens.weight is [101, 8]; expected [vocab_size 100, H]"),
    clean("DSC202", "embed-100-rows", tensors={"embed_tokens.weight": head(VT)}),
    # DSC203: the head's width is hidden_size (a packed quantised head is that wide too)
    fires("DSC203", "head-16-wide", tensors={"lm_head.weight": head(VT, 16)},
          says="has 16 columns but hidden_size is 8"),
    clean("DSC203", "head-8-wide", tensors={"lm_head.weight": head(VT, H)}),
    fires("DSC203", "packed-head-without-quantization-config", draft=40, tensors=NVFP4_HEAD,
          says="has 4 columns"),
    clean("DSC203", "nvfp4-head", draft=40, tensors=NVFP4_HEAD, config=NVFP4,
          verdicts={"vllm": True}),
    # DSC204: markov_w1 is [V, r]
    fires("DSC204", "w1-90-rows", tensors=markov(90, VT),
          says="markov_w1 is [90, 4]; expected [vocab_size 100, markov_rank 4]"),
    fires("DSC204", "w1-rank-3", tensors=markov(VT, VT, r=3), says="markov_rank 4"),
    clean("DSC204", "w1-100-rows", tensors=markov(VT, VT)),
    # DSC205: markov_w2 is [Vd, r] in vLLM, [V, r] in SGLang and TensorRT-LLM
    fires("DSC205", "w2-90-rows", tensors=markov(VT, 90),
          says="vllm expects [draft_vocab_size 100, markov_rank 4]"),
    clean("DSC205", "w2-100-rows", tensors=markov(VT, VT)),
    fires("DSC205", "sglang-w2-vd-rows", profile="sglang-dspark", draft=40, config=SG_DSPARK,
          tensors={**markov(VT, 40), **SG_BLOCK_LAYERS}, says="[vocab_size 100, markov_rank 4]",
          exactly=("DSC205",)),
    clean("DSC205", "sglang-w2-v-rows", profile="sglang-dspark", draft=40, config=SG_DSPARK,
          tensors={**markov(VT, VT), **SG_BLOCK_LAYERS}, exactly=(),
          verdicts={"sglang-dspark": True}),
    fires("DSC205", "vllm-w2-v-rows", draft=40, tensors={**PRUNED_HEAD, **mapping(40),
          **markov(VT, VT)}, says="[draft_vocab_size 40"),
    clean("DSC205", "vllm-w2-vd-rows", draft=40, tensors={**PRUNED_HEAD, **mapping(40),
          **markov(VT, 40)}),
    # DSC206: d2t is rank-1 int64 (or int32) of length Vd
    fires("DSC206", "d2t-f32", draft=4, tensors={"lm_head.weight": head(4),
          "d2t": zeros("F32", (4,))}, says="d2t is F32 [4]; expected I64 [4]"),
    fires("DSC206", "d2t-5-long", draft=4, tensors=pruned4([0, 1, 2, 3, 4]),
          says="d2t is I64 [5]"),
    clean("DSC206", "d2t-i64-4", draft=4, tensors=pruned4([0, 1, 2, 3])),
    # DSC207: Vd beyond the target's embedding rows
    fires("DSC207", "padded-on-tight", vocab=128, draft=128, tensors=PADDED, target="tight",
          says="draft_vocab_size 128 exceeds the target's 112 embedding rows",
          hint="cuts lm_head and draft_vocab_size to Vt rows (a padded-row mask, `--emit-mask`, "
          "keeps sampling in bounds meanwhile, but the checkpoint still fails)"),
    clean("DSC207", "padded-on-small", vocab=128, draft=128, tensors=PADDED, target="small"),
    clean("DSC207", "padded-target-weights-unknown", vocab=128, draft=128, tensors=PADDED),
    # DSC208: the mask id the runtime reads (its key order) is an input id in [0, V)
    fires("DSC208", "nested-mask-100", config={"dflash_config": {"mask_token_id": 100}},
          says="dflash_config.mask_token_id 100 (the mask id vLLM reads) is outside the input "
          "vocab [0, 100)"),
    clean("DSC208", "nested-mask-99", config={"dflash_config": {"mask_token_id": 99}}),
    fires("DSC208", "top-level-mask-negative", config={"mask_token_id": -1},
          says="mask_token_id -1"),
    fires("DSC208", "pruned-vllm-reads-nested-first", draft=40,
          tensors={**PRUNED_HEAD, **mapping(40)},
          config={"mask_token_id": 3, "dflash_config": {"mask_token_id": VT}},
          exactly=("DSC208",)),
    clean("DSC208", "pruned-mask-90-in-v-not-vd", draft=40,
          tensors={**PRUNED_HEAD, **mapping(40)},
          config={"mask_token_id": None, "dflash_config": {"mask_token_id": 90}},
          verdicts={"vllm": True}),
    clean("DSC208", "trtllm-reads-top-level-only", profile="trtllm-dspark-legacy",
          config={"mask_token_id": 3, "dflash_config": {"mask_token_id": VT}}),
    # DSC209: one tensor under two names
    fires("DSC209", "d2t-and-model-d2t", draft=4,
          tensors={**pruned4([0, 1, 2, 3]), "model.d2t": d2t([0, 0, 0, 0])},
          says="d2t is stored under 2 names (d2t, model.d2t)"),
    clean("DSC209", "d2t-once", draft=4, tensors=pruned4([0, 1, 2, 3])),
    # DSC210: fc is [H, n_aux * Ht] with n_aux counted as the runtime counts it
    fires("DSC210", "speculators-top-level-aux-ids", profile="vllm-eagle3", by_default=True,
          config=SPEC_AUX, tensors=FC4,
          says="fc for 3 target hidden states (the default 3)", hint="num_aux_hidden_states: 4"),
    # speculators' own config (no model_type): vLLM translates it, a Llama layer counts 3
    fires("DSC210", "translated-speculators-llama-layer", profile="vllm-eagle3",
          config={**SPEC_AUX, "model_type": None, "speculators_config": {"algorithm": "eagle3"},
                  "transformer_layer_config": {"model_type": "llama", "hidden_size": H,
                                               "num_hidden_layers": 1, "vocab_size": VT}},
          tensors=FC4, hint="num_aux_hidden_states: 4 in transformer_layer_config"),
    clean("DSC210", "num-aux-hidden-states-4", profile="vllm-eagle3",
          config={**SPEC_AUX, "num_aux_hidden_states": 4}, tensors=FC4,
          verdicts={"vllm-eagle3": True}),
    # num_aux_hidden_states is read with `is None`: 0 is a count (fc [H, 0]), not a fall-through
    # to eagle_config's 2 ids (llama_eagle3.py:209-215; SGLang's llama_eagle3.py:156-161)
    fires("DSC210", "num-aux-hidden-states-0", profile="vllm-eagle3",
          config={**EAGLE3, "num_aux_hidden_states": 0},
          says="fc for 0 target hidden states (num_aux_hidden_states) of width 8: [8, 0]"),
    fires("DSC210", "sglang-num-aux-hidden-states-0", profile="sglang-eagle3",
          config={**EAGLE3, "num_aux_hidden_states": 0},
          says="fc for 0 target hidden states (num_aux_hidden_states) of width 8: [8, 0]"),
    clean("DSC210", "num-aux-hidden-states-null-counts-eagle-ids", profile="vllm-eagle3",
          config={**EAGLE3, "num_aux_hidden_states": None}),
    clean("DSC210", "num-aux-hidden-states-2", profile="vllm-eagle3",
          config={**EAGLE3, "num_aux_hidden_states": 2}),
    # use_aux_hidden_state false: vLLM's EAGLE-3 builds no fc (llama_eagle3.py:209), SGLang's
    # builds it all the same (its llama_eagle3.py:163)
    clean("DSC210", "vllm-eagle3-without-aux-states-builds-no-fc", profile="vllm-eagle3",
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}}, tensors=FC4),
    fires("DSC210", "sglang-eagle3-without-aux-states-builds-fc", profile="sglang-eagle3",
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": False}}, tensors=FC4,
          says="fc for 3 target hidden states (the default 3)"),
    fires("DSC210", "vllm-eagle3-aux-states-true", profile="vllm-eagle3",
          config={**EAGLE3, "eagle_config": {"use_aux_hidden_state": True}}, tensors=FC4,
          says="fc for 3 target hidden states (the default 3)"),
    fires("DSC210", "dspark-fc-3-states", tensors={"fc.weight": zeros("F32", (H, 3 * H))},
          says="fc for 2 target hidden states (len(target_layer_ids)) of width 8: [8, 16]"),
    clean("DSC210", "dspark-fc-3-layer-ids", config={"target_layer_ids": [0, 1, 2]},
          tensors={"fc.weight": zeros("F32", (H, 3 * H))}),
    # DSC211: with norm_before_fc, input_norm is [n_aux * Ht]
    fires("DSC211", "input-norm-3-states", profile="vllm-eagle3",
          config={**SPEC_AUX, "num_aux_hidden_states": 4, "norm_before_fc": True},
          tensors={**FC4, "input_norm.weight": zeros("F32", (3 * H,))},
          says="builds input_norm [32]", exactly=("DSC211",)),
    clean("DSC211", "input-norm-4-states", profile="vllm-eagle3",
          config={**SPEC_AUX, "num_aux_hidden_states": 4, "norm_before_fc": True},
          tensors={**FC4, "input_norm.weight": zeros("F32", (4 * H,))}),
    clean("DSC211", "no-norm-before-fc", profile="vllm-eagle3",
          config={**SPEC_AUX, "num_aux_hidden_states": 4},
          tensors={**FC4, "input_norm.weight": zeros("F32", (3 * H,))}),
    # eagle_config's key wins where present, null included (bool(None): no input_norm built)
    *(clean("DSC211", f"{pr}-nested-null-norm-before-fc", profile=pr,
            config={**EAGLE3, "num_aux_hidden_states": 4, "norm_before_fc": True,
                    "eagle_config": {"norm_before_fc": None}},
            tensors={**FC4, "input_norm.weight": zeros("F32", (3 * H,))})
      for pr in ("vllm-eagle3", "sglang-eagle3")),
    *(fires("DSC211", f"{pr}-nested-norm-before-fc", profile=pr,
            config={**EAGLE3, "num_aux_hidden_states": 4, "eagle_config": {"norm_before_fc": True}},
            tensors={**FC4, "input_norm.weight": zeros("F32", (3 * H,))},
            says="builds input_norm [32]")
      for pr in ("vllm-eagle3", "sglang-eagle3")),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)
