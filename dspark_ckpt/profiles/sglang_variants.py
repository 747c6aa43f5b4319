"""SGLang 0.5.23's profiles for the DFlash variant architectures whose model differs from the
DFlash loader's (``sglang-dflash``) in what the checks read: each a ``Profile.derive`` of
it, only the changed fields, each cited (``profiles/variants.py`` says which architecture
each judges).
"""

from __future__ import annotations

from dspark_ckpt.profiles.eagle1 import SGLANG_EAGLE
from dspark_ckpt.profiles.quant_fc import SGLANG_LILICORR_FC, SGLANG_MINIMAX_FC
from dspark_ckpt.profiles.sglang import PROFILES as SGLANG_PROFILES
from dspark_ckpt.profiles.sglang import SG_DFLASH, SG_DFLASH_CFG, SGLANG, SGLANG_RELEASES, S
from dspark_ckpt.profiles.vllm_variants import LILICORR_TENSORS

SG_DFLASH_PROFILE = next(p for p in SGLANG_PROFILES if p.name == "sglang-dflash")
CONV = "base_kernel,kernel_projection.weight?dflash_config.conv_kernel_size"

# DFlash2 (DFlash2DraftModel and its aliases DFlash2BeamDraftModel, MiniMaxDFlash2DraftModel):
# the DFlash model with a candidate selector, refused at build without a selector rank and
# top_k; grouped convolutions in every decoder layer where dflash_config sets them (the base
# DFlash model builds those too)
SGLANG_DFLASH2 = SG_DFLASH_PROFILE.derive(
    name="sglang-dflash2",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="dflash2",
    sources=(SG_DFLASH, SG_DFLASH_CFG),
    cites={
        "extra_modules": f"{SG_DFLASH}:1274 `self.candidate_selector = CandidateSelector(`; "
        f"{SG_DFLASH}:1166-1172 `self.predecessor_codebook = nn.Parameter(` "
        "`self.hidden_projection = nn.Linear(`; "
        f"{SG_DFLASH}:719,733-734 `if not draft_config.conv_kernel_size:` "
        "`attention_conv=grouped_conv(),`; "
        f"{SG_DFLASH}:560-561 `self.base_kernel = nn.Parameter(base_kernel)`",
        "required_keys": f"{SG_DFLASH}:1270-1272 `if not draft_config.selector_rank:`; "
        f"{SG_DFLASH_CFG}:645-649 `DFLASH selector needs rank and top_k together` "
        f'(both read from dflash_config only: {SG_DFLASH_CFG}:445-451 `cfg = config.get("dflash_config", None)`)',
    },
    extra_modules=(
        "candidate_selector:predecessor_codebook,successor_codebook,hidden_projection.weight",
        f"layers.*.attention_conv:{CONV}",
        f"layers.*.mlp_conv:{CONV}",
    ),
    required_keys=("truthy:dflash_config.selector_rank", "truthy:dflash_config.selector_top_k"),
)

# Laguna DFlash (DFlashLagunaForCausalLM): the DFlash model whose attention has Laguna's output
# gate (built unless the config's gating is false: getattr(config, "gating", True)), and one
# RMSNorm per target hidden state; the DFlash loader and its names otherwise
SGLANG_LAGUNA = SG_DFLASH_PROFILE.derive(
    name="sglang-laguna",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="laguna",
    sources=(SG_DFLASH, SG_DFLASH_CFG),
    cites={
        "extra_modules": f"{SG_DFLASH}:1016-1027 "
        '`gating = normalize_gating(getattr(config, "gating", True))` '
        '`if self.gating == "disabled":` `self.g_proj = ColumnParallelLinear(`; '
        f"{SG_DFLASH}:1057-1067 `decoder_layer_cls = DFlashLagunaDecoderLayer` "
        "`self.aux_hidden_norms = nn.ModuleList(`",
    },
    extra_modules=("layers.*.self_attn.g_proj?~gating", "aux_hidden_norms.#"),
)

