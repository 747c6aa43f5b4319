"""vLLM 0.33.0's profiles for the DFlash variant architectures whose model differs from the
DFlash loader's (``vllm-dflash``) in what the checks read: each a ``Profile.derive`` of it,
only the changed fields, each cited at the 0.33.0 wheel (``profiles/variants.py`` says
which architecture each judges, and why the others are judged as their family or not at
all).
"""

from __future__ import annotations

from dspark_ckpt.profiles.vllm import (
    DFLASH_UTILS,
    DSPARK_UTILS,
    FUSED_MAPS,
    NO_PARAM_ANCHORED,
    REGISTRY,
    SPEC_CONFIG,
    VLLM,
    VLLM_DFLASH_0_31,
    VLLM_DSPARK_0_30,
    M,
)

DFLASH2_PY = M + "qwen3_dflash2.py"
XPRESS_PY = M + "qwen3_xpress.py"
BEAM_PY = "vllm/models/beam/nvidia/dflash2.py"
GEMMA4_PY = M + "gemma4_dspark.py"
LILICORR_PY = M + "lilicorr.py"
LAGUNA_PY = M + "laguna_dflash.py"
LAGUNA_LAYER_PY = M + "laguna.py"
GEMMA4_MTP_PY = M + "gemma4_mtp.py"
READ = "==0.33.0"  # the one release read

# DFlash2 (DFlash2DraftModel): the DFlash model with a candidate selector and, in every decoder
# layer, grouped convolutions around attention and the MLP, sized by dflash_config keys it reads
# with [] (a missing key: KeyError at build); the DFlash loader and its names otherwise
VLLM_DFLASH2 = VLLM_DFLASH_0_31.derive(
    name="vllm-dflash2",
    release=VLLM,
    releases=READ,
    variant="dflash2",
    sources=(DFLASH2_PY, M + "qwen3_dflash.py", REGISTRY),
    cites={
        "extra_modules": f"{DFLASH2_PY}:381-388 `self.candidate_selector = CandidateSelector(`; "
        f"{DFLASH2_PY}:325-337 `self.predecessor_codebook = nn.Parameter(` "
        "`self.hidden_projection = ReplicatedLinear(`; "
        f"{DFLASH2_PY}:260-265 `self.attention_conv = DFlashGroupedConv(` "
        "`self.mlp_conv = DFlashGroupedConv(`; "
        f"{DFLASH2_PY}:190-196 `self.base_kernel = nn.Parameter(` "
        "`self.kernel_projection = ReplicatedLinear(`",
        "required_keys": f'{DFLASH2_PY}:248-254 `taps=int(draft_config["conv_kernel_size"])` '
        '`group_size=int(draft_config["conv_group_size"])`; '
        f'{DFLASH2_PY}:376-386 `rank=int(draft_config["selector_rank"])` '
        '`top_k=int(draft_config["selector_top_k"])`',
    },
    extra_modules=(
        "candidate_selector:predecessor_codebook,successor_codebook,hidden_projection.weight",
        "layers.*.attention_conv:base_kernel,kernel_projection.weight",
        "layers.*.mlp_conv:base_kernel,kernel_projection.weight",
    ),
    required_keys=(
        "dflash_config.selector_rank",
        "dflash_config.selector_top_k",
        "dflash_config.conv_kernel_size",
        "dflash_config.conv_group_size",
    ),
)

