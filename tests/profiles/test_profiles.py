"""Runtime profiles through the real CLI: one passing drafter per profile and one
failing drafter per rule of each profile (real safetensors files, Vt = 100)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import get_args

import eagle1_layers
import numpy as np
import pytest
import synth
from conftest import FIXTURES, cli
from gemma4_assistant import gemma4_assistant
from muse_spark import muse_spark_dspark
from synth import VT, H, T, head, markov, sorted_mapping

from dspark_ckpt.facts.config import path_method
from dspark_ckpt.profiles.cites import form_problem, parse_cites
from dspark_ckpt.profiles.hidden_states import hidden_states
from dspark_ckpt.profiles.registry import COVERED, PROFILES, RULE_FIELDS, applicable_profiles
from dspark_ckpt.profiles.schema import PROFILE_CHOICES, Family
from dspark_ckpt.profiles.vllm_variants import LILICORR_TENSORS

# the name vLLM registers (registry.py:664): DFlashQwen3ForCausalLM is only the class it builds
DFLASH = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3"}
# SpecForge's EAGLE-3 keys: aux ids under eagle_config only (no DSpark target_layer_ids)
EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}
DSPARK = {"markov_rank": 4}
# SpecForge's training config: markov_rank only under dflash_config (markov head unbuilt)
NESTED_RANK = {"markov_rank": None, "dflash_config": {"markov_rank": 4}}
TRT_NESTED = ["DSC107", "DSC112"]  # no top-level markov_rank; its Markov weights unexpected
# SGLang 0.5.23's layouts: a drafter class it registers, every weight its model builds
SG_DSPARK = {**DSPARK, "architectures": ["DSparkDraftModel"], "markov_head_type": "vanilla"}
SG_DFLASH = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3"}
TRT_DFLASH = {**SG_DFLASH, "markov_rank": None}  # synth's drafter declares markov_rank 4
SG_EAGLE3_NULL_VD = {**EAGLE3, "draft_vocab_size": synth.NULL}  # null: the target's head
SG_BLOCK = synth.layer_weights(H)
MINIMAX, MINIMAX_W = synth.minimax_dspark(VT, H)
NO_FC = {"dspark.fc.weight": None}
K3, K3_W = synth.k3_dspark(H)
G4, G4_W = gemma4_assistant(VT, H)
NO_PRE = {"pre_projection.weight": None}
K_PROJ = {"model.layers.0.self_attn.k_proj.weight": T("F32", (H, H))}
NO_CONTEXT = {"context_proj.weight": None}
MUSE, MUSE_W = muse_spark_dspark(H, VT)
SG_EAGLE3 = synth.layer_weights(H, eagle3=True)
FC3 = {"fc.weight": T("F32", (H, 3 * H), np.zeros((H, 3 * H), np.float32))}
# classic EAGLE as vLLM and SGLang name it (the EAGLE release code's drafter: fc with a bias)
_EAGLE1 = {"model_type": "llama", "markov_rank": None, "target_layer_ids": None}
V_EAGLE1 = {**_EAGLE1, "architectures": ["EagleLlamaForCausalLM"]}
S_EAGLE1 = {**_EAGLE1, "architectures": ["LlamaForCausalLMEagle"]}
NO_FC_BIAS = {"fc.bias": None}
# vLLM's classic EAGLE over Llama 4 layers (llama4_eagle.py: the YOCO keys asserted null)
L4_EAGLE1 = {**_EAGLE1, "architectures": ["EagleLlama4ForCausalLM"], "model_type": "llama4_text",
             "yoco_global_kv_layer": synth.NULL, "yoco_local_kv_layer": synth.NULL}  # fmt: skip
MC_EAGLE1 = {**_EAGLE1, "architectures": ["EagleMiniCPMForCausalLM"], "model_type": "minicpm",
             "dim_model_base": 4, "scale_emb": 12, "scale_depth": 1.4}  # fmt: skip
MC_EMBED = {"model.embed_tokens.weight": T("F32", (VT, H))}
CO_EAGLE1 = {**_EAGLE1, "architectures": ["EagleCohereForCausalLM"], "model_type": "cohere"}
# the variant architectures' own profiles (profiles/variants.py): XPress's refiner head,
# DFlash2's candidate selector and grouped convolutions (tests/rules/test_variant_rules.py)
XPRESS = {"architectures": ["Qwen3XPressModel"], "model_type": "qwen3", "markov_rank": None}
XPRESS_HEAD = {
    f"xpress_head.{name}": T("F32", shape)
    for name, shape in (
        ("mix.L", (16, 16)),
        ("w1.weight", (VT, 4)),
        ("down_h.weight", (4, H)),
        ("down_g.weight", (4, H)),
        ("in_proj.weight", (4, 12)),
        ("w2.weight", (VT, 4)),
        ("mlp.gate_proj.weight", (8, 4)),
        ("mlp.up_proj.weight", (8, 4)),
        ("mlp.down_proj.weight", (4, 8)),
    )
}
DFLASH2_KEYS = {
    "selector_rank": 4,
    "selector_top_k": 2,
    "conv_kernel_size": 3,
    "conv_group_size": 4,
}
DFLASH2 = {
    "architectures": ["DFlash2DraftModel"],
    "model_type": "qwen3",
    "dflash_config": DFLASH2_KEYS,
}
SELECTOR = {
    "candidate_selector.predecessor_codebook": T("F32", (VT, 4)),
    "candidate_selector.successor_codebook": T("F32", (VT, 4)),
    "candidate_selector.hidden_projection.weight": T("F32", (4, H)),
}
CONV = {
    f"layers.0.{conv}.{name}": T("F32", shape)
    for conv in ("attention_conv", "mlp_conv")
    for name, shape in (("base_kernel", (2, 3, H)), ("kernel_projection.weight", (12, H)))
}

# vLLM's DFlash2 for Beam targets: sliding-attention layers, no lm_head module
BEAM = {
    **DFLASH2,
    "architectures": ["DFlash2BeamDraftModel"],
    "dflash_config": {**DFLASH2_KEYS, "target_layer_ids": [0, 1], "final_logit_softcapping": 30.0},
    "layer_types": ["sliding_attention"],
}
# vLLM's LiLiCorr: DFlash with a lattice correction head it requires whole
LILICORR = {
    **XPRESS,
    "architectures": ["LiLiCorrDraftModel"],
    "dflash_config": {
        **{f"lilicorr_{k}": 2 for k in ("candidate_topk", "num_heads", "mlp_ratio", "factor_dim")},
        **{"lilicorr_vector_eps": 1e-6, "lilicorr_logit_scale": 1.0, "lilicorr_num_layers": 1},
    },
}
LILI_HEAD = {name: T("F32", (H,)) for name in LILICORR_TENSORS}
SG_LILICORR = {
    **LILICORR,
    "dflash_config": {**LILICORR["dflash_config"], "lilicorr_hidden_size": 0},
}
# vLLM's Laguna DFlash: q/k/v stored fused, one norm per target hidden state
LAGUNA = {
    **XPRESS,
    "architectures": ["DFlashLagunaForCausalLM"],
    "layer_types": ["full_attention"],
    "mlp_layer_types": ["dense"],
    "dflash_config": {"target_layer_ids": [0, 1]},
}
LAGUNA_PARTS = {
    **{f"layers.0.self_attn.{m}_proj.weight": None for m in "qkv"},
    "layers.0.self_attn.qkv_proj.weight": T("F32", (3 * H, H)),
    **{f"aux_hidden_norms.{i}.weight": T("F32", (H,)) for i in (0, 1)},
}
SG_LAGUNA_NORMS = {f"aux_hidden_norms.{i}.weight": T("F32", (H,)) for i in (0, 1)}
SG_LAGUNA_PARTS = {**SG_LAGUNA_NORMS, "layers.0.self_attn.g_proj.weight": T("F32", (2, H))}
# vLLM's Gemma 4 DSpark: K is also V, two feed-forward norms per layer (a v_proj it skips)
GEMMA4 = {
    "architectures": ["Gemma4DSparkModel"],
    "attention_k_eq_v": True,
    "layer_types": ["full_attention"],
}
FFN_NORMS = {f"layers.0.{n}_feedforward_layernorm.weight": T("F32", (H,)) for n in ("pre", "post")}
# classic EAGLE over Mistral layers (profiles/mistral.py): Mistral-native names, and the EAGLE
# release code's Hugging Face names in their place (bare fc, no norm, layer 0 without its norm)
V_MISTRAL = {**_EAGLE1, "architectures": ["EagleMistralForCausalLM"], "model_type": "mistral"}
S_MISTRAL = {**V_MISTRAL, "architectures": ["MistralForCausalLMEagle"]}
V_LARGE3 = {
    **V_MISTRAL,
    "architectures": ["EagleMistralLarge3ForCausalLM"],
    "model_type": "deepseek_v3",
    **{"q_lora_rank": H, "kv_lora_rank": H, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4},
    **{"v_head_dim": 4, "n_routed_experts": 2, "first_k_dense_replace": 0},
    **{"n_shared_experts": 1, "moe_intermediate_size": H, "topk_method": None},
}
S_LARGE3 = {**V_LARGE3, "architectures": ["MistralLarge3ForCausalLMEagle"]}
# classic EAGLE over DeepSeek-V3 layers (profiles/deepseek_eagle.py): its layers are numbered
# after the target's, unknown here (--target-vocab-size): fc, enorm, hnorm and norm are checked
V_DEEPSEEK = {**V_LARGE3, "architectures": ["EagleDeepSeekMTPModel"]}
NO_EXPERT_1 = {f"layers.0.experts.1.{w}.weight": None for w in ("w1", "w2", "w3")}
AS_EAGLE1 = (
    {name: None for name in eagle1_layers.mistral_eagle_backbone(H)},
    synth.eagle1_backbone(H),
    NO_FC_BIAS,
)


def d2t(vd: int) -> dict[str, T]:
    offsets, t2d = sorted_mapping(VT, vd) if vd < VT else (np.zeros(vd, np.int64), None)
    out = {"d2t": T("I64", (vd,), offsets)}
    if t2d is not None:
        out["t2d"] = T("BOOL", (VT,), t2d)
    return out


def lm_head(vd: int) -> dict[str, T]:
    return {"lm_head.weight": head(vd, H, 1)}


def make(tmp_path, name, *, vocab=VT, draft, config, tensors=()):
    tensors = {k: v for part in tensors for k, v in part.items()}
    return synth.drafter(tmp_path / name, vocab=vocab, draft=draft, tensors=tensors, config=config)


def inspect(path, *profiles, target=("--target-vocab-size", VT)):
    args = ["inspect", path, *target, "--format", "json"]
    for p in profiles:
        args += ["--profile", p]
    return cli(*args)


def codes(r, profile, severity="error"):
    """The codes a profile's own rules found (common findings excluded)."""
    return sorted(
        f["code"]
        for f in r.json["findings"]
        if f["profile"] == profile and f["severity"] == severity
    )


