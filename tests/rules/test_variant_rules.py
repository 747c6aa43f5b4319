"""The DFlash variant architectures (profiles/variants.py): vLLM 0.33.0's XPress and DFlash2
models and SGLang 0.5.23's DFlash2, each judged by its own profile (DSC690-DSC692, and the
loader model's DSC112 / DSC652 / DSC666 over the modules each builds beyond DFlash's), firing
rows and their clean twins, in-process through the engine. Each row's comment names the
source line that decides it.

The drafter is synth.py's DFlash backbone (hidden 8, one layer, Vt 100) with the variant's
own tensors: XPress's refiner head (rank 4, an 8-wide MLP), DFlash2's candidate selector
(rank 4) and each layer's grouped convolutions (3 taps, groups of 4)."""

from __future__ import annotations

import pytest
from gemma4_assistant import gemma4_assistant
from rules_harness import (
    DROP,
    SG_BLOCK_LAYERS,
    check,
    clean,
    fires,
    head,
    ids,
    mapping,
    zeros,
)
from synth import VT, H, markov
from test_variant_k3 import K3, K3_OK
from test_variant_minimax import DOWN, MINIMAX, MINIMAX_OK
from test_variant_muse_spark import MUSE, MUSE_OK

from dspark_ckpt.profiles.registry import PROFILES, applicable_profiles
from dspark_ckpt.profiles.variants import NOT_JUDGED, VARIANTS
from dspark_ckpt.profiles.vllm_variants import LILICORR_TENSORS

R = 4
# the family's own architecture: a DFlash drafter that ships a variant's parts
AS_DFLASH = {"architectures": ["DFlashDraftModel"]}
XPRESS = {"architectures": ["Qwen3XPressModel"], "model_type": "qwen3", "markov_rank": None}
XPRESS_HEAD = {
    "xpress_head.mix.L": zeros("F32", (16, 16)),
    "xpress_head.w1.weight": zeros("F32", (VT, R)),
    "xpress_head.down_h.weight": zeros("F32", (R, H)),
    "xpress_head.down_g.weight": zeros("F32", (R, H)),
    "xpress_head.in_proj.weight": zeros("F32", (R, 3 * R)),
    "xpress_head.w2.weight": zeros("F32", (VT, R)),
    "xpress_head.mlp.gate_proj.weight": zeros("F32", (8, R)),
    "xpress_head.mlp.up_proj.weight": zeros("F32", (8, R)),
    "xpress_head.mlp.down_proj.weight": zeros("F32", (R, 8)),
}
# the same head under vLLM's own names (XPressRefinerHead.HYBRID_KEY_MAP passes them through)
XPRESS_NATIVE = {
    k.replace("mlp.", "mlp_").replace("_proj.", ".") if ".mlp." in k else k: v
    for k, v in XPRESS_HEAD.items()
}
SELECTOR = {
    "candidate_selector.predecessor_codebook": zeros("F32", (VT, R)),
    "candidate_selector.successor_codebook": zeros("F32", (VT, R)),
    "candidate_selector.hidden_projection.weight": zeros("F32", (R, H)),
}
CONV = {
    f"layers.0.{conv}.{name}": zeros("F32", shape)
    for conv in ("attention_conv", "mlp_conv")
    for name, shape in (("base_kernel", (2, 3, H)), ("kernel_projection.weight", (12, H)))
}
DFLASH2_KEYS = {
    "selector_rank": R,
    "selector_top_k": 2,
    "conv_kernel_size": 3,
    "conv_group_size": 4,
}
DFLASH2 = {
    "architectures": ["DFlash2DraftModel"],
    "model_type": "qwen3",
    "dflash_config": DFLASH2_KEYS,
}
DFLASH2_OK = {**SELECTOR, **CONV, **SG_BLOCK_LAYERS}
NO_CONV = {k: v for k, v in DFLASH2_KEYS.items() if not k.startswith("conv")}
# vLLM's DFlash2 for Beam targets: sliding-attention layers, every dflash_config key read
BEAM = {
    **DFLASH2,
    "architectures": ["DFlash2BeamDraftModel"],
    "dflash_config": {**DFLASH2_KEYS, "target_layer_ids": [0, 1], "final_logit_softcapping": 30.0},
    "layer_types": ["sliding_attention"],
}
# vLLM's LiLiCorr: DFlash with a lattice correction head, every parameter of which it requires
LILI_KEYS = ("candidate_topk", "num_heads", "mlp_ratio", "factor_dim", "vector_eps")
LILICORR = {
    **XPRESS,
    "architectures": ["LiLiCorrDraftModel"],
    "dflash_config": {
        **{f"lilicorr_{k}": 2 for k in LILI_KEYS},
        "lilicorr_logit_scale": 1.0,
        "lilicorr_num_layers": 1,
        "lilicorr_hidden_size": None,
        "block_size": 4,
    },
}
LILI_HEAD = {name: zeros("F32", (H,)) for name in LILICORR_TENSORS}
LILI_CONV = {"dflash_config": {**LILICORR["dflash_config"], "conv_kernel_size": 3,
                               "conv_group_size": 4}}  # fmt: skip