# XPress (Qwen3XPressModel, DFlashQwen3XPressModel): the DFlash model with a refiner head
# (xpress_head) over the full vocabulary, its own load_weights (no fc drop, d2t skipped,
# mix.L required)
VLLM_XPRESS = VLLM_DFLASH_0_31.derive(
    name="vllm-xpress",
    release=VLLM,
    releases=READ,
    variant="xpress",
    sources=(XPRESS_PY, M + "qwen3_dflash.py", REGISTRY),
    cites={
        "extra_modules": f"{XPRESS_PY}:255-264 `self.xpress_head = XPressRefinerHead(`; "
        f"{XPRESS_PY}:47-58 `self.w1 = nn.Embedding(vocab_size, r)` `self.w2 = nn.Linear(`; "
        f'{XPRESS_PY}:227-236 `"mlp.gate_proj.weight": "mlp_gate.weight",`; '
        f'{XPRESS_PY}:320-327 `name = "model.xpress_head." + mapped`',
        "required_tensors": f"{XPRESS_PY}:352-353 `XPress checkpoint is missing xpress_head.mix.L`",
        "vocab_equal_target": f"{XPRESS_PY}:299-304 `XPress currently requires a full-vocab draft`",
        "missing_d2t": f"{XPRESS_PY}:305 `self.draft_id_to_target_id = None` (no d2t path)",
        "d2t_param": f'{XPRESS_PY}:319-320 `if "t2d" in name or "d2t" in name:` (skipped)',
        "dropped_unbuilt": f'{XPRESS_PY}:340-349 `skip_substrs = ["mask_embedding", '
        '"xpress_head.mix_L"]` (fc is not dropped without aux states: refused)',
        "mask_hidden": f'{XPRESS_PY}:328-329 `name = "model." + name` (no mask_hidden '
        f"parameter); {M}utils.py:443 `There is no module or parameter named`",
    },
    extra_modules=(
        *(f"xpress_head.{m}" for m in ("w1", "down_h", "down_g", "in_proj", "w2")),
        *(f"xpress_head.mlp_{m}|xpress_head.mlp.{m}_proj" for m in ("gate", "up", "down")),
    ),
    required_tensors=("xpress_head.mix.L",),
    vocab_equal_target=True,
    missing_d2t="unused",
    d2t_param="ignored",
    dropped_unbuilt=("mask_embedding",),
    mask_hidden="no_parameter",
)