# (profile, drafter name, vocab, draft_vocab_size, config, tensors, expected error codes)
CASES = [
    # vllm-dflash: the != rule, a missing d2t is silently all zero
    ("vllm-dflash", "pruned", VT, 40, DFLASH, (lm_head(40), d2t(40)), []),
    ("vllm-dflash", "equal-shared-head", VT, VT, DFLASH, (), []),
    ("vllm-dflash", "padded-no-d2t", 101, 101, DFLASH, (lm_head(101),), []),
    ("vllm-dflash", "padded-zero-d2t", 101, 101, DFLASH, (lm_head(101), d2t(101)), []),
    ("vllm-dflash", "pruned-no-lm_head", VT, 40, DFLASH, (d2t(40),), ["DSC102"]),
    ("vllm-dflash", "pruned-no-d2t", VT, 40, DFLASH, (lm_head(40),), ["DSC103"]),
    ("vllm-dflash", "equal-with-d2t", VT, VT, DFLASH, (d2t(VT),), ["DSC105"]),
    # the class's name, not the registry's: asked for as it stands (it starts with DFlash)
    (
        "vllm-dflash",
        "class-name-not-registered",
        VT,
        VT,
        {**DFLASH, "architectures": ["DFlashQwen3ForCausalLM"]},
        (),
        ["DSC680"],
    ),
    # vllm-dflash-legacy (0.29-0.30): the same loader, has_own_lm_head not read
    (
        "vllm-dflash-legacy",
        "own-head-key-unread",
        VT,
        VT,
        {**DFLASH, "has_own_lm_head": True},
        (),
        [],
    ),
    ("vllm-dflash-legacy", "pruned-no-d2t", VT, 40, DFLASH, (lm_head(40),), ["DSC103"]),
    # vllm-eagle3 (0.33.0): draft_id_to_target_id only when Vd != Vt, a missing d2t is zero
    ("vllm-eagle3", "pruned", VT, 40, EAGLE3, (lm_head(40), d2t(40)), []),
    ("vllm-eagle3", "equal-with-d2t", VT, VT, EAGLE3, (d2t(VT),), ["DSC105"]),
    ("vllm-eagle3", "pruned-no-lm_head", VT, 40, EAGLE3, (d2t(40),), ["DSC102"]),
    ("vllm-eagle3", "pruned-no-d2t", VT, 40, EAGLE3, (lm_head(40),), ["DSC103"]),
    # vllm-eagle3-legacy (before PR #53458): the parameter always exists
    ("vllm-eagle3-legacy", "equal-with-d2t", VT, VT, EAGLE3, (d2t(VT),), []),
    ("vllm-eagle3-legacy", "pruned-no-lm_head", VT, 40, EAGLE3, (d2t(40),), ["DSC102"]),
    # vllm-eagle / sglang-eagle (classic EAGLE): the target's head, no d2t path; vLLM builds
    # no lm_head and no fc bias, SGLang's fc takes the EAGLE release code's bias
    ("vllm-eagle", "as-vllm-names-it", VT, None, V_EAGLE1, (NO_FC_BIAS,), []),
    ("vllm-eagle", "fc-bias-dropped", VT, None, V_EAGLE1, (), ["DSC672"]),
    ("vllm-eagle", "with-d2t", VT, None, V_EAGLE1, (NO_FC_BIAS, d2t(VT)), ["DSC105"]),
    ("vllm-eagle", "own-head", VT, None, V_EAGLE1, (NO_FC_BIAS, lm_head(VT)), ["DSC112"]),
    ("sglang-eagle", "as-sglang-names-it", VT, None, S_EAGLE1, (), []),
    # vllm-eagle-llama4: its own head (draft_vocab_size rows) with no d2t to map it
    ("vllm-eagle-llama4", "own-head", VT, VT, L4_EAGLE1, (lm_head(VT),), []),
    ("vllm-eagle-llama4", "pruned-own-head", VT, 40, L4_EAGLE1, (lm_head(40),), ["DSC103"]),
    # vllm-eagle-minicpm: every parameter tracked (its embedding and head too), names under model.
    ("vllm-eagle-minicpm", "whole", VT, None, MC_EAGLE1, (MC_EMBED, lm_head(VT)), []),
    ("vllm-eagle-minicpm", "no-head", VT, None, MC_EAGLE1, (MC_EMBED,), ["DSC652"]),
    # vllm-eagle-cohere: fc with its bias, tracked; the head is the (target's) embedding
    ("vllm-eagle-cohere", "whole", VT, None, CO_EAGLE1, (), []),
    (
        "vllm-eagle-cohere",
        "no-fc-bias",
        VT,
        None,
        CO_EAGLE1,
        ({"model.fc.bias": None},),
        ["DSC652"],
    ),
    ("sglang-eagle", "vllm-name", VT, None, V_EAGLE1, (), ["DSC680"]),
    ("sglang-eagle", "no-fc-bias", VT, None, S_EAGLE1, (NO_FC_BIAS,), ["DSC652"]),
    # sglang-eagle3: d2t -> hot_token_id; draft_vocab_size null -> the target's head, a
    # missing key -> AttributeError
    ("sglang-eagle3", "pruned", VT, 40, EAGLE3, (lm_head(40), d2t(40), SG_EAGLE3), []),
    ("sglang-eagle3", "null-draft-vocab-no-head", VT, None, SG_EAGLE3_NULL_VD, (SG_EAGLE3,), []),
    ("sglang-eagle3", "no-draft-vocab-key", VT, None, EAGLE3, (SG_EAGLE3,), ["DSC681"]),
    ("sglang-eagle3", "equal-with-d2t", VT, VT, EAGLE3, (lm_head(VT), d2t(VT), SG_EAGLE3), []),
    ("sglang-eagle3", "pruned-no-d2t", VT, 40, EAGLE3, (lm_head(40), SG_EAGLE3), ["DSC103"]),
    ("sglang-eagle3", "explicit-vd-no-head", VT, VT, EAGLE3, (SG_EAGLE3,), ["DSC601"]),
    (
        "sglang-eagle3",
        "tied-no-head",
        VT,
        VT,
        {**EAGLE3, "tie_word_embeddings": True},
        (SG_EAGLE3,),
        [],
    ),
    # trtllm-dspark (GQADSparkForCausalLM, the later main's standalone route): markov_rank
    # read nested too, d2t skipped, the Markov head [V, r] and vanilla only
    ("trtllm-dspark", "nested-rank", VT, None, NESTED_RANK, (markov(VT, VT),), []),
    ("trtllm-dspark", "with-d2t", VT, 40, DSPARK, (lm_head(40), d2t(40), markov(VT, VT)), []),
    ("trtllm-dspark", "w2-draft-rows", VT, 40, DSPARK, (lm_head(40), markov(VT, 40)), ["DSC205"]),
    # trtllm-dspark-legacy (Qwen3DSparkForCausalLM): markov_w1 and markov_w2 both
    # [V, r], head from the target, no Vd > V
    ("trtllm-dspark-legacy", "equal", VT, None, DSPARK, (markov(VT, VT),), []),
    (
        "trtllm-dspark-legacy",
        "w2-draft-rows",
        VT,
        40,
        DSPARK,
        (lm_head(40), markov(VT, 40)),
        ["DSC205"],
    ),
    (
        "trtllm-dspark-legacy",
        "with-d2t",
        VT,
        40,
        DSPARK,
        (lm_head(40), d2t(40), markov(VT, VT)),
        ["DSC105", "DSC105"],
    ),
    (
        "trtllm-dspark-legacy",
        "nested-rank",
        VT,
        None,
        NESTED_RANK,
        (markov(VT, VT),),
        TRT_NESTED,
    ),
    # trtllm-eagle3: d2t [Vd] made with torch.empty when V != Vd, required by the weight loader;
    # fc built for the serving config's 3 states (no eagle3_layers_to_capture), so these
    # drafters ship fc [H, 3H] (FC3)
    ("trtllm-eagle3", "pruned", VT, 40, EAGLE3, (lm_head(40), d2t(40), FC3), []),
    ("trtllm-eagle3", "pruned-no-d2t", VT, 40, EAGLE3, (lm_head(40), FC3), ["DSC103"]),
    # d2t exists whenever V != Vd (Eagle3DraftModel.__init__): Vd > V needs one too
    ("trtllm-eagle3", "padded-no-d2t", VT, 101, EAGLE3, (lm_head(101), FC3), ["DSC103"]),
    ("trtllm-eagle3", "padded", VT, 101, EAGLE3, (lm_head(101), d2t(101), FC3), []),
    # no lm_head: Eagle3ForCausalLM takes the target's head, whatever Vd
    ("trtllm-eagle3", "pruned-no-lm_head", VT, 40, EAGLE3, (d2t(40), FC3), ["DSC102"]),
    # an fc trained on 2 states: TensorRT-LLM reads no drafter key for the count and builds
    # fc for 3 (EagleDecodingConfig.num_capture_layers): the load fails on the shape
    ("trtllm-eagle3", "fc-of-two", VT, 40, EAGLE3, (lm_head(40), d2t(40)), ["DSC210"]),
    # sglang-dspark / sglang-dflash: head and embedding from the target, Markov [V, r]
    ("sglang-dspark", "pruned-no-d2t", VT, 40, SG_DSPARK, (markov(VT, VT), SG_BLOCK), []),
    ("sglang-dspark", "w2-draft-rows", VT, 40, SG_DSPARK, (markov(VT, 40), SG_BLOCK), ["DSC205"]),
    (
        "sglang-dspark",
        "vllm-class",
        VT,
        VT,
        {**SG_DSPARK, "architectures": ["Qwen3DSparkForCausalLM"]},
        (markov(VT, VT), SG_BLOCK),
        ["DSC680"],
    ),
    # its mask token: dspark_noise_token_id, dspark_config/dflash_config, then the top level
    (
        "sglang-dspark",
        "noise-token-id",
        VT,
        VT,
        {**SG_DSPARK, "mask_token_id": None, "dspark_noise_token_id": 7},
        (markov(VT, VT), SG_BLOCK),
        [],
    ),
    (
        "sglang-dspark",
        "dspark-config-mask",
        VT,
        VT,
        {**SG_DSPARK, "mask_token_id": None, "dspark_config": {"mask_token_id": 7}},
        (markov(VT, VT), SG_BLOCK),
        [],
    ),
    (
        "sglang-dspark",
        "no-mask",
        VT,
        VT,
        {**SG_DSPARK, "mask_token_id": None},
        (markov(VT, VT), SG_BLOCK),
        ["DSC109"],
    ),
    # trtllm-dflash: draft_vocab_size never read, head and embedding the target's; the mask
    # id from dflash_config first (DFlashForCausalLM.__init__); no DSpark head declared (a
    # markov_rank above 0 is refused at build: DSC696)
    ("trtllm-dflash", "pruned-no-head", VT, 40, TRT_DFLASH, (), []),
    (
        "trtllm-dflash",
        "nested-mask-outside",
        VT,
        VT,
        {**TRT_DFLASH, "mask_token_id": 0, "dflash_config": {"mask_token_id": 500}},
        (),
        ["DSC208"],
    ),
    ("sglang-dflash", "pruned-no-head", VT, 40, SG_DFLASH, (SG_BLOCK,), []),
    (
        "sglang-dflash",
        "fc-for-3",
        VT,
        VT,
        {**SG_DFLASH, "target_layer_ids": [0, 1, 2]},
        (SG_BLOCK,),
        ["DSC210"],
    ),
    ("vllm-xpress", "full-vocab", VT, VT, XPRESS, (XPRESS_HEAD,), []),
    ("vllm-xpress", "pruned", VT, 40, XPRESS, (XPRESS_HEAD, lm_head(40), d2t(40)), ["DSC692"]),
    ("vllm-dflash2", "whole", VT, VT, DFLASH2, (SELECTOR, CONV), []),
    (
        "vllm-dflash2",
        "no-convolution-keys",
        VT,
        VT,
        {**DFLASH2, "dflash_config": {"selector_rank": 4, "selector_top_k": 2}},
        (SELECTOR, CONV),
        ["DSC690", "DSC690"],
    ),
    ("sglang-dflash2", "whole", VT, VT, DFLASH2, (SELECTOR, CONV, SG_BLOCK), []),
    ("vllm-gemma4-dspark", "whole", VT, VT, GEMMA4, (FFN_NORMS,), []),
    ("vllm-dflash2-beam", "whole", VT, VT, BEAM, (SELECTOR, CONV), []),
    ("vllm-lilicorr", "whole", VT, VT, LILICORR, (LILI_HEAD,), []),
    ("sglang-lilicorr", "whole", VT, VT, SG_LILICORR, (LILI_HEAD, SG_BLOCK), []),
    ("sglang-lilicorr", "no-head", VT, VT, SG_LILICORR, (SG_BLOCK,), ["DSC691"]),
    ("vllm-laguna", "whole", VT, VT, LAGUNA, (LAGUNA_PARTS,), []),
    ("sglang-laguna", "whole", VT, VT, LAGUNA, (SG_BLOCK, SG_LAGUNA_PARTS), []),
    ("sglang-laguna", "no-gate", VT, VT, LAGUNA, (SG_BLOCK, SG_LAGUNA_NORMS), ["DSC652"]),
    (
        "vllm-laguna",
        "moe-layer",
        VT,
        VT,
        {**LAGUNA, "mlp_layer_types": ["sparse"]},
        (LAGUNA_PARTS,),
        ["DSC690"],
    ),
    ("vllm-lilicorr", "no-head", VT, VT, LILICORR, (), ["DSC691"]),
    ("vllm-dflash2-beam", "ships-lm-head", VT, VT, BEAM, (SELECTOR, CONV, lm_head(VT)), ["DSC112"]),
    (
        "vllm-gemma4-dspark",
        "sliding-layer",
        VT,
        VT,
        {**GEMMA4, "layer_types": ["sliding_attention"]},
        (FFN_NORMS,),
        ["DSC690"],
    ),
    ("sglang-dflash2", "no-selector", VT, VT, DFLASH2, (CONV, SG_BLOCK), ["DSC652"]),
    ("vllm-eagle-mistral", "native-names", VT, None, V_MISTRAL, (), []),
    ("vllm-eagle-mistral", "eagle1-names", VT, None, V_MISTRAL, AS_EAGLE1, ["DSC112", "DSC652"]),
    ("sglang-eagle-mistral", "native-names", VT, None, S_MISTRAL, (), []),
    ("sglang-eagle-mistral", "eagle1-names", VT, None, S_MISTRAL, AS_EAGLE1, ["DSC652"]),
    ("vllm-eagle-mistral-large3", "native-names", VT, None, V_LARGE3, (), []),
    ("vllm-eagle-mistral-large3", "no-expert-1", VT, None, V_LARGE3, (NO_EXPERT_1,), ["DSC652"]),
    ("sglang-eagle-mistral-large3", "native-names", VT, None, S_LARGE3, (), []),
    ("sglang-eagle-mistral-large3", "no-expert-1", VT, None, S_LARGE3, (NO_EXPERT_1,), ["DSC652"]),
    # SGLang's M3.1 DSpark: names read only under dspark. (dspark_minimax.py:277), every
    # parameter required (316-322)
    ("sglang-dspark-minimax", "whole", VT, VT, MINIMAX, (MINIMAX_W,), []),
    ("sglang-dspark-minimax", "no-fc", VT, VT, MINIMAX, (MINIMAX_W, NO_FC), ["DSC652"]),
    # vLLM's K3 DSpark: its own top-level modules; a linear layer nothing loads stays
    # uninitialised (dspark_mla.py:530-534, default_loader.py:531-566)
    ("vllm-k3-dspark", "whole", VT, VT, K3, (K3_W,), []),
    # SGLang's Gemma 4 assistant: a tensor nothing loads keeps its initial value (gemma4_causal.py:
    # 1430-1436 only logs it)
    ("sglang-gemma4-assistant", "whole", VT, VT, G4, (G4_W,), []),
    ("sglang-gemma4-assistant", "no-pre-projection", VT, VT, G4, (G4_W, NO_PRE), ["DSC652"]),
    ("vllm-k3-dspark", "no-context-proj", VT, VT, K3, (K3_W, NO_CONTEXT), ["DSC652"]),
    # vLLM's Gemma 4 assistant (Gemma4MTP): its mapper moves pre_projection under model.; a
    # linear layer nothing loads counts as loaded and stays uninitialised (gemma4_mtp.py:451-455,
    # default_loader.py:531-566), a shipped k_proj names no parameter (utils.py:443)
    ("vllm-gemma4-assistant", "whole", VT, VT, G4, (G4_W,), []),
    ("vllm-gemma4-assistant", "no-pre-projection", VT, VT, G4, (G4_W, NO_PRE), ["DSC652"]),
    ("vllm-gemma4-assistant", "k-proj", VT, VT, G4, (G4_W, K_PROJ), ["DSC112"]),
    ("vllm-eagle-deepseek", "hf-names", VT, None, V_DEEPSEEK, (), []),
    (
        "vllm-eagle-deepseek",
        "no-hnorm",
        VT,
        None,
        V_DEEPSEEK,
        ({"hnorm.weight": None},),
        ["DSC652"],
    ),
    # vLLM's Muse Spark DSpark: its own lm_head and a d2t, for any draft vocab (dspark.py:364-367)
    ("vllm-muse-spark-dspark", "whole", VT, VT, MUSE, (MUSE_W,), []),
    ("vllm-muse-spark-dspark", "no-d2t", VT, VT, MUSE, (MUSE_W, {"d2t": None}), ["DSC691"]),
]