# vLLM's Laguna DFlash: Laguna layers (q/k/v stored fused, its load has no renames), one norm
# per target hidden state
LAGUNA = {
    **XPRESS,
    "architectures": ["DFlashLagunaForCausalLM"],
    "model_type": "laguna",
    "layer_types": ["full_attention"],
    "mlp_layer_types": ["dense"],
    "dflash_config": {"target_layer_ids": [0, 1]},
}
LAGUNA_LAYER = {
    **{f"layers.0.self_attn.{m}_proj.weight": DROP for m in "qkv"},
    "layers.0.self_attn.qkv_proj.weight": zeros("F32", (3 * H, H)),
    **{f"aux_hidden_norms.{i}.weight": zeros("F32", (H,)) for i in (0, 1)},
}
# SGLang's LiLiCorr: every lilicorr_* key, lilicorr_hidden_size included (0: the draft's width)
SG_LILICORR = {
    **LILICORR,
    "dflash_config": {**LILICORR["dflash_config"], "lilicorr_hidden_size": 0},
}
SG_LILI_OK = {**LILI_HEAD, **SG_BLOCK_LAYERS}
# SGLang's Laguna DFlash: the DFlash layout with a gate per layer and two aux norms
SG_LAGUNA = {**LAGUNA, "dflash_config": {"target_layer_ids": [1, 2]}}
SG_LAGUNA_OK = {
    **SG_BLOCK_LAYERS,
    "layers.0.self_attn.g_proj.weight": zeros("F32", (2, H)),
    **{f"aux_hidden_norms.{i}.weight": zeros("F32", (H,)) for i in (0, 1)},
}
# vLLM's Gemma 4 DSpark drafter: K is also V in every (full-attention) layer, so no v_proj,
# and Gemma 4's two feed-forward norms
GEMMA4 = {
    "architectures": ["Gemma4DSparkModel"],
    "model_type": "gemma4_text",
    "attention_k_eq_v": True,
    "layer_types": ["full_attention"],
}
GEMMA4_LAYER = {
    "layers.0.self_attn.v_proj.weight": DROP,
    "layers.0.pre_feedforward_layernorm.weight": zeros("F32", (H,)),
    "layers.0.post_feedforward_layernorm.weight": zeros("F32", (H,)),
}

