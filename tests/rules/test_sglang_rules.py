"""SGLang 0.5.23 as it is (DSC680-DSC687, and the SGLang rows of DSC109, DSC208, DSC604):
firing rows and their clean twins, judged by the engine in-process.

The drafter is synth.py's (hidden 8, fc [8, 16] for 2 target states, markov_rank 4, mask
id 0, Vt 100) made into what SGLang loads: a class it registers (``SG_DSPARK``, ``DFLASH``,
``EAGLE3``) and every weight its model builds (``SG_*_LAYERS``); each row changes one thing.
Each row's comment names the SGLang source line that decides it."""

from __future__ import annotations

import numpy as np
import pytest
import synth
from rules_harness import (
    DFLASH,
    DROP,
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_DSPARK,
    SG_EAGLE3_LAYERS,
    Case,
    Tgt,
    check,
    clean,
    fires,
    head,
    ids,
    zeros,
)
from synth import VT, H, T, markov

DSPARK_OK = {**markov(VT, VT), **SG_BLOCK_LAYERS}
EAGLE3_OK = {"lm_head.weight": head(VT), **SG_EAGLE3_LAYERS}
GATE = {
    "markov_head.gate_proj.weight": zeros("F32", (4, H + 4)),
    "markov_head.gate_proj.bias": zeros("F32", (4,)),
}
# targets with weights (Et) and depth (N)
ET128 = Tgt.of(embed_rows=128)
ET128_PADDED = Tgt.of(embed_rows=128, padded_vocab_size=128)
ET100 = Tgt.of(embed_rows=100)
N8 = Tgt.of(num_hidden_layers=8, hidden_size=H)
N5 = Tgt.of(num_hidden_layers=5, hidden_size=H)
N3 = Tgt.of(num_hidden_layers=3, hidden_size=H)


# a compressed-tensors pack-quantised drafter (SGLang issue #39087): each linear stored as
# weight_packed (I32, 8 int4 values a word), weight_scale (a group of 8) and weight_shape
CT = {
    "quant_method": "compressed-tensors",
    "format": "pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4,
                      "type": "int", "group_size": 8, "symmetric": True}}},
    "ignore": ["lm_head"],
}  # fmt: skip