@pytest.mark.parametrize(
    "profile,name,vocab,draft,config,tensors,expected",
    CASES,
    ids=[f"{c[0]}:{c[1]}" for c in CASES],
)
def test_profile_rules(tmp_path, profile, name, vocab, draft, config, tensors, expected):
    path = make(tmp_path, name, vocab=vocab, draft=draft, config=config, tensors=tensors)
    r = inspect(path, profile)
    assert codes(r, profile) == expected
    assert r.json["verdicts"][profile] is (not expected and r.exit_code == 0)
    assert r.json["profile"] == profile and r.json["profiles"] == [profile]


def test_every_profile_has_a_passing_and_a_failing_case():
    passing = {c[0] for c in CASES if not c[-1]}
    failing = {c[0] for c in CASES if c[-1]}
    # vLLM's DSpark releases: the vllm-table fixtures (test_vllm_table_unchanged) and the rules'
    # own tables (tests/rules/) hold their cases
    dspark = {p.name for p in PROFILES.values() if p.line == "vllm-dspark"}
    assert passing >= set(PROFILES) - dspark
    assert failing >= set(PROFILES) - dspark


def test_every_rule_field_is_cited_and_hidden_states_is_no_rule():
    """The typed schema's rule fields are the cited ones; hidden-state feeding is a
    profile field with its own sources, neither a rule nor a cite."""
    assert "hidden_states" not in RULE_FIELDS
    for p in PROFILES.values():
        assert set(p.cites) == set(RULE_FIELDS) == set(p.rules), p.name
        assert all(p.cites.values()), p.name
        assert hidden_states(p) is p.hidden_states
        assert p.hidden_states is None or p.hidden_states.sources
    # a release can feed hidden states differently from another release of its runtime
    older = replace(PROFILES["vllm-legacy"], hidden_states=None)
    assert hidden_states(older) is None and hidden_states(PROFILES["vllm-legacy"]) is not None