# LiLiCorr (LiLiCorrDraftModel): the DFlash model with a lattice correction head, lilicorr.*,
# rebuilt from dflash_config's lilicorr_* keys (each required, no default) and checked after the
# load: every head parameter must be there (the DFlash loader would skip a missing one), and
# the grouped convolutions where dflash_config builds them. The head's names are vLLM's.
SG_LILICORR = S + "models/lilicorr.py"
SG_LILICORR_CFG = S + "speculative/lilicorr_utils.py"
SGLANG_LILICORR = SG_DFLASH_PROFILE.derive(
    name="sglang-lilicorr",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="lilicorr",
    sources=(SG_LILICORR, SG_LILICORR_CFG, SG_DFLASH, SG_DFLASH_CFG),
    cites={
        "quantised_fc": SGLANG_LILICORR_FC,
        "extra_modules": f"{SG_LILICORR}:534 `self.lilicorr = LiLiCorrHead(`; "
        f"{SG_DFLASH}:719,733-734 `if not draft_config.conv_kernel_size:` "
        "`attention_conv=grouped_conv(),`",
        "required_keys": f"{SG_LILICORR_CFG}:55-60 `if full_key not in dflash_cfg:` "
        f"`is required to rebuild the LiLiCorr`; {SG_LILICORR_CFG}:72-93 "
        '`candidate_topk = required("candidate_topk", int)` '
        '`logit_scale=required("logit_scale", float),`',
        "architectures": f"{SG_LILICORR}:575 `EntryClass = [LiLiCorrDraftModel]`",
        "required_tensors": f"{SG_LILICORR}:459-476 `def check_head_weight_coverage` "
        f"`LiLiCorr checkpoint is missing`; {SG_LILICORR}:568 "
        "`check_head_weight_coverage(self.lilicorr, seen)`",
    },
    quantised_fc="quantised",
    extra_modules=(
        "lilicorr:*",
        f"layers.*.attention_conv:{CONV}",
        f"layers.*.mlp_conv:{CONV}",
    ),
    required_keys=tuple(
        f"dflash_config.lilicorr_{k}"
        for k in (
            *("candidate_topk", "hidden_size", "num_layers", "num_heads", "mlp_ratio"),
            *("factor_dim", "vector_eps", "logit_scale"),
        )
    ),
    required_tensors=LILICORR_TENSORS,
    architectures=("LiLiCorrDraftModel",),
)

PROFILES = (SGLANG_DFLASH2, SGLANG_LAGUNA, SGLANG_LILICORR)