# Gemma 4 DSpark (Gemma4DSparkModel): a DSpark drafter (the DSpark speculator, its Markov head)
# of Gemma 4 decoder layers whose K projection is also V (attention_k_eq_v), with its own
# load_weights: "model." + each name but lm_head, gate/up stacked, any name it has no
# parameter for skipped; its own lm_head (vocab_size rows) and no d2t
GEMMA4_LOAD = f'{GEMMA4_PY}:315-323 `name = "model." + name` `if name in params:`'
VLLM_GEMMA4_DSPARK = VLLM_DSPARK_0_30.derive(
    name="vllm-gemma4-dspark",
    release=VLLM,
    releases=READ,
    variant="gemma4-dspark",
    sources=(GEMMA4_PY, GEMMA4_MTP_PY, M + "qwen3_dspark.py", DSPARK_UTILS, SPEC_CONFIG),
    cites={
        "layer_modules": f"{GEMMA4_MTP_PY}:183-197 `self.q_proj = ColumnParallelLinear(` "
        "`self.o_proj = RowParallelLinear(` `self.q_norm = RMSNorm(`; "
        f"{GEMMA4_PY}:71-88 `self.k_proj = ColumnParallelLinear(` `if self.use_k_eq_v` "
        "(no v_proj) `has_weight=False` (v_norm); "
        f"{GEMMA4_MTP_PY}:285-302 `self.mlp = Gemma4MLP(` `self.pre_feedforward_layernorm = "
        f'RMSNorm(`; {GEMMA4_PY}:309 `stacked = [("gate_up_proj", "gate_proj", 0)`',
        "name_maps": f"{GEMMA4_PY}:308-323 `def load_weights` (no hf_to_vllm_mapper: no "
        "midlayer, encoder.* or qkv_proj names; gate_up_proj is a parameter)",
        "dropped_unbuilt": GEMMA4_LOAD + " (every name it lacks is skipped)",
        "stray_names": GEMMA4_LOAD,
        "required_keys": f"{GEMMA4_PY}:212-214 `assert all(a.use_k_eq_v for a in "
        f"layers_attn)`; {GEMMA4_PY}:45-48 `self.use_k_eq_v = layer_type == "
        '"full_attention" and getattr(`',
        "missing_d2t": f"{GEMMA4_PY}:306 `self.draft_id_to_target_id = None` (no d2t path)",
        "d2t_param": f"{GEMMA4_PY}:306 `self.draft_id_to_target_id = None`; {GEMMA4_LOAD} "
        "(model.d2t is no parameter: skipped)",
        "missing_lm_head": f"{GEMMA4_PY}:297-301 `self.lm_head = ParallelLMHead(` (loaded "
        f"only from lm_head.*); {DSPARK_UTILS}:142-149 `draft_output_vocab_size == "
        "target_vocab_size` (a reduced drafter keeps it)",
        "requires_embed_when_expanded": f"{GEMMA4_PY}:308-332 `def load_weights` (no "
        "embed_tokens check)",
        "aux_layer_keys": f"{GEMMA4_PY}:148-150 `getattr(config, "
        '"dspark_target_layer_ids", None) or config.target_layer_ids`',
        "aux_default": f"{GEMMA4_PY}:148-150 `or config.target_layer_ids` (AttributeError "
        "without either)",
        "fc_input_hidden": f"{GEMMA4_PY}:165-167 `config.hidden_size * len(self.target_layer_ids)`",
        "served_architectures": f'{SPEC_CONFIG}:1462 `or "Gemma4DSparkModel" in '
        f"self.draft_model_config.architectures`; {SPEC_CONFIG}:1549 `and "
        '"Gemma4DSparkModel" not in self.draft_model_config.architectures` (not rewritten)',
    },
    layer_modules=(
        *(f"self_attn.{m}" for m in ("q_proj", "k_proj", "o_proj", "q_norm", "k_norm")),
        "mlp.gate_proj|mlp.gate_up_proj",
        "mlp.up_proj|mlp.gate_up_proj",
        "mlp.down_proj",
        *(f"{m}_layernorm" for m in ("input", "post_attention", "pre_feedforward")),
        "post_feedforward_layernorm",
    ),
    name_maps=(),
    dropped_unbuilt=(),
    stray_names="skipped",
    required_keys=("truthy:attention_k_eq_v", "every:layer_types=full_attention"),
    missing_d2t="unused",
    d2t_param="ignored",
    missing_lm_head="unshared",
    requires_embed_when_expanded=False,
    aux_layer_keys=("dspark_target_layer_ids", "target_layer_ids"),
    aux_default="required",
    fc_input_hidden="hidden_size",
    served_architectures=("Gemma4DSparkModel",),
)