CASES = [
    # DSC690: vLLM qwen3_dflash2.py:253-254,385-386 (int(draft_config[...]), no default)
    fires("DSC690", "vllm-dflash2-no-selector-rank", profile="vllm-dflash2",
          config={**DFLASH2, "dflash_config": {**DFLASH2_KEYS, "selector_rank": None}},
          tensors=DFLASH2_OK, says="dflash_config.selector_rank is not set", exactly=("DSC690",)),
    fires("DSC690", "vllm-dflash2-no-dflash-config", profile="vllm-dflash2",
          config={**DFLASH2, "dflash_config": None}, tensors=DFLASH2_OK,
          says="dflash_config.conv_kernel_size"),
    clean("DSC690", "vllm-dflash2-keys-set", profile="vllm-dflash2", config=DFLASH2,
          tensors=DFLASH2_OK, exactly=()),
    # SGLang dflash.py:1270-1272 (`if not draft_config.selector_rank`), dflash_utils.py:645-649
    fires("DSC690", "sglang-dflash2-selector-rank-0", profile="sglang-dflash2",
          config={**DFLASH2, "dflash_config": {**DFLASH2_KEYS, "selector_rank": 0}},
          tensors=DFLASH2_OK, says="dflash_config.selector_rank is 0"),
    clean("DSC690", "sglang-dflash2-keys-set", profile="sglang-dflash2", config=DFLASH2,
          tensors=DFLASH2_OK, exactly=()),
    clean("DSC690", "sglang-dflash-reads-no-selector", profile="sglang-dflash",
          config={**DFLASH2, "architectures": ["DFlashDraftModel"], "dflash_config": None},
          tensors=SG_BLOCK_LAYERS, exactly=()),
    # vLLM gemma4_dspark.py:212-214 (assert all(a.use_k_eq_v ...), use_k_eq_v: a full-attention
    # layer with attention_k_eq_v, 45-48)
    fires("DSC690", "vllm-gemma4-dspark-k-not-v", profile="vllm-gemma4-dspark",
          config={**GEMMA4, "attention_k_eq_v": False}, tensors=GEMMA4_LAYER,
          says="attention_k_eq_v is False", exactly=("DSC690",)),
    fires("DSC690", "vllm-gemma4-dspark-sliding-layer", profile="vllm-gemma4-dspark",
          config={**GEMMA4, "layer_types": ["sliding_attention"]}, tensors=GEMMA4_LAYER,
          says="not full_attention in every entry"),
    clean("DSC690", "vllm-gemma4-dspark-k-is-v", profile="vllm-gemma4-dspark", config=GEMMA4,
          tensors=GEMMA4_LAYER, exactly=()),
    # vLLM beam/nvidia/dflash2.py:563-566 (float(draft_config["final_logit_softcapping"])), 79
    # (assert config.layer_types[layer_idx] == "sliding_attention")
    fires("DSC690", "vllm-dflash2-beam-no-softcap", profile="vllm-dflash2-beam",
          config={**BEAM, "dflash_config": {**BEAM["dflash_config"],
                                            "final_logit_softcapping": None}},
          tensors=DFLASH2_OK, says="dflash_config.final_logit_softcapping is not set",
          exactly=("DSC690",)),
    fires("DSC690", "vllm-dflash2-beam-full-attention", profile="vllm-dflash2-beam",
          config={**BEAM, "layer_types": ["full_attention"]}, tensors=DFLASH2_OK,
          says="layer_types is ['full_attention'], not sliding_attention"),
    clean("DSC690", "vllm-dflash2-beam-keys-set", profile="vllm-dflash2-beam", config=BEAM,
          tensors=DFLASH2_OK, exactly=()),
    # vLLM lilicorr.py:142-154, 213 (config["lilicorr_..."], no default)
    fires("DSC690", "vllm-lilicorr-no-layer-count", profile="vllm-lilicorr",
          config={**LILICORR, "dflash_config": {**LILICORR["dflash_config"],
                                                "lilicorr_num_layers": None}},
          tensors=LILI_HEAD, says="dflash_config.lilicorr_num_layers is not set",
          exactly=("DSC690",)),
    clean("DSC690", "vllm-lilicorr-keys-set", profile="vllm-lilicorr", config=LILICORR,
          tensors=LILI_HEAD, exactly=()),
    # lilicorr.py:512-520, 539-543 ('LiLiCorr checkpoint coverage mismatch')
    fires("DSC691", "vllm-lilicorr-no-slot-bias", profile="vllm-lilicorr", config=LILICORR,
          tensors={**LILI_HEAD, "lilicorr.same_slot_bias": DROP},
          says="lilicorr.same_slot_bias is not in the checkpoint", exactly=("DSC691",)),
    fires("DSC691", "vllm-lilicorr-no-head", profile="vllm-lilicorr", config=LILICORR,
          says="and 31 more are not in the checkpoint"),
    clean("DSC691", "vllm-lilicorr-whole", profile="vllm-lilicorr", config=LILICORR,
          tensors=LILI_HEAD, exactly=()),
    # vLLM laguna_dflash.py:45-58 (layer_types), laguna.py:517-519 (an MoE layer: LagunaMoE,
    # whose experts this load_weights cannot load)
    fires("DSC690", "vllm-laguna-no-layer-types", profile="vllm-laguna",
          config={**LAGUNA, "layer_types": None}, tensors=LAGUNA_LAYER,
          says="layer_types is not set", exactly=("DSC690",)),
    fires("DSC690", "vllm-laguna-moe-layer", profile="vllm-laguna",
          config={**LAGUNA, "mlp_layer_types": ["sparse"]}, tensors=LAGUNA_LAYER,
          says="mlp_layer_types is ['sparse'], not dense"),
    clean("DSC690", "vllm-laguna-keys-set", profile="vllm-laguna", config=LAGUNA,
          tensors=LAGUNA_LAYER, exactly=()),
    # SGLang lilicorr_utils.py:55-60 (no default: null is no int either, 61-66)
    fires("DSC690", "sglang-lilicorr-null-hidden-size", profile="sglang-lilicorr",
          config=LILICORR, tensors=SG_LILI_OK, says="dflash_config.lilicorr_hidden_size is not set",
          exactly=("DSC690",)),
    clean("DSC690", "sglang-lilicorr-keys-set", profile="sglang-lilicorr", config=SG_LILICORR,
          tensors=SG_LILI_OK, exactly=()),
    # SGLang lilicorr.py:459-476, 568 ('LiLiCorr checkpoint is missing ... head parameters')
    fires("DSC691", "sglang-lilicorr-no-in-head-bias", profile="sglang-lilicorr",
          config=SG_LILICORR, tensors={**SG_LILI_OK, "lilicorr.in_head.bias": DROP},
          says="lilicorr.in_head.bias is not in the checkpoint", exactly=("DSC691",)),
    # DSC691: qwen3_xpress.py:352-353 ('XPress checkpoint is missing xpress_head.mix.L')
    fires("DSC691", "vllm-xpress-no-mix-L", profile="vllm-xpress", config=XPRESS,
          tensors={**XPRESS_HEAD, "xpress_head.mix.L": DROP}, says="xpress_head.mix.L",
          exactly=("DSC691",)),
    clean("DSC691", "vllm-xpress-whole", profile="vllm-xpress", config=XPRESS,
          tensors=XPRESS_HEAD, exactly=()),
    clean("DSC691", "vllm-xpress-native-names", profile="vllm-xpress", config=XPRESS,
          tensors=XPRESS_NATIVE, exactly=()),
    # DSC692: qwen3_xpress.py:299-304 ('XPress currently requires a full-vocab draft')
    fires("DSC692", "vllm-xpress-pruned", profile="vllm-xpress", config=XPRESS, draft=40,
          tensors={**XPRESS_HEAD, **mapping(40)}, says="Vd 40 is not the target's Vt 100"),
    clean("DSC692", "vllm-xpress-full-vocab", profile="vllm-xpress", config=XPRESS,
          tensors=XPRESS_HEAD, exactly=()),
    # lilicorr.py:472-473 ('LiLiCorr candidates require the full target vocabulary')
    fires("DSC692", "vllm-lilicorr-pruned", profile="vllm-lilicorr", config=LILICORR, draft=40,
          tensors={**LILI_HEAD, **mapping(40), "lm_head.weight": head(40)},
          says="Vd 40 is not the target's Vt 100"),
    # laguna_dflash.py:250-256 ('requires `draft_vocab_size` to match the target vocabulary')
    fires("DSC692", "vllm-laguna-pruned", profile="vllm-laguna", config=LAGUNA, draft=40,
          tensors={**LAGUNA_LAYER, **mapping(40), "lm_head.weight": head(40)},
          says="Vd 40 is not the target's Vt 100"),
    # (the same drafter named as the DFlash class: the DFlash model takes a pruned vocab)
    clean("DSC692", "vllm-dflash-pruned", profile="vllm-dflash", config={**XPRESS, **AS_DFLASH},
          draft=40, tensors=mapping(40)),
    # the loader model: the refiner head is the XPress model's (qwen3_xpress.py:255-264), not
    # the DFlash model's (models/utils.py:443 'There is no module or parameter named')
    fires("DSC112", "vllm-dflash-has-no-xpress-head", profile="vllm-dflash",
          config={**XPRESS, **AS_DFLASH}, tensors=XPRESS_HEAD, says="xpress_head.down_g.weight"),
    fires("DSC112", "vllm-xpress-stray-head-name", profile="vllm-xpress", config=XPRESS,
          tensors={**XPRESS_HEAD, "xpress_head.gate.weight": zeros("F32", (R, R))},
          says="xpress_head.gate.weight", exactly=("DSC112",)),
    # XPress's load_weights has no mapper that drops fc without aux states (qwen3_xpress.py:340)
    fires("DSC112", "vllm-xpress-fc-without-aux-states", profile="vllm-xpress",
          config={**XPRESS, "use_aux_hidden_state": False}, tensors=XPRESS_HEAD,
          says="(fc.weight)"),
    clean("DSC112", "vllm-dflash-fc-without-aux-states", profile="vllm-dflash",
          config={**XPRESS, "architectures": ["DFlashDraftModel"], "use_aux_hidden_state": False}),
    # Beam's DFlash2 has no lm_head module and loads through the inner model's
    # AutoWeightsLoader (dflash2.py:537-547, 619-623): a shipped head fails the load
    fires("DSC112", "vllm-dflash2-beam-ships-lm-head", profile="vllm-dflash2-beam", config=BEAM,
          tensors={**DFLASH2_OK, "lm_head.weight": head(VT)}, says="(lm_head.weight)",
          exactly=("DSC112",)),
    clean("DSC112", "vllm-dflash2-ships-lm-head", profile="vllm-dflash2", config=DFLASH2,
          tensors={**DFLASH2_OK, "lm_head.weight": head(VT)}),
    # ... and no midlayer / encoder.* names (its mapper stacks q/k/v and gate/up only: 310-318)
    fires("DSC112", "vllm-dflash2-beam-encoder-fc", profile="vllm-dflash2-beam", config=BEAM,
          tensors={**DFLASH2_OK, "fc.weight": DROP, "encoder.fc.weight": zeros("F32", (H, 2 * H))},
          says="encoder.fc.weight"),
    clean("DSC112", "vllm-dflash2-encoder-fc", profile="vllm-dflash2", config=DFLASH2,
          tensors={**DFLASH2_OK, "fc.weight": DROP, "encoder.fc.weight": zeros("F32", (H, 2 * H))},
          exactly=()),
    # the correction head is LiLiCorr's (lilicorr.py:453-462), no name of the DFlash model
    fires("DSC112", "vllm-dflash-has-no-lilicorr-head", profile="vllm-dflash",
          config={**LILICORR, **AS_DFLASH}, tensors=LILI_HEAD, says="lilicorr."),
    # Laguna's load_weights: params_dict[name] (laguna_dflash.py:225-233), no stacking of
    # q/k/v into qkv_proj and no mapper dropping mask_embedding
    fires("DSC112", "vllm-laguna-unfused-qkv", profile="vllm-laguna", config=LAGUNA,
          tensors={**LAGUNA_LAYER, "layers.0.self_attn.qkv_proj.weight": DROP,
                   **{f"layers.0.self_attn.{m}_proj.weight": zeros("F32", (H, H)) for m in "qkv"}},
          says="layers.0.self_attn.k_proj.weight"),
    fires("DSC112", "vllm-laguna-mask-embedding", profile="vllm-laguna", config=LAGUNA,
          tensors={**LAGUNA_LAYER, "mask_embedding": zeros("F32", (H,))}, says="mask_embedding",
          exactly=("DSC112",)),
    clean("DSC112", "vllm-dflash-drops-mask-embedding", profile="vllm-dflash",
          config={**LAGUNA, "architectures": ["DFlashDraftModel"]},
          tensors={"mask_embedding": zeros("F32", (H,))}, exactly=()),
    # the output gate where the config turns it on (laguna.py:331-342)
    fires("DSC652", "vllm-laguna-gate-not-shipped", profile="vllm-laguna",
          config={**LAGUNA, "gating": True}, tensors=LAGUNA_LAYER,
          says="layers.0.self_attn.g_proj", exactly=("DSC652",)),
    clean("DSC652", "vllm-laguna-gate-shipped", profile="vllm-laguna",
          config={**LAGUNA, "gating": True},
          tensors={**LAGUNA_LAYER, "layers.0.self_attn.g_proj.weight": zeros("F32", (2, H))},
          exactly=()),
    fires("DSC652", "vllm-laguna-no-aux-norms", profile="vllm-laguna", config=LAGUNA,
          tensors={**LAGUNA_LAYER, **{f"aux_hidden_norms.{i}.weight": DROP for i in (0, 1)}},
          says="aux_hidden_norms"),
    # DSC652: what the model builds and nothing loads stays uninitialised
    fires("DSC652", "vllm-xpress-no-w2", profile="vllm-xpress", config=XPRESS,
          tensors={**XPRESS_HEAD, "xpress_head.w2.weight": DROP}, says="(xpress_head.w2)"),
    fires("DSC652", "vllm-dflash2-half-a-selector", profile="vllm-dflash2", config=DFLASH2,
          tensors={**DFLASH2_OK, "candidate_selector.successor_codebook": DROP},
          says="(candidate_selector.successor_codebook)", exactly=("DSC652",)),
    fires("DSC652", "sglang-dflash2-no-conv", profile="sglang-dflash2", config=DFLASH2,
          tensors={**SELECTOR, **SG_BLOCK_LAYERS}, says="layers.0.attention_conv.base_kernel"),
    # LiLiCorr builds DFlash2's convolutional layers where dflash_config sets conv_kernel_size
    # (lilicorr.py:444-450), and requires their weights (lilicorr.py:512-520)
    fires("DSC652", "vllm-lilicorr-conv-without-weights", profile="vllm-lilicorr",
          config={**LILICORR, **LILI_CONV}, tensors=LILI_HEAD,
          says="layers.0.attention_conv"),
    clean("DSC652", "vllm-lilicorr-conv-with-weights", profile="vllm-lilicorr",
          config={**LILICORR, **LILI_CONV}, tensors={**LILI_HEAD, **CONV}, exactly=()),
    # SGLang builds the convolutions only where dflash_config sets them (dflash.py:719)
    clean("DSC652", "sglang-dflash2-no-conv-configured", profile="sglang-dflash2",
          config={**DFLASH2, "dflash_config": NO_CONV}, tensors={**SELECTOR, **SG_BLOCK_LAYERS},
          exactly=()),
    # vLLM's Gemma 4 DSpark layer (gemma4_mtp.py:297-302): its feed-forward norms uninitialised
    fires("DSC652", "vllm-gemma4-dspark-no-ffn-norm", profile="vllm-gemma4-dspark",
          config=GEMMA4, tensors={**GEMMA4_LAYER, "layers.0.pre_feedforward_layernorm.weight": DROP},
          says="layers.0.pre_feedforward_layernorm", exactly=("DSC652",)),
    # ... which the Qwen3 DSpark model does not have: refused there (models/utils.py:443)
    fires("DSC112", "vllm-dspark-has-no-ffn-norm", profile="vllm",
          config={**GEMMA4, "architectures": ["Qwen3DSparkModel"]}, tensors=GEMMA4_LAYER,
          says="pre_feedforward_layernorm"),
    # DSC601: its own lm_head (gemma4_dspark.py:297-301), the target's only when Vd == Vt
    # (spec_decode/dspark/utils.py:142-149): a pruned drafter without one runs on memory
    fires("DSC601", "vllm-gemma4-dspark-pruned-no-head", profile="vllm-gemma4-dspark",
          config=GEMMA4, draft=40, tensors=GEMMA4_LAYER, says="its own stays uninitialised"),
    clean("DSC601", "vllm-gemma4-dspark-pruned-own-head", profile="vllm-gemma4-dspark",
          config=GEMMA4, draft=40, tensors={**GEMMA4_LAYER, "lm_head.weight": head(VT)}),
    clean("DSC601", "vllm-gemma4-dspark-full-vocab-shares", profile="vllm-gemma4-dspark",
          config=GEMMA4, tensors=GEMMA4_LAYER),
    # DSC666: Gemma 4 DSpark's load_weights skips a name it has no parameter for
    # (gemma4_dspark.py:315-323 `if name in params:`): v_proj is not built where K is V
    fires("DSC666", "vllm-gemma4-dspark-v-proj-skipped", profile="vllm-gemma4-dspark",
          config=GEMMA4, tensors={**GEMMA4_LAYER, "layers.0.self_attn.v_proj.weight": zeros(
              "F32", (H, H))}, says="layers.0.self_attn.v_proj.weight", exactly=("DSC666",)),
    # SGLang dflash.py:1016-1027: the gate is built unless gating is set false (default True)
    fires("DSC652", "sglang-laguna-no-gate", profile="sglang-laguna", config=SG_LAGUNA,
          tensors={**SG_LAGUNA_OK, "layers.0.self_attn.g_proj.weight": DROP},
          says="layers.0.self_attn.g_proj.weight", exactly=("DSC652",)),
    clean("DSC652", "sglang-laguna-gating-off", profile="sglang-laguna",
          config={**SG_LAGUNA, "gating": False},
          tensors={**SG_LAGUNA_OK, "layers.0.self_attn.g_proj.weight": DROP}, exactly=()),
    # dflash.py:1067: one norm per target hidden state, left at its initial value without it
    fires("DSC652", "sglang-laguna-one-aux-norm", profile="sglang-laguna", config=SG_LAGUNA,
          tensors={**SG_LAGUNA_OK, "aux_hidden_norms.1.weight": DROP},
          says="aux_hidden_norms.1.weight"),
    # the head's other parameters (a second lattice layer) are its own: loaded, not skipped
    clean("DSC666", "sglang-lilicorr-second-head-layer", profile="sglang-lilicorr",
          config=SG_LILICORR,
          tensors={**SG_LILI_OK, "lilicorr.layers.1.attn_norm.weight": zeros("F32", (H,))},
          exactly=()),
    fires("DSC666", "sglang-dflash-has-no-lilicorr-head", profile="sglang-dflash",
          config={**SG_LILICORR, **AS_DFLASH}, tensors=SG_LILI_OK, says="lilicorr."),
    # ... which the base DFlash model does not have: skipped
    fires("DSC666", "sglang-dflash-has-no-laguna-gate", profile="sglang-dflash",
          config={**SG_LAGUNA, **AS_DFLASH}, tensors=SG_LAGUNA_OK, says="g_proj"),
    clean("DSC666", "sglang-laguna-has-its-gate", profile="sglang-laguna", config=SG_LAGUNA,
          tensors=SG_LAGUNA_OK, exactly=()),
    # DSC666: the base SGLang DFlash model has no candidate selector: skipped
    fires("DSC666", "sglang-dflash-has-no-selector", profile="sglang-dflash",
          config={**DFLASH2, **AS_DFLASH}, tensors=DFLASH2_OK, says="candidate_selector"),
    clean("DSC666", "sglang-dflash2-has-its-selector", profile="sglang-dflash2", config=DFLASH2,
          tensors=DFLASH2_OK, exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


def test_each_variant_maps_to_a_profile_of_its_runtime_and_none_is_also_unjudged():
    """VARIANTS names registered profiles of the runtime it is keyed by; no architecture is
    both judged and given a reason not to be."""
    runtimes = {"vllm": "vLLM", "sglang": "SGLang"}
    for (runtime, arch), name in VARIANTS.items():
        assert PROFILES[name].runtime == runtimes[runtime], (runtime, arch, name)
    assert not set(VARIANTS) & set(NOT_JUDGED)
    assert all(runtime in runtimes and why for (runtime, _), why in NOT_JUDGED.items())


def test_variant_counts():
    """docs/profiles.md's counts: 27 variant architectures (vLLM 15, SGLang 12), 25 judged, and
    each of the 2 others unjudged for a reason that names the source lines it was read from."""
    every = [*VARIANTS, *NOT_JUDGED]
    assert len(every) == 27 and len(VARIANTS) == 25
    assert sum(r == "vllm" for r, _ in every) == 15 and sum(r == "sglang" for r, _ in every) == 12
    assert all(".py:" in why for why in NOT_JUDGED.values())


def test_a_variant_profile_judges_only_when_asked(bench):
    """A variant's own profile is not one of its family's (a DFlash drafter keeps the verdicts
    it had); a drafter naming the variant's architecture is judged by it (``route``), one
    naming the family's class never is."""
    assert not {"vllm-dflash2", "vllm-xpress", "sglang-dflash2"} & set(
        applicable_profiles("dflash")
    )
    family = bench.case({**XPRESS, **AS_DFLASH}, XPRESS_HEAD, profile=None)
    assert family.profile == "vllm-dflash" and "vllm-xpress" not in family.verdicts
    assert family.verdicts["vllm-dflash"] is False  # the DFlash model has no refiner head
    named = bench.case(XPRESS, XPRESS_HEAD, profile=None)
    assert named.profile == "vllm-xpress" and named.verdicts["vllm-xpress"] is True
    assert "vllm-dflash" not in named.verdicts  # not the model vLLM builds for it
    # a drafter naming the family's class is never built as the variant: asking for the
    # variant's profile judges nothing (as for a profile of another family)
    asked = bench.case({**XPRESS, **AS_DFLASH}, XPRESS_HEAD, profile="vllm-xpress")
    assert asked.profile == "vllm-dflash" and "vllm-xpress" not in asked.verdicts


# each profile VARIANTS names, with the layout of a drafter its model loads whole
LAYOUTS = {
    "vllm": ({}, {}),
    "vllm-dflash": ({"model_type": "qwen3", "markov_rank": None}, {}),
    "sglang-dspark": ({"markov_head_type": "vanilla"}, {**markov(VT, VT), **SG_BLOCK_LAYERS}),
    "sglang-dflash": ({"markov_rank": None}, SG_BLOCK_LAYERS),
    "vllm-xpress": (XPRESS, XPRESS_HEAD),
    "vllm-dflash2": (DFLASH2, DFLASH2_OK),
    "sglang-dflash2": (DFLASH2, DFLASH2_OK),
    "vllm-gemma4-dspark": (GEMMA4, GEMMA4_LAYER),
    "vllm-dflash2-beam": (BEAM, DFLASH2_OK),
    "vllm-lilicorr": (LILICORR, LILI_HEAD),
    "vllm-laguna": (LAGUNA, LAGUNA_LAYER),
    "sglang-laguna": (SG_LAGUNA, SG_LAGUNA_OK),
    "sglang-lilicorr": (SG_LILICORR, SG_LILI_OK),
    "sglang-dspark-minimax": (MINIMAX, MINIMAX_OK),
    "vllm-k3-dspark": (K3, K3_OK),
    "sglang-gemma4-assistant": gemma4_assistant(VT, H),
    "vllm-gemma4-assistant": gemma4_assistant(VT, H),
    "vllm-muse-spark-dspark": (MUSE, MUSE_OK),
}
# where a layout's decoder layer stores its down projection (the weight each drops)
DOWNS = {
    "sglang-dspark-minimax": DOWN,
    "sglang-gemma4-assistant": "model.layers.0.mlp.down_proj.weight",
    "vllm-gemma4-assistant": "model.layers.0.mlp.down_proj.weight",
    "vllm-muse-spark-dspark": "layers.0.feed_forward.down_proj.weight",
}
MAPPED = sorted(VARIANTS.items())


@pytest.mark.parametrize("key,profile", MAPPED, ids=[f"{r}-{a}" for (r, a), _ in MAPPED])
def test_each_variant_is_judged_by_its_profile(bench, key, profile):
    """A drafter of each variant architecture, laid out as the model its profile mirrors
    builds it, passes there; without one of its decoder layer's weights it fails (DSC652:
    uninitialised in vLLM, initial values in SGLang, refused by SGLang's M3.1 DSpark)."""
    config, tensors = LAYOUTS[profile]
    config = {**config, "architectures": [key[1]]}
    whole = bench.case(config, tensors, profile=profile)
    assert whole.profile == profile and whole.verdicts[profile] is True, whole.findings
    down = DOWNS.get(profile, "layers.0.mlp.down_proj.weight")
    broken = bench.case(config, {**tensors, down: DROP}, profile=profile)
    assert broken.verdicts[profile] is False
    assert "DSC652" in {f.code for f in broken.findings if f.profile == profile}