@pytest.mark.parametrize("name", list(PROFILES))
def test_every_cite_has_the_form_a_check_can_use(name):
    """A vLLM/SGLang file:line carries an anchor (tests/test_citations.py checks it against the
    release); a TensorRT-LLM part names the commit it was read at, and a function where it cites
    one; no file:line hides inside prose."""
    p = PROFILES[name]
    bad = {
        f"{field}: {cite.text}": problem
        for field, value in p.cites.items()
        for cite in parse_cites(value)
        if (problem := form_problem(cite))
    }
    assert bad == {}
    kinds = {cite.kind for value in p.cites.values() for cite in parse_cites(value)}
    if p.runtime == "TensorRT-LLM":
        assert "line" not in kinds and "function" in kinds
    else:
        assert "line" in kinds


@pytest.mark.parametrize(
    "field,value",
    [("d2t_param", "rejectd"), ("family", "mtp"), ("runtime", "vllm"), ("aux_default", 3)],
)
def test_an_invalid_value_fails_when_the_profile_is_built(field, value):
    with pytest.raises(ValueError, match=f"^profile 'vllm': {field}={value!r} is not one of"):
        replace(PROFILES["vllm"], **{field: value})


def test_an_invalid_hidden_states_value_fails_when_built():
    hs = PROFILES["vllm"].hidden_states
    with pytest.raises(ValueError, match=r"^hidden states from .*: captures='0\.\.N\+1' is not"):
        replace(hs, captures="0..N+1")
    assert replace(hs, captures=None).captures is None  # None: unknown, allowed
    with pytest.raises(ValueError, match=r"by_target GptOssForCausalLM='plus_one'$"):
        replace(hs, by_target=(("GptOssForCausalLM", "plus_one"),))