# DFlash2 for Beam targets (DFlash2BeamDraftModel, vllm.models.beam in the wheel): the DFlash2
# model over sliding-attention layers, loaded by AutoWeightsLoader on the inner model with
# only the q/k/v and gate/up stacking (no midlayer / encoder.* names, nothing dropped), no
# lm_head module (the target's, always), the target's embedding always, no d2t
BEAM_AUTO = f"{BEAM_PY}:537-539 `loader = AutoWeightsLoader(self)`; {NO_PARAM_ANCHORED}"
VLLM_DFLASH2_BEAM = VLLM_DFLASH2.derive(
    name="vllm-dflash2-beam",
    release=VLLM,
    releases=READ,
    variant="dflash2-beam",
    sources=(BEAM_PY, DFLASH2_PY, DFLASH_UTILS, REGISTRY),
    cites={
        "extra_modules": f"{BEAM_PY}:370-377 `self.candidate_selector = "
        f"DFlash2BeamCandidateSelector(`; {BEAM_PY}:273-285 `self.predecessor_codebook = "
        f"nn.Parameter(` `self.hidden_projection = ReplicatedLinear(`; {BEAM_PY}:209-214 "
        "`self.attention_conv = DFlashGroupedConv(` `self.mlp_conv = DFlashGroupedConv(`",
        "required_keys": f'{BEAM_PY}:199-204 `taps=int(draft_config["conv_kernel_size"])`; '
        f'{BEAM_PY}:373-374 `rank=int(draft_config["selector_rank"])`; {BEAM_PY}:563-566 '
        f'`soft_cap=float(draft_config["final_logit_softcapping"])`; {BEAM_PY}:79 '
        '`assert config.layer_types[layer_idx] == "sliding_attention"`',
        "name_maps": f"{BEAM_PY}:310-318 `hf_to_vllm_mapper = WeightsMapper(` (the stacked "
        "q/k/v and gate/up only)",
        "dropped_unbuilt": BEAM_AUTO + " (no skipped names)",
        "aux_layer_keys": f"{BEAM_PY}:356-357 `config.hidden_size * "
        'len(draft_config["target_layer_ids"])`',
        "aux_default": f'{BEAM_PY}:357 `len(draft_config["target_layer_ids"])` (a KeyError '
        "without it)",
        "fc_input_hidden": f"{BEAM_PY}:356-357 `config.hidden_size * `",
        "lm_head_from_target": f"{BEAM_PY}:543-545 `has_own_lm_head = False`; {BEAM_PY}:"
        f"619-623 `self.model.load_weights(weights)` (lm_head is no name of the inner model: "
        f"{NO_PARAM_ANCHORED})",
        "missing_lm_head": f"{BEAM_PY}:543-545 `has_own_lm_head = False`; {DFLASH_UTILS}:62-73 "
        "`and _should_share(`",
        "own_embed_kept": f"{BEAM_PY}:543-544 `has_own_embed_tokens = False`; "
        f"{DFLASH_UTILS}:60 `maybe_share_target_embed(dflash_model` (always the target's)",
        "missing_d2t": f"{BEAM_PY}:546-547 `draft_id_to_target_id = None` (no d2t path)",
        "d2t_param": f"{BEAM_PY}:546-547 `draft_id_to_target_id = None`; {BEAM_AUTO}",
    },
    required_keys=(
        *VLLM_DFLASH2.required_keys,
        "dflash_config.final_logit_softcapping",
        "every:layer_types=sliding_attention",
    ),
    name_maps=FUSED_MAPS,
    dropped_unbuilt=(),
    aux_layer_keys=("dflash_config.target_layer_ids",),
    aux_default="required",
    fc_input_hidden="hidden_size",
    lm_head_from_target="unbuilt",
    missing_lm_head="target-always",
    own_embed_kept=False,
    missing_d2t="unused",
    d2t_param="rejected",
)

