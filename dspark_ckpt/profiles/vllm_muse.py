"""vLLM 0.33.0's profile for the Muse Spark DSpark drafter (``MuseSparkDSparkModel``,
vllm/models/muse_spark/common/dspark.py): a ``Profile.derive`` of the Qwen3 DSpark loader's,
only the changed fields, each cited at the 0.33.0 wheel (``profiles/variants.py``)."""

from __future__ import annotations

from dspark_ckpt.profiles.choices import MUSE_MOE_LAYERS
from dspark_ckpt.profiles.vllm import (
    DSPARK_UTILS,
    NO_PARAM_ANCHORED,
    SPEC_CONFIG,
    VLLM,
    VLLM_DSPARK_0_30,
    M,
)
from dspark_ckpt.profiles.vllm_variants import DEFAULT_LOADER, READ

# Muse Spark DSpark (MuseSparkDSparkModel): the DSpark speculator and qwen3_dspark's Markov and
# confidence heads over Muse Spark 1.x decoder layers, built from a MuseSparkDSparkConfig (its
# flags decide which norms, gates and projections exist), an own lm_head and a d2t it refuses
# to go without. The layer class is imported by platform (dspark.py:39-44): this is the CUDA
# one (nvidia/model.py), what a GPU server builds; ROCm's (amd/model.py:698-800) reads the
# same flags into the same draft parameters, and differs in its MoE (not modelled: see below).
MUSE_PY = "vllm/models/muse_spark/common/dspark.py"
MUSE_NV = "vllm/models/muse_spark/nvidia/model.py"
MUSE_LAYERS = "vllm/models/muse_spark/common/layers.py"
MUSE_CFG = "vllm/transformers_utils/configs/muse_spark.py"
MUSE_LOAD = f"{MUSE_PY}:368-377 `orig_to_new_substr={{` `AutoWeightsLoader(self).load_weights(`"
MUSE_W = f"{MUSE_LAYERS}:73-74 `self.weight = nn.Parameter(` (only if has_weight)"
_M_ATTN = "self_attn."
# a dense layer's MLP, gate and up stacked (an MoE layer builds none of it: its names refused)
_M_FFN = (
    "feed_forward.gate_proj|feed_forward.gate_up_proj",
    "feed_forward.up_proj|feed_forward.gate_up_proj",
    "feed_forward.down_proj",
)
VLLM_MUSE_SPARK_DSPARK = VLLM_DSPARK_0_30.derive(
    name="vllm-muse-spark-dspark",
    release=VLLM + " (the CUDA layer class, vllm/models/muse_spark/nvidia/model.py)",
    releases=READ,
    variant="muse-spark-dspark",
    sources=(MUSE_PY, MUSE_NV, MUSE_LAYERS, MUSE_CFG, DSPARK_UTILS, DEFAULT_LOADER, SPEC_CONFIG),
    cites={
        "top_modules": f"{MUSE_PY}:124-151 `self.fc = ReplicatedLinear(` "
        "`has_weight=config.norm_affine,`; " + MUSE_W + f"; {MUSE_CFG}:99 `norm_affine: bool = "
        "True,` (the config class's default)",
        "layer_modules": f"{MUSE_NV}:1055-1073 `if not self.use_o_gate:` "
        f"`self.qkv_proj = MuseSpark1xQKVOGateParallelLinear(`; {MUSE_NV}:977 `self.use_o_gate "
        f"= config.use_attn_o_gate if is_draft else True`; {MUSE_NV}:1074 `self.o_proj = "
        f"RowParallelLinear(`; {MUSE_NV}:1045-1048 `self.pre_qkv_proj_norm = "
        f"MuseSpark1xRMSNorm(` `has_weight=norm_affine,`; {MUSE_NV}:1305-1312 "
        "`norm_affine = config.norm_affine if is_draft else True` `learnable_scales = "
        f"config.use_ffn_learnable_scales if is_draft else True`; {MUSE_NV}:1342-1346 "
        f"`self.pre_ffn_norm = MuseSpark1xRMSNorm(`; {MUSE_NV}:1359-1370 `self.feed_forward = "
        "LlamaMLP(` (gate_up_proj, down_proj; a MuseSpark1xMoE in a layer muse_moe_layers "
        f"names, {MUSE_NV}:1353-1358 `self.feed_forward = self.moe_cls(`); "
        f"{MUSE_NV}:1372-1376 `has_weight=post_norm_affine,`; "
        f"{MUSE_NV}:1382-1389 `has_weight=(learnable_scales if learnable_scales else "
        f"post_norm_affine),`; {MUSE_NV}:1406-1421 `if not is_draft or "
        f"config.use_residual_gate:`; {MUSE_LAYERS}:249 `self.gate = nn.Parameter(`; "
        + MUSE_W
        + f"; {MUSE_CFG}:99-126 `post_norm_affine: bool = True,` "
        "`use_ffn_learnable_scales: bool = False,` (the defaults); "
        f"{MUSE_PY}:283-292 `orig_to_new_stacked={{` `.self_attn.o_gate_proj.`",
        "config_view": f"{MUSE_NV}:1332-1341 `config.moe.is_enabled` "
        f"`(self.layer_idx + 1) % config.moe.interleave_moe_layer_step == 0`; {MUSE_PY}:299-304 "
        f"`start_layer_id=target_layer_num,`; {MUSE_PY}:139-143 `layers.{{layer_idx + "
        f"start_layer_id}}`; {MUSE_CFG}:31-39 `self.is_enabled: bool = True` "
        "`self.interleave_moe_layer_step: int = 1` (the defaults: every draft layer MoE)",
        "name_maps": f"{MUSE_LOAD} (its own mapper: no midlayer or encoder.* names)",
        "dropped_unbuilt": f'{MUSE_LOAD} `"model.mask_embedding": None,` (a confidence head '
        f"is built only with enable_confidence_head, else refused: {NO_PARAM_ANCHORED})",
        "missing_tensors": f"{MUSE_LOAD} (returns the loaded names); {DEFAULT_LOADER}:531-566 "
        "`has_postprocess_quant = getattr(` `loaded_weights.add(full_name)` (unquantised, every "
        "module with a quant method counts as loaded: a linear layer nothing filled stays "
        "uninitialised)",
        "checked_after_load": f"{DEFAULT_LOADER}:511-523 `model_config.quantization is None and "
        f"loaded_weights is not None`; {DEFAULT_LOADER}:567-572 `Following weights were not "
        f"initialized from` (the norms, the residual gates and markov_w1: "
        f"{M}qwen3_dspark.py:71 `self.markov_w1 = nn.Embedding(vocab_size, markov_rank)`)",
        "prefixed_names": f'{MUSE_PY}:359-360 `name = "model." + name` (a stored model.* name '
        f"is read as model.model.*: {NO_PARAM_ANCHORED})",
        "required_keys": f"{MUSE_PY}:99-100 `requires MuseSparkDSparkConfig`; {MUSE_PY}:106 "
        f"`tuple(config.target_layer_ids)`; {MUSE_PY}:124-126 `config.target_hidden_size * "
        f"len(self.target_layer_ids)`; {MUSE_PY}:152-160 `config.markov_rank,` `if "
        f"config.enable_confidence_head:`; {MUSE_PY}:117 `self.mask_token_id = "
        f"config.mask_token_id`; {MUSE_NV}:389 `self.top_k = "
        f"config.num_experts_per_tok`; {MUSE_NV}:450 `hidden_size = config.moe_hidden_size`; "
        f"{MUSE_NV}:488 `self.intermediate_size = config.moe_intermediate_size` (an MoE "
        "layer's reads; the config class sets none of them: attribute reads, an "
        "AttributeError without them)",
        "required_tensors": f"{MUSE_PY}:364-367 `Muse Spark DSpark requires its own lm_head` "
        "`requires a d2t vocabulary mapping` (for any draft vocab, a full one included)",
        "aux_layer_keys": f"{MUSE_PY}:106 `self.target_layer_ids = tuple(config.target_layer_ids)`",
        "aux_default": f"{MUSE_PY}:106 `tuple(config.target_layer_ids)` (no default)",
        "missing_d2t": f"{MUSE_PY}:366-367 `requires a d2t vocabulary mapping`",
        "d2t_param": f"{MUSE_PY}:312-315 `self.draft_id_to_target_id = nn.Parameter(`; "
        f'{MUSE_PY}:354-358 `if name == "t2d":` `name = "draft_id_to_target_id"` (t2d skipped)',
        "missing_lm_head": f"{MUSE_PY}:364-365 `requires its own lm_head`",
        "lm_head_from_target": f"{MUSE_PY}:281 `has_own_lm_head = True`; {DSPARK_UTILS}:142-149 "
        '`_should_share(draft_model, "has_own_lm_head"` (the target\'s only where equal)',
        "own_embed_kept": f'{MUSE_LOAD} `"model.embed_tokens": None,` (a shipped embedding '
        f"dropped); {DSPARK_UTILS}:133-134 `maybe_share_target_embed` (the target's)",
        "requires_embed_when_expanded": f'{MUSE_LOAD} `"model.embed_tokens": None,` (a shipped '
        "embedding is never loaded: nothing to require)",
        "served_architectures": f"{SPEC_CONFIG}:1547-1548 `_MUSE_SPARK_DSPARK_ARCHITECTURE` "
        "(not rewritten to the DeepSeek-V4 drafter); "
        f'vllm/transformers_utils/config.py:145 `muse_spark_dspark="MuseSparkDSparkConfig",` '
        "(the config class, by model_type)",
        "unserved_architecture": f"{MUSE_PY}:99-100 `requires MuseSparkDSparkConfig` (another "
        "model_type builds another config class: a TypeError at build, no rewrite)",
    },
    top_modules=("fc", "hidden_norm?~norm_affine", "norm?~norm_affine"),
    layer_modules=(
        *(f"{_M_ATTN}{m}_proj|{_M_ATTN}qkv_proj" for m in "qkv"),
        f"{_M_ATTN}o_gate_proj|{_M_ATTN}qkv_proj?use_attn_o_gate",
        f"{_M_ATTN}o_proj",
        f"{_M_ATTN}pre_qkv_proj_norm?~norm_affine",
        "pre_ffn_norm?~norm_affine",
        "post_attn_norm?~post_norm_affine",
        "post_ffn_norm?use_ffn_learnable_scales|~post_norm_affine",
        *(f"{m}?!{MUSE_MOE_LAYERS}" for m in _M_FFN),
        "add_attn:gate?use_residual_gate",
        "add_ffn:gate?use_residual_gate",
    ),
    config_view="muse_spark_dspark",
    name_maps=(),
    dropped_unbuilt=("mask_embedding",),
    missing_tensors="uninitialised",
    checked_after_load=("norm", "add_attn", "add_ffn", "markov_head.markov_w1"),
    required_keys=(
        "target_hidden_size",
        "target_layer_ids",
        "markov_rank",
        "enable_confidence_head",
        "mask_token_id",
        *(
            f"{k}?{MUSE_MOE_LAYERS}"
            for k in ("num_experts_per_tok", "moe_hidden_size", "moe_intermediate_size")
        ),
    ),
    required_tensors=("lm_head.weight", "d2t"),
    prefixed_names="rejected",
    aux_layer_keys=("target_layer_ids",),
    aux_default="required",
    missing_d2t="error",
    d2t_param="always",
    missing_lm_head="refused",
    lm_head_from_target="never",
    own_embed_kept=False,
    requires_embed_when_expanded=False,
    served_architectures=("MuseSparkDSparkModel@muse_spark_dspark",),
    unserved_architecture="",
)


PROFILES = (VLLM_MUSE_SPARK_DSPARK,)