def test_every_string_rule_is_a_literal_and_the_families_are_the_schema_s():
    strings = {k for p in PROFILES.values() for k, v in p.rules.items() if isinstance(v, str)}
    assert strings <= set(PROFILE_CHOICES)
    assert get_args(Family) == COVERED


def test_missing_d2t_message_says_silent_zeros(tmp_path):
    path = make(tmp_path, "p", draft=40, config=DFLASH, tensors=(lm_head(40),))
    r = inspect(path, "vllm-dflash")
    (f,) = [f for f in r.json["findings"] if f["code"] == "DSC103"]
    assert "silently maps draft id i to target id i" in f["message"]


def test_head_replaced_is_a_warning(tmp_path):
    sg = make(
        tmp_path, "sg", draft=None, config=SG_EAGLE3_NULL_VD, tensors=(lm_head(VT), SG_EAGLE3)
    )
    r = inspect(sg, "sglang-eagle3")
    assert r.exit_code == 0 and codes(r, "sglang-eagle3", "warning") == ["DSC602"]
    trt = make(tmp_path, "trt", draft=40, config=DSPARK, tensors=(lm_head(40), markov(VT, VT)))
    r = inspect(trt, "trtllm-dspark-legacy")
    assert r.exit_code == 0 and codes(r, "trtllm-dspark-legacy", "warning") == ["DSC602"]