# LiLiCorr (LiLiCorrDraftModel): the DFlash model (DFlash2's convolutional layers where
# dflash_config sets conv_kernel_size) with a lattice correction head, lilicorr.*, sized by
# dflash_config keys read with [] and loaded strictly: every head parameter (and each layer's
# convolutions) must be in the checkpoint, else 'LiLiCorr checkpoint coverage mismatch'; a
# full-vocab draft only; names under model. are stripped. The head's fixed parameters and its
# first layer's are required by name (ReplicatedLinear has a bias by default).
_LILI_LINEAR = ("pass_hidden_proj", "context_proj", "factor_input_proj", "out_head", "in_head")
_LILI_LAYER = ("attn.out_proj", "mlp.up_proj", "mlp.down_proj")
WB = ("weight", "bias")
LILICORR_TENSORS = tuple(
    f"lilicorr.{name}"
    for name in (
        *(f"{m}.{t}" for m in (*_LILI_LINEAR, "anchor_out_head") for t in WB),
        *(f"feature_{m}.{t}" for m in ("norm", "mlp.up_proj", "mlp.down_proj") for t in WB),
        "slot_embedding",
        "rank_embedding",
        "relative_slot_bias",
        "same_slot_bias",
        "output_norm.weight",
        "anchor_norm.weight",
        *(f"layers.0.{m}.{t}" for m in _LILI_LAYER for t in WB),
        "layers.0.attn_norm.weight",
        "layers.0.mlp_norm.weight",
        "layers.0.attn.in_proj_weight",
        "layers.0.attn.in_proj_bias",
    )
)
LILI_KEYS = ("candidate_topk", "num_heads", "mlp_ratio", "factor_dim", "vector_eps")
VLLM_LILICORR = VLLM_DFLASH_0_31.derive(
    name="vllm-lilicorr",
    release=VLLM,
    releases=READ,
    variant="lilicorr",
    sources=(LILICORR_PY, M + "qwen3_dflash.py", DFLASH2_PY, REGISTRY),
    cites={
        "extra_modules": f"{LILICORR_PY}:453-462 `self.lilicorr = LiLiCorrHead(`; "
        f"{LILICORR_PY}:448-450 `self.decoder_layer_cls = DFlash2Qwen3DecoderLayer`; "
        f"{DFLASH2_PY}:260-265 `self.attention_conv = DFlashGroupedConv(`",
        "required_keys": f'{LILICORR_PY}:142-154 `config["lilicorr_candidate_topk"]` '
        f'`config["lilicorr_logit_scale"]`; {LILICORR_PY}:213 '
        '`range(config["lilicorr_num_layers"])`',
        "required_tensors": f"{LILICORR_PY}:512-520 `expected = {{` "
        '`name.startswith("model.lilicorr.")`; '
        f"{LILICORR_PY}:539-543 `LiLiCorr checkpoint coverage mismatch`; "
        f"{LILICORR_PY}:51-62 `self.in_proj_weight = nn.Parameter(` "
        "`self.out_proj = ReplicatedLinear(`; vllm/model_executor/layers/linear.py:352 "
        "`bias: bool = True,` (ReplicatedLinear's default)",
        "vocab_equal_target": f"{LILICORR_PY}:472-473 `LiLiCorr candidates require the full "
        f"target vocabulary`; {M}qwen3_dflash.py:769-770 `if self.config.draft_vocab_size "
        "!= target_vocab_size:`",
        "prefixed_names": f'{LILICORR_PY}:527-528 `name = name.removeprefix("model.")`',
    },
    extra_modules=(
        "lilicorr:*",
        "layers.*.attention_conv:base_kernel,kernel_projection.weight"
        "?dflash_config.conv_kernel_size",
        "layers.*.mlp_conv:base_kernel,kernel_projection.weight?dflash_config.conv_kernel_size",
    ),
    required_keys=(
        *(f"dflash_config.lilicorr_{k}" for k in LILI_KEYS),
        "dflash_config.lilicorr_logit_scale",
        "dflash_config.lilicorr_num_layers",
    ),
    required_tensors=LILICORR_TENSORS,
    vocab_equal_target=True,
    prefixed_names="stripped",
)