# M3.1 DSpark (DSparkMiniMaxDraftModel): the DSpark model over MiniMax-M3 decoder layers (each
# wrapped as layers.<i>.decoder_layer; fused qkv_proj and gate_up_proj, q/k norms always, a dense
# MLP: the config normalisation turns every MoE layer and the sparse attention off), built from
# the config SGLang normalises itself, and loaded by its own strict load_weights: only names under
# dspark., model.dspark. or language_model.model.dspark. are read (any other is skipped), renamed
# (block_sparse_moe -> mlp, final_norm -> norm, q/k/v and gate/up stacked: a gated Markov head's
# gate_proj is renamed too, to a parameter it does not have), and then a name it has no parameter
# for, a fused parameter with a shard missing, or any parameter not loaded fails the load. The
# confidence head is built only outside the default ragged-verify mode (static): its names skipped.
SG_MINIMAX = S + "models/dspark_minimax.py"
SG_MINIMAX_CFG = S + "configs/minimax_vl.py"
SG_MINIMAX_M3 = S + "models/minimax_m3.py"
SG_MINIMAX_LOAD = (
    f"{SG_MINIMAX}:300-301 `Unexpected DSpark checkpoint tensor`; {SG_MINIMAX}:310-322 "
    "`Missing DSpark checkpoint shards` `Missing DSpark checkpoint tensors`"
)
_ATTN = "decoder_layer.self_attn."
_MLP = "decoder_layer.mlp."
_GATE_UP = ((0, "gate"), (1, "up"))
SGLANG_DSPARK_MINIMAX = next(p for p in SGLANG_PROFILES if p.name == "sglang-dspark").derive(
    name="sglang-dspark-minimax",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="dspark-minimax",
    sources=(SG_MINIMAX, SG_MINIMAX_CFG, SG_MINIMAX_M3, S + "models/dspark.py"),
    cites={
        "quantised_fc": SGLANG_MINIMAX_FC,
        "read_prefixes": f"{SG_MINIMAX}:277 "
        '`prefixes = ("language_model.model.dspark.", "model.dspark.", "dspark.")`; '
        f'{SG_MINIMAX}:286-290 `if name is None or "rotary_emb." in name:` (skipped)',
        "renames": f"{SG_MINIMAX}:278-284 `stacked = (`; {SG_MINIMAX}:289-299 "
        '`name = name.replace("block_sparse_moe", "mlp").replace("final_norm", "norm")` '
        "`name = name.replace(source, target)` (every name, a Markov gate_proj too)",
        "missing_tensors": SG_MINIMAX_LOAD,
        "stray_names": SG_MINIMAX_LOAD,
        "name_maps": f"{SG_MINIMAX}:270-299 `def load_weights` (its own renames only: no "
        "encoder.* names)",
        "layer_modules": f"{SG_MINIMAX}:114-126 `DSparkMiniMaxLayer(` `DSparkMiniMaxDecoder(`; "
        f"{SG_MINIMAX}:85-87 `self.decoder_layer = decoder_layer`; {SG_MINIMAX_M3}:801-812 "
        f"`self.qkv_proj = QKVParallelLinear(` `self.o_proj = RowParallelLinear(`; "
        f'{SG_MINIMAX_M3}:858-866 `if self.qk_norm_type == "per_layer":` (q_norm and k_norm '
        f"whatever use_qk_norm says); {SG_MINIMAX_M3}:1736-1744 `self.mlp = MiniMaxM3MLP(`; "
        f"{SG_MINIMAX_M3}:317 `self.gate_up_proj = MergedColumnParallelLinear(`; "
        f"{SG_MINIMAX_M3}:1746-1758 `self.input_layernorm = RMSNorm(`",
        "config_view": f"{S}configs/model_config.py:1020-1028 "
        '`self.hf_config.architectures[0] == "DSparkMiniMaxDraftModel"`; '
        f"{SG_MINIMAX_CFG}:66-88 `def configure_minimax_m3_dspark` "
        '`text.num_hidden_layers = int(text.dflash_config["num_hidden_layers"])` '
        "`text.markov_rank = int(text.dspark_markov_rank)`",
        "required_keys": f"{SG_MINIMAX_CFG}:72-88 `M3.1 DSpark requires the dense draft FFN "
        'checkpoint` `int(text.dflash_config["num_target_layers"])` '
        "`text.block_size = int(text.dspark_block_size)`; "
        f"{SG_MINIMAX_CFG}:92-100 `M3.1 DSpark capture layer IDs must be unique`; "
        f"{SG_MINIMAX}:112 `norm = GemmaRMSNorm if config.use_gemma_norm else RMSNorm`",
        "top_level_keys": f"{SG_MINIMAX_CFG}:86 `text.markov_rank = int(text.dspark_markov_rank)` "
        "(the model's markov_rank is written from dspark_markov_rank)",
        "aux_layer_keys": f'{SG_MINIMAX}:111 `len(config.dflash_config["target_layer_ids"])`',
        "aux_default": f'{SG_MINIMAX}:111 `config.dflash_config["target_layer_ids"]` (a '
        "KeyError without it)",
    },
    quantised_fc="quantised",
    read_prefixes=("language_model.model.dspark.", "model.dspark.", "dspark."),
    renames=(
        "rotary_emb.>",
        "block_sparse_moe>mlp",
        "final_norm>norm",
        *(f".{x}_proj.>.qkv_proj[{x}]." for x in "qkv"),
        ".gate_proj.>.gate_up_proj[0].",
        ".up_proj.>.gate_up_proj[1].",
    ),
    missing_tensors="refused",
    stray_names="refused",
    name_maps=(),
    layer_modules=(
        *(f"{_ATTN}{x}_proj|{_ATTN}qkv_proj[{x}]|{_ATTN}qkv_proj" for x in "qkv"),
        *(f"{_ATTN}{m}" for m in ("o_proj", "q_norm", "k_norm")),
        *(f"{_MLP}{m}_proj|{_MLP}gate_up_proj[{i}]|{_MLP}gate_up_proj" for i, m in _GATE_UP),
        f"{_MLP}down_proj",
        "decoder_layer.input_layernorm",
        "decoder_layer.post_attention_layernorm",
    ),
    config_view="minimax_m3_dspark",
    required_keys=(
        "truthy:dspark_use_dense_ffn",
        "dflash_config.num_target_layers",
        "dflash_config.num_hidden_layers",
        "dspark_ffn_hidden_size",
        "dspark_block_size",
        "dspark_markov_rank",
        "dspark_noise_token_id",
        "truthy:dflash_config.target_layer_ids",
        "use_gemma_norm",
    ),
    top_level_keys=(),
    aux_layer_keys=("dflash_config.target_layer_ids",),
    aux_default="required",
)