def packed(names: list[str], cols: int = H) -> dict[str, T | None]:
    """Each ``NAME.weight`` [H, cols] of ``names`` stored pack-quantised instead."""
    out: dict[str, T | None] = {}
    for name in names:
        out[f"{name}.weight"] = DROP
        out[f"{name}.weight_packed"] = T("I32", (H, cols // 8))
        out[f"{name}.weight_scale"] = T("F16", (H, cols // 8))
        out[f"{name}.weight_shape"] = T("I64", (2,), np.array([H, cols]))
    return out


LINEARS = [f"layers.0.self_attn.{p}_proj" for p in "qkvo"]
LINEARS += [f"layers.0.mlp.{p}_proj" for p in ("gate", "up", "down")]
PACKED_LAYERS = packed(LINEARS)  # the decoder layer's linears: SGLang builds them quantised
PACKED_FC = packed(["fc"], 2 * H)  # fc: SGLang's DFlash builds a plain nn.Linear
QDFLASH = {**DFLASH, "quantization_config": CT}
# SGLang's Nemotron 3.5 draft layout (dflash_utils.py:461-497): its fc is built quantisable
NEMOTRON = {
    **QDFLASH,
    "quantization_config": {**CT, "quant_algo": "W4A16_NVFP4"},
    "has_embed_tokens": True,
    "target_layer_ids": [0, 1],
    "eagle_aux_hidden_state_layer_ids": [1, 2],
    "dflash_config": {"sample_from_anchor": False},
}


def dflash_default(layers: int, states: int) -> dict:
    """A DFlash drafter of ``layers`` layers naming no target layer ids (SGLang picks them
    from its depth, dflash_utils.py), its fc built for ``states`` states."""
    return {
        "config": {**DFLASH, "target_layer_ids": None, "num_hidden_layers": layers},
        "tensors": {**synth.layer_weights(H, layers=layers), **fc(states)},
    }


def fc(states: int) -> dict[str, T]:
    return {"fc.weight": zeros("F32", (H, states * H))}


def legacy_midlayer(tensors: dict[str, T]) -> dict[str, T]:
    """SpecForge's EAGLE-3 names: layers.0.* stored as midlayer.*."""
    return {k.replace("layers.0.", "midlayer."): v for k, v in tensors.items()}


CASES: list[Case] = [
    # DSC680: the model registry (model_loader/utils.py:224-232, each model's EntryClass)
    fires("DSC680", "vllm-class-name", profile="sglang-dspark", tensors=DSPARK_OK,
          config={"architectures": ["Qwen3DSparkForCausalLM"]},
          says="registers no such dspark drafter class"),
    fires("DSC680", "peagle-not-served", profile="sglang-eagle3",
          config={"architectures": ["PEagleDraftModel"], "model_type": "llama"}, tensors=EAGLE3_OK,
          says="PEagleDraftModel"),
    clean("DSC680", "dspark-draft-model", profile="sglang-dspark", config=SG_DSPARK,
          tensors=DSPARK_OK, exactly=(), verdicts={"sglang-dspark": True}),
    clean("DSC680", "later-name-registered", profile="sglang-eagle3", tensors=EAGLE3_OK,
          config={**EAGLE3, "architectures": ["Foo", "LlamaForCausalLMEagle3"]}),
    clean("DSC680", "vllm-has-no-list", profile="vllm", tensors=DSPARK_OK),
    # DSC681: llama_eagle3.py:306 reads config.draft_vocab_size as an attribute
    fires("DSC681", "key-missing", profile="sglang-eagle3", draft=None, config=EAGLE3,
          tensors=SG_EAGLE3_LAYERS, says="AttributeError", hint='write "draft_vocab_size": null'),
    fires("DSC681", "key-missing-own-head", profile="sglang-eagle3", draft=None, config=EAGLE3,
          tensors=EAGLE3_OK, hint='write "draft_vocab_size": 100'),
    clean("DSC681", "null-takes-the-target-head", profile="sglang-eagle3", draft=None,
          config={**EAGLE3, "draft_vocab_size": synth.NULL}, tensors=SG_EAGLE3_LAYERS,
          exactly=("DSC501",), verdicts={"sglang-eagle3": True}),
    clean("DSC681", "tied", profile="sglang-eagle3", draft=None,
          config={**EAGLE3, "tie_word_embeddings": True}, tensors=SG_EAGLE3_LAYERS),
    clean("DSC681", "vllm-defaults-it", profile="vllm-eagle3", draft=None, config=EAGLE3),
    # DSC652 under SGLang: no check after model.load_weights (model_loader/loader.py:1063)
    fires("DSC652", "no-decoder-layer", profile="sglang-dspark", config=SG_DSPARK,
          tensors={**markov(VT, VT), **dict.fromkeys(SG_BLOCK_LAYERS, DROP)},
          says="layers.0.self_attn.q_proj.weight"),
    fires("DSC652", "no-markov-head", profile="sglang-dspark", config=SG_DSPARK,
          tensors={**SG_BLOCK_LAYERS, **dict.fromkeys(markov(VT, VT), DROP)},
          says="markov_head.markov_w1.weight"),
    fires("DSC652", "gated-without-gate", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "markov_head_type": "gated"}, says="markov_head.gate_proj"),
    fires("DSC652", "fc-norm-enabled-not-shipped", profile="sglang-eagle3", tensors=EAGLE3_OK,
          config={**EAGLE3, "fc_norm": True}, says="fc_norm.0.weight"),
    clean("DSC652", "every-weight", profile="sglang-dspark", config=SG_DSPARK, tensors=DSPARK_OK),
    clean("DSC652", "specforge-midlayer-names", profile="sglang-eagle3", config=EAGLE3,
          tensors=legacy_midlayer(EAGLE3_OK), exactly=(), verdicts={"sglang-eagle3": True}),
    clean("DSC652", "gated-with-gate", profile="sglang-dspark", tensors={**DSPARK_OK, **GATE},
          config={**SG_DSPARK, "markov_head_type": "gated"}),
    # DSC683: dspark_config.py:265-275 (markov_head_type required and one of three)
    fires("DSC683", "no-head-type", profile="sglang-dspark", tensors=DSPARK_OK,
          config={"architectures": ["DSparkDraftModel"]}, says="no markov_head_type is set"),
    fires("DSC683", "unsupported-head-type", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "markov_head_type": "lstm"}, says="supports vanilla, gated, rnn"),
    clean("DSC683", "nested-head-type", profile="sglang-dspark", tensors=DSPARK_OK,
          config={"architectures": ["DSparkDraftModel"],
                  "dflash_config": {"markov_head_type": "vanilla"}}),
    clean("DSC683", "dspark-prefixed-keys", profile="sglang-dspark", tensors=DSPARK_OK,
          config={"architectures": ["DSparkDraftModel"], "dspark_block_size": 4}),
    # DSC684: dspark.py:392 (the model's head: top-level type only), 653-658
    fires("DSC684", "nested-gated-builds-vanilla", profile="sglang-dspark",
          tensors={**DSPARK_OK, **GATE},
          config={"architectures": ["DSparkDraftModel"],
                  "dflash_config": {"markov_head_type": "gated"}},
          says="builds a vanilla Markov head"),
    fires("DSC684", "top-level-null", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "markov_head_type": synth.NULL,
                  "dflash_config": {"markov_head_type": "vanilla"}},
          says="Unsupported DSpark markov_head_type"),
    clean("DSC684", "top-level-gated", profile="sglang-dspark", tensors={**DSPARK_OK, **GATE},
          config={**SG_DSPARK, "markov_head_type": "gated"}, exactly=()),
    # DSC605 under SGLang: markov_sample.py:269 (V <= the logits' width); dspark.py:238-239
    fires("DSC605", "v100-under-et128", profile="sglang-dspark", config=SG_DSPARK,
          tensors=DSPARK_OK, target=ET128, says="the first id in [100, 128) is an index error"),
    fires("DSC605", "v128-over-et100", profile="sglang-dspark", config=SG_DSPARK, vocab=128,
          draft=128, tensors={**markov(128, 128), **SG_BLOCK_LAYERS}, target=ET100,
          says="AssertionError at the first draft step"),
    clean("DSC605", "v100-et100", profile="sglang-dspark", config=SG_DSPARK, tensors=DSPARK_OK,
          target=ET100, exactly=()),
    clean("DSC605", "vllm-not-its-rule", profile="vllm", tensors=markov(VT, VT), target=ET128),
    # DSC208 under SGLang: dflash_worker_v2.py:1399-1408 (Vt); dspark_worker_v2.py:251-254 (padded)
    fires("DSC208", "dflash-mask-at-vt", profile="sglang-dflash", tensors=SG_BLOCK_LAYERS,
          config={**DFLASH, "dflash_config": {"mask_token_id": VT}},
          says="outside the target's vocab [0, 100) (its vocab_size)"),
    fires("DSC208", "dflash-negative-mask", profile="sglang-dflash", tensors=SG_BLOCK_LAYERS,
          config={**DFLASH, "dflash_config": {"mask_token_id": -1}}, says="must be non-negative"),
    fires("DSC208", "dspark-mask-over-vt", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "mask_token_id": 120}, target=ET128, says="(its vocab_size)"),
    clean("DSC208", "dspark-mask-under-padded", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "mask_token_id": 120}, target=ET128_PADDED),
    clean("DSC208", "dflash-mask-99", profile="sglang-dflash", tensors=SG_BLOCK_LAYERS,
          config={**DFLASH, "dflash_config": {"mask_token_id": 99}}, exactly=()),
    # DSC208 is the drafter-embedding bound: SGLang embeds the mask with the target's
    clean("DSC208", "sglang-bounds-by-the-target", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "mask_token_id": 120}, target=ET128_PADDED),
    # DSC109: dspark_config.py:277-289 (dict.get: a present null is taken)
    fires("DSC109", "sglang-dspark-nested-null", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "dflash_config": {"mask_token_id": None}},
          says="dflash_config.mask_token_id is null"),
    # text_config.mask_token_id: a key the config parser does not read, but SGLang does
    clean("DSC109", "sglang-dspark-text-config-mask", profile="sglang-dspark", tensors=DSPARK_OK,
          config={**SG_DSPARK, "mask_token_id": None, "text_config": {"mask_token_id": 3}}),
    fires("DSC109", "sglang-dspark-text-config-null", profile="sglang-dspark",
          tensors=DSPARK_OK, config={**SG_DSPARK, "mask_token_id": 3,
                                     "text_config": {"mask_token_id": None}},
          says="text_config.mask_token_id is null"),
    clean("DSC109", "sglang-dspark-prefixed-null-falls-through", profile="sglang-dspark",
          tensors=DSPARK_OK, config={**SG_DSPARK, "dspark_noise_token_id": None}),
    # DSC604: no speculators translation for DFlash / DSpark either
    fires("DSC604", "sglang-dflash-speculators", profile="sglang-dflash",
          config={**DFLASH, "speculators_model_type": "dflash"}, tensors=SG_BLOCK_LAYERS,
          says="speculators-format config", hint="SpecForge-format config"),
    clean("DSC604", "sglang-dflash-specforge-config", profile="sglang-dflash", config=DFLASH,
          tensors=SG_BLOCK_LAYERS),
    # DSC687: llama.py:933-936 (default ids), llama_eagle3.py:156-161 (fc's count);
    # spec_aux_hidden_state.py:260-274 (DSpark's runner ids)
    fires("DSC687", "eagle3-num-aux-3-ids-2", profile="sglang-eagle3", target=N8,
          config={**EAGLE3, "num_aux_hidden_states": 3}, tensors={**EAGLE3_OK, **fc(3)},
          says="feeds fc 2 target hidden states (eagle_config.eagle_aux_hidden_state_layer_ids"),
    fires("DSC687", "eagle3-default-ids-3-fc-2", profile="sglang-eagle3", target=N8,
          config={**EAGLE3, "num_aux_hidden_states": 2, "eagle_config": None},
          tensors=EAGLE3_OK, says="entering layers [2, 4, 5]"),
    fires("DSC687", "dspark-prefixed-ids", profile="sglang-dspark", target=N8,
          config={**SG_DSPARK, "dspark_target_layer_ids": [0, 1, 2]}, tensors=DSPARK_OK,
          says="dspark_target_layer_ids [0, 1, 2]", hint="as dspark_target_layer_ids"),
    clean("DSC687", "eagle3-ids-2-fc-2", profile="sglang-eagle3", target=N8, config=EAGLE3,
          tensors=EAGLE3_OK, exactly=()),
    clean("DSC687", "eagle3-default-ids-fc-3", profile="sglang-eagle3", target=N8,
          config={**EAGLE3, "eagle_config": None}, tensors={**EAGLE3_OK, **fc(3)},
          exactly=("DSC671",)),  # the default fed, as many as fc takes: a warning
    clean("DSC687", "dflash-default-ids", profile="sglang-dflash", target=N8,
          config={**DFLASH, "target_layer_ids": None}, tensors={**SG_BLOCK_LAYERS, **fc(1)},
          exactly=("DSC671",)),
    # more draft layers than the target's inner boundaries (layers - 1 >= N - 4): every
    # state of 2 .. N - 2 once, fewer than the layers fc counts
    fires("DSC687", "dflash-default-3-layers-on-5", profile="sglang-dflash", target=N5,
          **dflash_default(3, 3), says="entering layers [2, 3]"),
    clean("DSC687", "dflash-default-2-layers-on-5", profile="sglang-dflash", target=N5,
          **dflash_default(2, 2)),
    # a target of fewer than 4 layers for more than one draft layer: not modelled
    clean("DSC687", "dflash-default-2-layers-on-3", profile="sglang-dflash", target=N3,
          **dflash_default(2, 2)),
    # SGLang issue #39087: a quantised drafter's fc. SGLang's DFlash (and DSpark, its
    # subclass) builds fc as a plain nn.Linear (dflash.py:685, 706-707, 762-774) and skips the
    # names it has no parameter for (943-946): fc.weight_packed, ... load into nothing and fc
    # keeps its initial values; the decoder layers' linears are built with quant_config
    fires("DSC652", "dflash-packed-fc-never-loaded", profile="sglang-dflash", config=QDFLASH,
          tensors={**SG_BLOCK_LAYERS, **PACKED_LAYERS, **PACKED_FC}, says="(fc.weight): "
          "SGLang loads what it is given", exactly=("DSC652", "DSC666"),
          verdicts={"sglang-dflash": False, "vllm-dflash": True}),
    clean("DSC652", "dflash-plain-fc-packed-layers", profile="sglang-dflash", config=QDFLASH,
          tensors={**SG_BLOCK_LAYERS, **PACKED_LAYERS}, exactly=(),
          verdicts={"sglang-dflash": True}),
    # vLLM builds fc as a ReplicatedLinear given the draft's quant_config (qwen3_dflash.py:477-485)
    clean("DSC652", "vllm-dflash-packed-fc-loads", profile="vllm-dflash", config=QDFLASH,
          tensors={**SG_BLOCK_LAYERS, **PACKED_LAYERS, **PACKED_FC}, exactly=()),
    fires("DSC652", "dspark-packed-fc-never-loaded", profile="sglang-dspark",
          config={**SG_DSPARK, "quantization_config": CT},
          tensors={**DSPARK_OK, **PACKED_LAYERS, **PACKED_FC}, says="(fc.weight)"),
    fires("DSC652", "eagle3-packed-fc-never-loaded", profile="sglang-eagle3",
          config={**EAGLE3, "quantization_config": CT},
          tensors={**EAGLE3_OK, **PACKED_FC}, says="(fc.weight)"),
    # a layer's linear with no tensor at all is missing on a quantised drafter too
    fires("DSC652", "dflash-packed-layer-missing", profile="sglang-dflash", config=QDFLASH,
          tensors={**SG_BLOCK_LAYERS, **PACKED_LAYERS, "layers.0.mlp.down_proj.weight_packed": DROP,
                   "layers.0.mlp.down_proj.weight_scale": DROP,
                   "layers.0.mlp.down_proj.weight_shape": DROP},
          says="(layers.0.mlp.down_proj.weight)"),
    # the Nemotron 3.5 layout: SGLang builds its fc with quant_config (dflash.py:762-770)
    clean("DSC652", "dflash-nemotron35-packed-fc-loads", profile="sglang-dflash",
          config=NEMOTRON, tensors={**SG_BLOCK_LAYERS, **PACKED_LAYERS, **PACKED_FC}),
    fires("DSC652", "dflash-nemotron35-no-embed-flag", profile="sglang-dflash",
          config={**NEMOTRON, "has_embed_tokens": None},
          tensors={**SG_BLOCK_LAYERS, **PACKED_LAYERS, **PACKED_FC}, says="(fc.weight)"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)