# Laguna DFlash (DFlashLagunaForCausalLM): the DFlash model over Laguna decoder layers (fused
# qkv_proj, an optional output gate and attention sink, separate gate/up projections; MoE
# layers it cannot load), one RMSNorm per target hidden state (aux_hidden_norms), loaded by
# its own load_weights: params_dict[name], no renames, no names dropped or ignored
LAGUNA_LOAD = f"{LAGUNA_PY}:225-233 `param = params_dict[name]` (a KeyError for any other name)"
VLLM_LAGUNA = VLLM_DFLASH_0_31.derive(
    name="vllm-laguna",
    release=VLLM,
    releases=READ,
    variant="laguna",
    sources=(LAGUNA_PY, LAGUNA_LAYER_PY, M + "qwen3_dflash.py", REGISTRY),
    cites={
        "layer_modules": f"{LAGUNA_LAYER_PY}:307-318 `self.qkv_proj = QKVParallelLinear(` "
        f"`self.o_proj = RowParallelLinear(`; {LAGUNA_LAYER_PY}:331-342 `if self.gating:` "
        f"`self.g_proj = ColumnParallelLinear(`; {LAGUNA_LAYER_PY}:357 `self.sink = "
        f"make_attention_sink(`; {LAGUNA_LAYER_PY}:423-424 `self.q_norm = RMSNorm(`; "
        f"{LAGUNA_LAYER_PY}:91-105 `self.gate_proj = ColumnParallelLinear(` `self.down_proj = "
        f"RowParallelLinear(`; {LAGUNA_LAYER_PY}:538-539 `self.input_layernorm = RMSNorm(`",
        "extra_modules": f"{LAGUNA_PY}:128 `self.aux_hidden_norms = nn.ModuleList(`",
        "required_keys": f"{LAGUNA_PY}:45-58 `Laguna DFlash config requires` (layer_types, "
        f"uniform); {LAGUNA_PY}:78-83 "
        '`target_layer_ids = self.config.dflash_config["target_layer_ids"]`; '
        f"{LAGUNA_PY}:244-245 `Laguna DFlash config requires` (draft_vocab_size); "
        f'{LAGUNA_LAYER_PY}:517-519 `get_mlp_layer_types(config)[layer_idx] == "sparse"` (a '
        "LagunaMoE layer, whose experts' weight_loader this load_weights cannot call: "
        "vllm/model_executor/layers/fused_moe/routed_experts.py:688-695 `expert_id: int,`)",
        "vocab_equal_target": f"{LAGUNA_PY}:250-256 `to match the target vocabulary size`",
        "name_maps": LAGUNA_LOAD + " (no hf_to_vllm_mapper)",
        "dropped_unbuilt": LAGUNA_LOAD + " (mask_embedding is a buffer, no parameter)",
        "unexpected_ignored_suffixes": LAGUNA_LOAD,
        "aux_layer_keys": f'{LAGUNA_PY}:78 `self.config.dflash_config["target_layer_ids"]`',
        "aux_default": f"{LAGUNA_PY}:78-83 `requires non-empty` (a KeyError without it)",
    },
    layer_modules=(
        "self_attn.qkv_proj",
        "self_attn.o_proj",
        "self_attn.q_norm",
        "self_attn.k_norm",
        "self_attn.g_proj?gating",
        "self_attn:sink?swa_attention_sink_enabled",
        "mlp.gate_proj",
        "mlp.up_proj",
        "mlp.down_proj",
        "input_layernorm",
        "post_attention_layernorm",
    ),
    extra_modules=("aux_hidden_norms.#",),
    required_keys=(
        "layer_types",
        "draft_vocab_size",
        "truthy:dflash_config.target_layer_ids",
        "every:mlp_layer_types=dense",
    ),
    vocab_equal_target=True,
    name_maps=(),
    dropped_unbuilt=(),
    unexpected_ignored_suffixes=(),
    aux_layer_keys=("dflash_config.target_layer_ids",),
    aux_default="required",
)