# the cases of vLLM's own tests of the Qwen3 DSpark loader (Qwen3DSparkForCausalLM.load_weights),
# Vt = 100: the codes each gets
VLLM_TABLE = {
    "v101-d100-none": ["DSC101"],
    # V 99 < Vt 100: vLLM embeds target ids in markov_w1 [V] (DSC660)
    "v99-d99-none": ["DSC102", "DSC103", "DSC660"],
    "v100-d40-none": ["DSC102", "DSC103"],
    "v100-d40-lm_head": ["DSC103"],
    "v100-d100-none": [],
    # Vd 101 > V 100: vLLM DSpark feeds each sampled id back into markov_w1 [V]
    # (v1/worker/gpu/spec_decode/dspark/speculator.py:116-126,185-200)
    "v100-d101-none": ["DSC104", "DSC603", "DSC401"],
}


@pytest.mark.parametrize("name", VLLM_TABLE)
def test_vllm_table_unchanged(name):
    r = inspect(FIXTURES / "vllm-table" / name)
    assert r.json["profile"] == "vllm" and r.json["family"] == "dspark"
    assert [f["code"] for f in r.json["findings"]] == VLLM_TABLE[name]
    ok = name == "v100-d100-none"
    assert r.json["verdicts"]["vllm"] is ok and r.json["verdicts"]["vllm-legacy"] is ok
    assert r.exit_code == (0 if ok else 1)


@pytest.mark.parametrize(
    "fixture,family,primary,verdict_keys",
    [
        (
            "padded",
            "dspark",
            "vllm",
            ["vllm", "vllm-legacy", "sglang-dspark", "trtllm-dspark-legacy"],
        ),
        (
            "pruned-eagle3",
            "eagle3",
            "vllm-eagle3",
            ["vllm-eagle3", "vllm-eagle3-legacy", "sglang-eagle3", "trtllm-eagle3"],
        ),
    ],
)
def test_family_detection_picks_profiles(fixture, family, primary, verdict_keys):
    r = inspect(FIXTURES / fixture, target=("--target", FIXTURES / "targets/small"))
    assert r.json["family"] == family
    assert r.json["profile"] == primary
    # the family's profiles in the registry's order (today's: verdict_keys; a release is one more)
    assert list(r.json["verdicts"]) == applicable_profiles(family)
    assert set(verdict_keys) <= set(applicable_profiles(family))


@pytest.mark.parametrize(
    "config,family",
    [
        ({"architectures": ["DFlashDraftModel"]}, "dflash"),
        (
            {"architectures": ["Foo"], "dflash_config": {"mask_token_id": 1}, "markov_rank": None},
            "dflash",
        ),
        ({"architectures": ["Foo"], "dflash_config": {"markov_rank": 4}}, "dspark"),
        ({"architectures": ["PEagleDraftModel"]}, "eagle3"),
        ({"architectures": ["DeepSeekMTPModel"]}, "mtp"),
        ({"architectures": ["EagleLlamaForCausalLM"]}, "eagle"),
        ({"architectures": ["Eagle3Speculator"]}, "eagle3"),
        ({"architectures": [], "speculators_model_type": "eagle3"}, "eagle3"),
        ({"architectures": ["Qwen3DSparkForCausalLM"]}, "dspark"),
        # DFlash variants whose names say so nowhere (profiles/variants.py)
        ({"architectures": ["Qwen3XPressModel"]}, "dflash"),
        ({"architectures": ["MuseGlimmerAssistantModel"]}, "dflash"),
        # a Llama config with draft_vocab_size (make writes it): EAGLE-3, as yuhuili's are
        (
            {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "markov_rank": None},
            "eagle3",
        ),
    ],
)
def test_family_from_config(tmp_path, config, family):
    path = make(tmp_path, "d", draft=VT, config={"model_type": None, **config})
    r = inspect(path)
    assert r.json["family"] == family
    if family not in ("dspark", "dflash", "eagle3", "eagle"):  # no profile covers it
        assert r.json["verdicts"] == {} and r.exit_code == 3
        assert [f["code"] for f in r.json["findings"]] == ["DSC108"]