# Gemma 4 MTP assistant (Gemma4AssistantForCausalLM, Gemma4UnifiedAssistantForCausalLM): not a
# block drafter but classic EAGLE's shape (a projection over [the target's embedding, its hidden
# state]), a whole Gemma4TextModel under model.* built from text_config with every layer KV-shared
# with the target (q only: its k/v projections are built, loaded if shipped, never read), then
# post_projection back to the target's width and its own lm_head (model.embed_tokens where
# text_config ties them, its class default), centroids and token_ordering with
# use_ordered_embeddings (masked_embedding. stripped). Gemma 4's loader loads the names it has a
# parameter or buffer for, skips the rest and only logs what it left at its initial value.
# Read under model. (model.language_model. too) and at the top level: a bare layers.* name (no
# model.) is read as model.layers.* here, while the runtime skips it (no such layout is known).
SG_GEMMA4_MTP = S + "models/gemma4_mtp.py"
SG_GEMMA4 = S + "models/gemma4_causal.py"
SG_GEMMA4_LOAD = (
    f"{SG_GEMMA4}:1300-1301 `params_dict.update(dict(self.named_buffers()))`; {SG_GEMMA4}:"
    "1422-1423 `if name not in params_dict:` `continue` (skipped); "
    f"{SG_GEMMA4}:1430-1436 `Some weights are not initialized from checkpoints` (a log line)"
)
# a Gemma 4 decoder layer's modules past its attention projections (vLLM's alike)
GEMMA4_LAYER = (
    "self_attn.o_proj",
    "self_attn.q_norm",
    "mlp.gate_proj|mlp.gate_up_proj",
    "mlp.up_proj|mlp.gate_up_proj",
    "mlp.down_proj",
    *(f"{m}_layernorm" for m in ("input", "post_attention", "pre_feedforward")),
    "post_feedforward_layernorm",
    ":layer_scalar",
)
_PLE = "?~text_config.hidden_size_per_layer_input"  # HF's class default is 256: built
_MOE = "?text_config.enable_moe_block"
SGLANG_GEMMA4_ASSISTANT = SGLANG_EAGLE.derive(
    name="sglang-gemma4-assistant",
    release=SGLANG,
    releases=SGLANG_RELEASES,
    variant="gemma4-assistant",
    sources=(SG_GEMMA4_MTP, SG_GEMMA4),
    cites={
        "architectures": f"{SG_GEMMA4_MTP}:404 `EntryClass = [Gemma4AssistantForCausalLM, "
        f"Gemma4UnifiedAssistantForCausalLM]`; {SG_GEMMA4_MTP}:400-401 `class "
        "Gemma4UnifiedAssistantForCausalLM(Gemma4AssistantForCausalLM):`",
        "top_modules": f"{SG_GEMMA4_MTP}:90-107 `self.pre_projection = ReplicatedLinear(` "
        "`self.model = Gemma4TextModel(` `self.post_projection = ReplicatedLinear(`; "
        f"{SG_GEMMA4_MTP}:110-113 `if text_config.tie_word_embeddings:` `self.lm_head = "
        f"nn.Linear(`; {SG_GEMMA4_MTP}:116-131 `if self.use_ordered_embeddings:` "
        '`self.centroids = nn.Linear(` `"token_ordering",`; '
        f"{SG_GEMMA4}:887-944 `self.embed_tokens = Gemma4TextScaledWordEmbedding(` "
        "`self.per_layer_model_projection = ReplicatedLinear(` `self.norm = RMSNorm(`",
        "layer_modules": f"{SG_GEMMA4}:358-386 `self.qkv_proj = QKVParallelLinear(` "
        f"`self.q_norm = Gemma4RMSNorm(`; {SG_GEMMA4}:456-458 `is_kv_shared = (` (k and v "
        f"are the target's); {SG_GEMMA4_MTP}:137-145 `layer.self_attn.is_kv_shared_layer = "
        f"True`; {SG_GEMMA4}:593-635 `self.mlp = Gemma4MLP(` `self.input_layernorm = "
        f"RMSNorm(` `self.per_layer_input_gate = ReplicatedLinear(`; {SG_GEMMA4}:640-667 "
        f'`self.router = Gemma4Router(`; {SG_GEMMA4}:672 `self.register_buffer("layer_scalar"`',
        "read_prefixes": f'{SG_GEMMA4_MTP}:372-377 `if name.startswith("masked_embedding."):`; '
        f'{SG_GEMMA4}:1310 `name = name.replace("model.language_model.", "model.")`',
        "prefixed_names": f"{SG_GEMMA4}:1160-1162 `self.model = Gemma4TextModel(` (model. is "
        f"its own root); {SG_GEMMA4}:1300-1301 `params_dict = dict(self.named_parameters())`",
        "missing_tensors": SG_GEMMA4_LOAD,
        "stray_names": SG_GEMMA4_LOAD,
        "strict_names": SG_GEMMA4_LOAD,
        "name_maps": f"{SG_GEMMA4}:1259-1266 `stacked_params_mapping = [`",
        "missing_lm_head": f"{SG_GEMMA4_MTP}:208-211 `def set_embed_and_head` (the target's "
        "head is ignored: the assistant keeps its own)",
        "lm_head_from_target": f"{SG_GEMMA4_MTP}:208-211 `del head`",
        "tied_head": f"{SG_GEMMA4_MTP}:110-111 `self.lm_head = self.model.embed_tokens`",
        "builds_lm_head": f"{SG_GEMMA4_MTP}:110-113 `self.lm_head = nn.Linear(`",
        "fc_bias": f"{SG_GEMMA4_MTP}:90-93 `bias=False,` (pre_projection: no fc)",
        "qkv_bias_architectures": f"{SG_GEMMA4}:358-364 `bias=config.attention_bias,`",
        "first_input_norm": f"{SG_GEMMA4}:602 `self.input_layernorm = RMSNorm(`",
        "reduced_when": f"{SG_GEMMA4_MTP}:78 `self.vocab_size = text_config.vocab_size` "
        "(draft_vocab_size is never read: its head drafts text_config's vocab)",
        "reduced_against": f"{SG_GEMMA4_MTP}:208-211 `self.target_embed_weight = embed`; "
        f"{SG_GEMMA4_MTP}:235-236 `torch.nn.functional.embedding(input_ids, "
        "self.target_embed_weight)` (its draft ids index the target's vocab)",
        "missing_d2t": f"{SG_GEMMA4_MTP}:59 `class Gemma4AssistantForCausalLM(Gemma4ForCausalLM):` "
        "(no d2t path)",
        "d2t_param": SG_GEMMA4_LOAD,
        "own_embed_kept": f"{SG_GEMMA4_MTP}:208-211 `self.target_embed_weight = embed` (its "
        "input embedding is always the target's)",
        "requires_embed_when_expanded": f"{SG_GEMMA4_MTP}:372-381 `def load_weights` (no check)",
    },
    architectures=("Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM"),
    read_prefixes=("masked_embedding.", "model.language_model.", "model.", ""),
    prefixed_names="model_root",
    renames=(),
    top_modules=(
        "pre_projection",
        "post_projection",
        "norm",
        "embed_tokens?~text_config.tie_word_embeddings",
        "embed_tokens:*?^text_config.tie_word_embeddings",
        "lm_head?^text_config.tie_word_embeddings",
        "centroids?use_ordered_embeddings",
        ":token_ordering?use_ordered_embeddings",
        f"per_layer_model_projection{_PLE}",
        f"per_layer_projection_norm{_PLE}",
        "embed_tokens_per_layer:*",
    ),
    layer_modules=(
        "self_attn.q_proj|self_attn.qkv_proj",
        *(f"self_attn.{m}:*" for m in ("k_proj", "v_proj", "k_norm")),
        *GEMMA4_LAYER,
        *(f"{m}{_PLE}" for m in ("per_layer_input_gate", "per_layer_projection")),
        f"post_per_layer_input_norm{_PLE}",
        f"router:*{_MOE}",
        f"moe:*{_MOE}",
        *(f"{m}{_MOE}" for m in ("post_feedforward_layernorm_1", "post_feedforward_layernorm_2")),
        f"pre_feedforward_layernorm_2{_MOE}",
    ),
    missing_lm_head="unchecked",
    lm_head_from_target="never",
    tied_head="",
    first_input_norm=True,
    fc_bias=False,
    qkv_bias_architectures=(),
    name_maps=(),
)

PROFILES = (*PROFILES, SGLANG_DSPARK_MINIMAX, SGLANG_GEMMA4_ASSISTANT)