# K3 DSpark (K3DSparkModel): a DSpark drafter (the DSpark speculator, qwen3_dspark's Markov and
# confidence heads) of Kimi-K3 MLA decoder layers, with context_proj / context_norm / final_norm
# in place of fc / hidden_norm / norm and a cross-layer context_kv_proj that its load_weights
# fills from each layer's kv_a_proj_with_mqa; no lm_head and no embedding of its own (the
# target's, shared only for a full-vocab draft), no d2t. Its load_weights returns the names it
# loaded, so vLLM's loader refuses a parameter nothing loaded (unquantised) of a module with no
# quant method (a norm, markov_w1); a linear layer nothing loaded stays uninitialised.
K3_PY = "vllm/models/kimi_k3/nvidia/dspark_mla.py"
K3_MLA_PY = "vllm/models/kimi_k3/nvidia/mla.py"
K3_MODEL_PY = "vllm/models/kimi_k3/nvidia/model.py"
DEFAULT_LOADER = "vllm/model_executor/model_loader/default_loader.py"
K3_MAPPER = f"{K3_PY}:437-451 `hf_to_vllm_mapper = WeightsMapper(` `orig_to_new_substr={{`"
_K3_ATTN = "self_attn."
_K3_FUSED = ("q_a_proj", "kv_a_proj_with_mqa")  # stacked into fused_qkv_a_proj with q-LoRA
VLLM_K3_DSPARK = VLLM_DSPARK_0_30.derive(
    name="vllm-k3-dspark",
    release=VLLM,
    releases=READ,
    variant="k3-dspark",
    sources=(K3_PY, K3_MLA_PY, K3_MODEL_PY, DSPARK_UTILS, DEFAULT_LOADER, SPEC_CONFIG),
    cites={
        "top_modules": f"{K3_PY}:150-160 `self.context_proj = ReplicatedLinear(` "
        f"`self.context_norm = RMSNorm(`; {K3_PY}:174-187 `self.context_kv_proj = "
        "MergedColumnParallelLinear(` `self.final_norm = RMSNorm(`; "
        f"{K3_PY}:39-58 `def _duplicate_context_kv_weights(` (filled from each layer's "
        "kv_a_proj_with_mqa)",
        "layer_modules": f"{K3_PY}:73-80 `self.self_attn = MultiHeadLatentAttention(` "
        f"`q_lora_rank=config.q_lora_rank,`; {K3_MLA_PY}:217-262 `if self.q_lora_rank is not "
        "None:` `self.fused_qkv_a_proj = MergedColumnParallelLinear(` `self.q_a_layernorm = "
        f"RMSNorm(`; {K3_MLA_PY}:263-276 `self.q_proj = ColumnParallelLinear(` "
        f"`self.kv_a_proj_with_mqa = ReplicatedLinear(`; {K3_MLA_PY}:287-297 "
        "`self.kv_a_layernorm = RMSNorm(` `self.o_proj = RowParallelLinear(`; "
        f"{K3_PY}:93-104 `self.mlp = KimiMLP(` `self.input_layernorm = RMSNorm(`; "
        f"{K3_MODEL_PY}:241-249 `self.gate_up_proj = MergedColumnParallelLinear(`; "
        f"{K3_PY}:446-451 `orig_to_new_stacked={{`",
        "name_maps": K3_MAPPER + " (no midlayer or encoder.* names)",
        "dropped_unbuilt": K3_MAPPER + ' `"confidence_head": None,` (mask_embedding is no '
        f"name it drops: {NO_PARAM_ANCHORED})",
        "missing_tensors": f"{K3_PY}:530-534 `def load_weights` `return loader.load_weights(` "
        f"(the loaded names); {DEFAULT_LOADER}:531-566 `has_postprocess_quant = getattr(` "
        "`loaded_weights.add(full_name)` (unquantised, every module with a quant method counts "
        "as loaded: a linear layer nothing filled stays uninitialised)",
        "checked_after_load": f"{DEFAULT_LOADER}:511-523 `model_config.quantization is None and "
        f"loaded_weights is not None`; {DEFAULT_LOADER}:567-572 `Following weights were not "
        "initialized from` (the rest: RMSNorm weights and markov_w1, an nn.Embedding: "
        f"{M}qwen3_dspark.py:71 `self.markov_w1 = nn.Embedding(vocab_size, markov_rank)`)",
        "required_keys": f"{K3_PY}:150-152 `self.config.target_hidden_size * "
        f"self.config.num_target_layers`; {K3_PY}:76-81 `qk_nope_head_dim=config.qk_nope_head_dim,` "
        f"`kv_lora_rank=config.kv_lora_rank,`; {K3_PY}:174 `kv_width = self.config.kv_lora_rank "
        "+ self.config.qk_rope_head_dim` (attribute reads: an AttributeError without them)",
        "aux_layer_keys": f"{K3_PY}:150-152 `self.config.num_target_layers`",
        "aux_default": f"{K3_PY}:151 `self.config.num_target_layers` (no default)",
        "missing_d2t": f"{K3_PY}:436 `draft_id_to_target_id = None` (no d2t path)",
        "d2t_param": f"{K3_PY}:436 `draft_id_to_target_id = None`; {K3_MAPPER} (d2t and t2d "
        f"are kept and named model.*, no parameter: {NO_PARAM_ANCHORED})",
        "lm_head_from_target": f"{K3_PY}:472-474 `self.lm_head: nn.Module | None = None`; "
        f'{K3_MAPPER} `"lm_head": None,` (a shipped head dropped)',
        "missing_lm_head": f"{K3_PY}:435 `has_own_lm_head = False`; {DSPARK_UTILS}:142-149 "
        "`draft_output_vocab_size == target_vocab_size` (else no head: "
        f"{K3_PY}:508 `assert self.lm_head is not None`)",
        "vocab_equal_target": f"{DSPARK_UTILS}:142-149 `draft_output_vocab_size == "
        f"target_vocab_size` (the target's head only then); {K3_PY}:508 `assert self.lm_head "
        "is not None` (a pruned or padded draft has none: the first draft step fails)",
        "own_embed_kept": f"{K3_PY}:434 `has_own_embed_tokens = False`; {K3_MAPPER} "
        '`"embed_tokens": None,` (a shipped embedding dropped: the target\'s)',
        "requires_embed_when_expanded": f'{K3_MAPPER} `"embed_tokens": None,` (a shipped '
        "embedding is never loaded: nothing to require)",
        "served_architectures": f'{SPEC_CONFIG}:1548-1552 `and "K3DSparkModel" not in '
        "self.draft_model_config.architectures` (not rewritten to the DeepSeek-V4 drafter)",
    },
    top_modules=(
        "context_proj",
        "context_norm",
        "final_norm",
        f"context_kv_proj|layers.0.{_K3_ATTN}kv_a_proj_with_mqa",
    ),
    layer_modules=(
        *(f"{_K3_ATTN}{m}|{_K3_ATTN}fused_qkv_a_proj?q_lora_rank" for m in _K3_FUSED),
        *(f"{_K3_ATTN}{m}?q_lora_rank" for m in ("q_a_layernorm", "q_b_proj")),
        *(f"{_K3_ATTN}{m}?!q_lora_rank" for m in ("q_proj", "kv_a_proj_with_mqa")),
        *(f"{_K3_ATTN}{m}" for m in ("kv_a_layernorm", "kv_b_proj", "o_proj")),
        "mlp.gate_proj|mlp.gate_up_proj",
        "mlp.up_proj|mlp.gate_up_proj",
        "mlp.down_proj",
        "input_layernorm",
        "post_attention_layernorm",
    ),
    name_maps=(),
    dropped_unbuilt=("confidence_head",),
    missing_tensors="uninitialised",
    checked_after_load=("norm", "markov_head.markov_w1"),
    required_keys=(
        "target_hidden_size",
        "num_target_layers",
        *("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank"),
    ),
    aux_layer_keys=("num_target_layers",),
    aux_default="required",
    missing_d2t="unused",
    d2t_param="none",
    lm_head_from_target="always",
    missing_lm_head="target-always",
    vocab_equal_target=True,
    own_embed_kept=False,
    requires_embed_when_expanded=False,
    served_architectures=("K3DSparkModel",),
)

PROFILES = (
    VLLM_DFLASH2,
    VLLM_XPRESS,
    VLLM_GEMMA4_DSPARK,
    VLLM_DFLASH2_BEAM,
    VLLM_LILICORR,
    VLLM_LAGUNA,
    VLLM_K3_DSPARK,
)