# EAGLE drafters as their authors publish them name the target's class (yuhuili's
# EAGLE-LLaMA3-Instruct-8B, EAGLE3-LLaMA3.1-Instruct-8B: LlamaForCausalLM); vLLM serves them by
# the method given, or read from the model path (vllm/config/speculative.py:1440-1456), and
# renames the class by it (transformers_utils/configs/eagle.py:46-62)
def everywhere(r, profile: str) -> set[str]:
    """The codes ``profile`` found, deciding or not."""
    found = [*r.json["findings"], *r.json["other_findings"].get(profile, [])]
    return {f["code"] for f in found if f["profile"] in (None, profile)}


PUBLISHED = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "markov_rank": None}


def test_a_published_eagle_drafter_takes_its_family_from_its_path_or_the_profile_named(tmp_path):
    classic = make(tmp_path, "EAGLE-LLaMA3-Instruct-8B", draft=None, config=PUBLISHED)
    r = inspect(classic)
    assert r.json["family"] == "eagle" and set(r.json["verdicts"]) == {"vllm-eagle", "sglang-eagle"}
    # vLLM looks it up as EagleLlamaForCausalLM; SGLang as it stands: no EAGLE class of its
    assert "DSC680" in everywhere(r, "sglang-eagle") and "DSC680" not in everywhere(r, "vllm-eagle")
    plain = make(tmp_path, "drafter", draft=None, config=PUBLISHED)
    r = inspect(plain)
    assert r.json["family"] is None and r.exit_code == 3
    assert [f["code"] for f in r.json["findings"]] == ["DSC108"]
    assert (
        "name the method it is served with by a profile (--profile vllm-eagle3"
        in (r.json["findings"][0]["message"])
    )
    r = inspect(plain, "vllm-eagle")  # the method the user serves it with
    assert r.json["family"] == "eagle" and "vllm-eagle" in r.json["verdicts"]
    r = inspect(classic, "vllm-eagle3")  # the method given wins over the path's
    assert r.json["family"] == "eagle3"
    # fix takes the method alike: refused without one, planned with one
    r = cli("fix", plain, "--target-vocab-size", VT, "--diff")
    assert r.exit_code == 2 and "not judged" in r.stderr
    r = cli("fix", plain, "--target-vocab-size", VT, "--diff", "--profile", "vllm-eagle")
    assert r.exit_code in (0, 1) and "not judged" not in r.stderr and "vllm-eagle" in r.stdout


def test_a_published_eagle3_drafter_is_eagle3_by_its_draft_vocab_size(tmp_path):
    path = make(tmp_path, "drafter", draft=32, config=PUBLISHED)
    r = inspect(path)
    assert r.json["family"] == "eagle3" and r.json["profile"] == "vllm-eagle3"
    assert "DSC680" in everywhere(r, "sglang-eagle3") and "DSC680" not in everywhere(
        r, "vllm-eagle3"
    )


@pytest.mark.parametrize(
    "model,method",
    [
        ("yuhuili/EAGLE-LLaMA3-Instruct-8B", "eagle"),
        ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "eagle3"),
        ("/models/AngelSlim/Qwen3-8B_eagle3", "eagle3"),
        ("z-lab/Qwen3-8B-DFlash-b16", "dflash"),
        ("deepseek-ai/dspark_qwen3_8b_block7", "dspark"),
        ("/models/drafter", None),
        ("eagle", None),  # "eagle-" and "eagle3" only, as vLLM reads it
    ],
)
def test_the_method_vllm_reads_from_a_model_path(model, method):
    assert path_method(model) == method


def test_profile_list_repeated_comma_and_all(tmp_path):
    # an EAGLE-3 drafter every EAGLE-3 profile loads (SGLang: with its decoder layer; fc for
    # 3 states, as TensorRT-LLM builds it without eagle3_layers_to_capture)
    three = {**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1, 2]}}
    path = make(
        tmp_path, "e", draft=40, config=three, tensors=(lm_head(40), d2t(40), SG_EAGLE3, FC3)
    )
    r = inspect(path, "sglang-eagle3,vllm-eagle3", "sglang-eagle3")
    assert r.json["profiles"] == ["sglang-eagle3", "vllm-eagle3"]
    assert r.json["not_applicable"] == []
    assert r.json["profile"] == "sglang-eagle3" and r.exit_code == 0
    # vllm judges DSpark drafters: naming it for this EAGLE-3 one is a usage error that
    # names the profile of the same runtime for its family
    bad = inspect(path, "sglang-eagle3", "vllm")
    assert bad.exit_code == 2 and "use --profile vllm-eagle3" in bad.stderr
    error = json.loads(bad.stdout)  # --format json: the error object on stdout
    assert error["error"]["kind"] == "usage" and "vllm-eagle3" in error["error"]["message"]
    r = inspect(path, "all")  # every profile of the family, none of another
    eagle3 = applicable_profiles("eagle3")
    assert {"vllm-eagle3", "vllm-eagle3-legacy", "sglang-eagle3", "trtllm-eagle3"} <= set(eagle3)
    assert r.json["profiles"] == eagle3 and list(r.json["verdicts"]) == eagle3
    assert r.json["not_applicable"] == [] and r.exit_code == 0


@pytest.mark.parametrize("bad", ["nope", "vllm,,vllm-legacy", "vllm,nope"])
def test_unknown_profile_is_a_usage_error(bad):
    r = inspect(FIXTURES / "padded", bad)
    assert r.exit_code == 2 and r.json["error"]["kind"] == "usage"  # JSON: the error object
    assert r.stderr.startswith("dspark-ckpt: error:") and "Traceback" not in r.stderr


PADDED = [
    "vllm",
    "vllm-legacy",
    "sglang-dspark",
    "trtllm-dspark-legacy",
]  # today's dspark profiles


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split("[┃│]", line)][1:-1]


def test_table_shows_the_matrix():
    r = cli("inspect", FIXTURES / "padded", "--target", FIXTURES / "targets/small", "-v")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    header = next(_cells(line) for line in lines if line.startswith("┃check"))
    assert header == ["check", *applicable_profiles("dspark")]  # the family's, in order

    def row(name: str) -> list[str]:
        """The row's cells under today's profiles (PADDED), by name."""
        cells = next(_cells(x) for x in lines if x.startswith(f"│{name}"))
        return [cells[header.index(n)] for n in PADDED]

    assert row("DSC103") == ["ok", "error", "ok", "ok"]
    assert row("DSC602") == ["ok", "ok", "warning", "warning"]
    # SGLang refuses fixtures/padded: no markov_head_type, mask id 127 past the target's
    # vocab (DSC683, DSC208)
    for code in ("DSC683", "DSC208"):
        assert row(code) == ["ok", "ok", "error", "ok"]
    assert row("verdict") == ["PASS", "FAIL", "FAIL", "PASS"]


def test_profiles_command_lists_versions_and_sources():
    r = cli("profiles", "--format", "json")
    assert r.exit_code == 0
    got = {p["name"]: p for p in r.json["profiles"]}
    assert list(got) == list(PROFILES)
    for p in got.values():
        assert p["versions"] and p["sources"]
        assert all(".py" in s or "PR #" in s for s in p["sources"])
    assert got["trtllm-dspark-legacy"]["rules"]["markov_w2_rows"] == "vocab_size"
    table = cli("profiles")
    assert table.exit_code == 0 and "modeling_dspark_qwen3.py" in table.stdout


def test_explain_command():
    r = cli("explain", "dsc103")
    assert r.exit_code == 0
    assert r.stdout.startswith("DSC103 error: d2t missing")
    assert "fix:" in r.stdout
    j = cli("explain", "DSC601", "--format", "json").json
    assert j["severity"] == "error" and "SGLang" in j["explanation"]
    bad = cli("explain", "DSC999")
    assert bad.exit_code == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert "unknown finding code 'DSC999'" in bad.stderr


def test_explain_without_a_code_lists_the_codes():
    r = cli("explain")  # a list, not a usage error: a newcomer's first question
    assert r.exit_code == 0 and r.stderr == ""
    assert "DSC001" in r.stdout and "DSC101" in r.stdout and "DSC603" in r.stdout


@pytest.mark.parametrize(
    ("value", "parts"),
    [
        ("a; b", ["a", "b"]),
        ("a (x; y); b", ["a (x; y)", "b"]),  # a ';' inside parentheses stays
        ("a ((x); y); b", ["a ((x); y)", "b"]),  # nested: the depth counts each '('
        ("a `;` b; c", ["a `;` b", "c"]),  # inside backticks too
        ("a) ; b", ["a)", "b"]),  # an unbalanced ')' does not go below 0
        ("ab;cd", ["ab", "cd"]),  # each part starts right after its ';'
    ],
)
def test_a_cites_value_splits_at_each_semicolon_outside_brackets(value, parts):
    from dspark_ckpt.profiles.cites import split_parts

    assert split_parts(value) == parts


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("tensorrt_llm/a.py@0123abc:Foo.bar() (what it does)", None),
        ("tensorrt_llm/a.py:Foo.bar() (no commit)", "a function cite without the commit"),
        ("tensorrt_llm/a.py@main:Foo.bar() (a branch)", "a function cite without the commit"),
        ("tensorrt_llm/a.py@0123abc (a file at a commit)", None),
        ("tensorrt_llm/a.py (a file, no commit)", "a file that is neither"),
        ("vllm/x.py:0 `a`", "line range 0-0 is empty"),
        ("vllm/x.py:5-4 `a`", "line range 5-4 is empty"),
        ("vllm/x.py:4-5 `a`", None),
        ("vllm/x.py:4", "a file:line without an anchor"),
        ("see vllm/x.py:4 there", "a file:line inside prose"),
        ("plain prose", None),
    ],
)
def test_a_cite_part_of_the_wrong_form_is_named(text, problem):
    (cite,) = parse_cites(text)
    found = form_problem(cite)
    assert found is None if problem is None else found.startswith(problem), found


SOURCE = "\n".join(f"line {i}" for i in range(1, 21)) + "\nthe anchor\n"  # 21 lines


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("vllm/x.py:16 `the anchor`", None),  # 5 lines away: within the slack
        ("vllm/x.py:15 `the anchor`", "`the anchor` is not within 5 lines of the cited lines"),
        ("vllm/x.py:1 `the anchor`", "(found at 21)"),
        ("vllm/x.py:21 `absent`", "(not in the file)"),
        ("vllm/x.py:21 `the anchor`", None),  # the last line
        ("vllm/x.py:22 `the anchor`", "line 22 is past the end (21 lines)"),
        ("vllm/x.py:2,21 `the anchor`", "no anchor stands near line 2"),
        ("vllm/x.py:2-3,20-21 `line 2` `the anchor`", None),
        ("vllm/x.py:2-3,20-21 `line 9` `the anchor`", "`line 9` is not within 5 lines"),
        ("vllm/x.py:2-3,20 `the anchor`", "no anchor stands near line 2-3"),
    ],
)
def test_an_anchor_stands_near_its_cited_lines(text, problem):
    from dspark_ckpt.profiles.cites import anchor_problem

    (cite,) = parse_cites(text)
    found = anchor_problem(cite, SOURCE)
    assert found is None if problem is None else problem in found, found


@pytest.mark.parametrize(
    ("path", "wheel"),
    [
        ("vllm/model_executor/x.py", "vllm/model_executor/x.py"),
        ("python/sglang/srt/x.py", "sglang/srt/x.py"),
        ("tensorrt_llm/x.py", None),
    ],
)
def test_a_cited_path_is_found_in_its_wheel(path, wheel):
    (cite,) = parse_cites(f"{path}:3 `a`")
    assert cite.wheel_path == wheel
