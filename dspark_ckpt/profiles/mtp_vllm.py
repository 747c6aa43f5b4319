"""vLLM 0.33.0's MTP architectures: what each reads from the target checkpoint
(``profiles/mtp.py`` registers them)."""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.profiles.mtp_loader import (
    DECODER,
    DEEPSEEK_OWN,
    QWEN_NEXT_ONCE,
    TF_DEFAULT,
    TF_KEYS,
    VLLM,
    MtpLoader,
)

# --- vLLM 0.33.0 -----------------------------------------------------------------------------
M = "vllm/model_executor/models/"
SPEC = "vllm/config/speculative.py"
LOADER = "vllm/model_executor/model_loader/default_loader.py"
TRACKED = (
    f"{LOADER}:512-514 `model_config.quantization is None and loaded_weights is not None`; "
    f"{LOADER}:568-571 `Following weights were not initialized from` (unquantised: refused; "
    f"a quantised target turns the tracking off); {LOADER}:531-566 `has_postprocess_quant = "
    "getattr(` `loaded_weights.add(full_name)` (unquantised, a module with a quant method "
    "counts as loaded: a vLLM linear layer, a head, FusedMoE experts stay uninitialised)"
)
# a module with no quant method, checked by the tracking (beside the norms)
CHECKED = (
    "(a plain torch module: no quant method, so vLLM's weight tracking checks it); "
    f'{LOADER}:531-536 `quant_method = getattr(module, "quant_method", None)`'
)
SPEC_IDX = f'{M}utils.py:589-595 `f"model.layers.{{base + i}}.",`'

VLLM_DEEPSEEK = MtpLoader(
    name="vllm-mtp-deepseek",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="DeepSeekMTPModel",
    family="DeepSeek V3/R1",
    targets=("type:deepseek_v3",),
    count_keys=TF_KEYS,
    count_default=1,
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint",
    cites={
        "checked": f"{M}deepseek_mtp.py:85-87 `self.eh_proj = nn.Linear(config.hidden_size * 2` {CHECKED}",
        "count_default": TF_DEFAULT,
        "targets": f'{SPEC}:749-762 `"DeepSeekMTPModel"`',
        "count_keys": f"{SPEC}:756 `num_nextn_predict_layers`; {M}deepseek_mtp.py:151-152 "
        "`self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f"{M}deepseek_mtp.py:151 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": SPEC_IDX,
        "own": f"{M}deepseek_mtp.py:85-87 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}deepseek_mtp.py:61-65 `self.head = ParallelLMHead(`",
        "decoder": f"{M}deepseek_mtp.py:562-565 `mtp_block`",
        "layer_check": f"{M}deepseek_mtp.py:526-533 `MTP speculative decoding layer`",
        "missing": TRACKED,
    },
)
V32 = "vllm/models/deepseek_v32/nvidia/mtp.py"
VLLM_DEEPSEEK_V32 = replace(
    VLLM_DEEPSEEK,
    name="vllm-mtp-deepseek-v32",
    architecture="DeepseekV32MTPModel",
    family="DeepSeek V3.2 / GLM-5 (DSA)",
    targets=("type:deepseek_v32", "type:glm_moe_dsa"),
    cites={
        **VLLM_DEEPSEEK.cites,
        "targets": f'{SPEC}:733 `use_v32_mtp`; {SPEC}:749-762 `"DeepseekV32MTPModel"`; '
        f'{M}registry.py:716 `"vllm.models.deepseek_v32"`',
        "count_keys": f"{SPEC}:756 `num_nextn_predict_layers`; {V32}:175-176 "
        "`self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f"{V32}:175 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "own": f"{V32}:72-74 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{V32}:91 `self.shared_head = SharedHead(`",
        "decoder": f"{V32}:334-340 `_rewrite_spec_layer_name`",
        "layer_check": f"{V32}:490-497 `MTP speculative decoding layer`",
        "missing": f"{V32}:498 `return loaded_params`; {TRACKED}",
    },
)
VLLM_GLM4_MOE = MtpLoader(
    name="vllm-mtp-glm4-moe",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="Glm4MoeMTPModel",
    family="GLM-4.5 / 4.6 MoE",
    targets=("arch:Glm4MoeForCausalLM",),
    count_keys=TF_KEYS,
    count_default=1,
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "checked": f"{M}glm4_moe_mtp.py:90-94 `self.eh_proj = nn.Linear(config.hidden_size * 2` {CHECKED}",
        "count_default": TF_DEFAULT,
        "targets": f'{SPEC}:848-856 `"Glm4MoeMTPModel"`',
        "count_keys": f"{SPEC}:850 `num_nextn_predict_layers`; {M}glm4_moe_mtp.py:135-136 "
        "`self.mtp_start_layer_idx = config.num_hidden_layers`",
        "first": f"{M}glm4_moe_mtp.py:135 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": SPEC_IDX,
        "own": f"{M}glm4_moe_mtp.py:90-94 `self.eh_proj = nn.Linear(config.hidden_size * 2`",
        "decoder": f"{M}glm4_moe_mtp.py:98 `self.mtp_block = Glm4MoeDecoderLayer(`",
        "from_target": f"{M}glm4_moe_mtp.py:273-277 `shared_head.head.weight`",
        "missing": f"{M}glm4_moe_mtp.py:412 `return loaded_params`; {TRACKED}",
    },
)
QWEN_LAYER_CITES = {
    "first": "the draft layers are stored from 0 under mtp.layers",
    "own": f"{M}qwen3_next_mtp.py:79-82 `self.fc = ColumnParallelLinear(` (fc and its norms "
    "are the model's, loaded once: no module of its own in a layer)",
    "decoder": f"{M}qwen3_next_mtp.py:88-95 `Qwen3NextDecoderLayer(`",
}
VLLM_QWEN3_NEXT = MtpLoader(
    name="vllm-mtp-qwen3-next",
    runtime="vllm",
    release=VLLM,
    architecture="Qwen3NextMTP",
    family="Qwen3-Next",
    targets=("type:qwen3_next",),
    count_default=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    fp4_unquantised=("mtp.fc",),
    cites={
        "fp4_unquantised": f'{M}qwen3_next_mtp.py:70-79 `quant_config.get_name() == "modelopt_fp4"`',
        "targets": f'{SPEC}:908-914 `"Qwen3NextMTP"`',
        "count_keys": f'{M}qwen3_next_mtp.py:63 `getattr(config, "num_nextn_predict_layers", 1)`',
        "count_default": f'{M}qwen3_next_mtp.py:63 `getattr(config, "num_nextn_predict_layers", 1)`',
        **QWEN_LAYER_CITES,
        "layer": f'{M}qwen3_next_mtp.py:238-242 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}qwen3_next_mtp.py:79-82 `self.fc = ColumnParallelLinear(`; "
        f"{M}qwen3_next_mtp.py:107-111 `self.pre_fc_norm_embedding = Qwen3NextRMSNorm(`",
        "missing": f"{M}qwen3_next_mtp.py:244-245 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_QWEN3_5 = MtpLoader(
    name="vllm-mtp-qwen3.5",
    runtime="vllm",
    release=VLLM,
    architecture="Qwen3_5MTP",
    family="Qwen3.5",
    targets=("type:qwen3_5", "type:qwen3_5_text"),
    count_keys=("mtp_num_hidden_layers",),
    count_in_text=True,
    count_default=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    fp4_unquantised=("mtp.fc",),
    cites={
        "fp4_unquantised": f'{M}qwen3_5_mtp.py:88-98 `quant_config.get_name() == "modelopt_fp4"`',
        "targets": f'{SPEC}:985-1008 `"Qwen3_5MoeMTP" if is_moe else "Qwen3_5MTP"`',
        "count_in_text": f"{SPEC}:998-1001 `text_config = get_hf_text_config(hf_config)`",
        "count_keys": f"{SPEC}:998-1001 `mtp_num_hidden_layers`",
        "count_default": f'{M}qwen3_5_mtp.py:82 `getattr(config, "mtp_num_hidden_layers", 1)`',
        **QWEN_LAYER_CITES,
        "layer": f'{M}qwen3_5_mtp.py:310-315 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}qwen3_5_mtp.py:98-101 `self.fc = ColumnParallelLinear(`; "
        f"{M}qwen3_5_mtp.py:139 `self.pre_fc_norm_embedding`",
        "missing": f"{M}qwen3_5_mtp.py:318-319 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_QWEN3_5_MOE = replace(
    VLLM_QWEN3_5,
    name="vllm-mtp-qwen3.5-moe",
    architecture="Qwen3_5MoeMTP",
    family="Qwen3.5-MoE",
    targets=("type:qwen3_5_moe", "type:qwen3_5_moe_text"),
)
VLLM_MIMO = MtpLoader(
    name="vllm-mtp-mimo",
    checked=("norm", "input_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="MiMoMTPModel",
    family="MiMo",
    targets=("arch:MiMoForCausalLM",),
    first="0",
    layer="model.mtp_layers.{i}",
    own=(
        ("token_layernorm", "H"),
        ("hidden_layernorm", "H"),
        ("input_proj", "H,2H"),
        ("final_layernorm", "H"),
    ),
    cites={
        "checked": f"{M}mimo_mtp.py:54-58 `self.input_proj = nn.Linear(` {CHECKED}",
        "targets": f'{SPEC}:795-804 `"MiMoMTPModel"`',
        "count_keys": f"{SPEC}:797 `num_nextn_predict_layers`",
        "first": f'{SPEC}:799-801 `"num_hidden_layers": 0`; {M}mimo_mtp.py:96 '
        "`self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{M}mimo_mtp.py:181-184 `f"model.mtp_layers.{{i}}."`',
        "own": f"{M}mimo_mtp.py:54-58 `self.input_proj = nn.Linear(`",
        "decoder": f"{M}mimo_mtp.py:167-173 `.mtp_block.self_attn.`",
        "missing": f"{M}mimo_mtp.py:215-222 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_ERNIE = MtpLoader(
    name="vllm-mtp-ernie",
    checked=("norm", "mtp_linear_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="ErnieMTPModel",
    family="Ernie 4.5 MoE",
    targets=("type:ernie4_5_moe",),
    count_max=1,
    first="0",
    layer="model",
    own=(
        ("mtp_emb_norm.{i}", "H"),
        ("mtp_hidden_norm.{i}", "H"),
        ("mtp_linear_proj.{i}", "H,2H"),
    ),
    decoder=tuple((f"mtp_block.{{i}}.{path}", shape) for path, shape in DECODER),
    cites={
        "checked": f"{M}ernie_mtp.py:53-57 `self.mtp_linear_proj = nn.Linear(` {CHECKED}",
        "targets": f'{SPEC}:880-886 `"ErnieMTPModel"`',
        "count_keys": f"{SPEC}:883 `num_nextn_predict_layers`; {M}ernie_mtp.py:92 "
        "`self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_max": f'{M}ernie_mtp.py:149-160 `"model.mtp_emb_norm.0."` (only the .0 '
        "block is mapped: a second layer's weights never reach the model)",
        "first": f"{M}ernie_mtp.py:149-153 `spec_layer = self.config.num_hidden_layers`",
        "layer": f'{M}ernie_mtp.py:153-160 `"model.mtp_block.0."`',
        "own": f"{M}ernie_mtp.py:53-57 `self.mtp_linear_proj = nn.Linear(`",
        "decoder": f"{M}ernie_mtp.py:58 `self.mtp_block = LlamaDecoderLayer(`",
        "missing": f"{M}ernie_mtp.py:211-218 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_LONGCAT = MtpLoader(
    name="vllm-mtp-longcat-flash",
    runtime="vllm",
    release=VLLM,
    architecture="LongCatFlashMTPModel",
    family="LongCat-Flash",
    targets=("type:longcat_flash",),
    count_fixed=1,
    first="0",
    layer="model.mtp.layers.{i}",
    own=(("eh_proj", "H,2H"), ("enorm.m", "H"), ("hnorm.m", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("post_attention_layernorm", "H"),
        ("self_attn", None),
        ("transformer_layer.mlp", None),
    ),
    once=(("model.mtp.norm", "H"),),
    cites={
        "targets": f'{SPEC}:1032-1037 `"LongCatFlashMTPModel"`',
        "count_fixed": f"{M}longcat_flash_mtp.py:85-86 `self.num_mtp_layers = 1`",
        "first": f'{M}longcat_flash_mtp.py:185 `"model.mtp.layers.0.eh_proj.weight"`',
        "layer": f'{M}longcat_flash_mtp.py:184-188 `"model.mtp.layers.0.eh_proj.weight"`',
        "own": f"{M}longcat_flash_mtp.py:185-188 `enorm.m.weight`",
        "decoder": f"{M}longcat_flash_mtp.py:189-208 `transformer_layer.mlp.down_proj.weight`",
        "once": f'{M}longcat_flash_mtp.py:209 `"model.mtp.norm.weight"`',
        "missing": f'{M}longcat_flash_mtp.py:312-316 `"model.mtp" in weight_name`; {TRACKED}',
    },
)
VLLM_NEMOTRON_H = MtpLoader(
    name="vllm-mtp-nemotron-h",
    runtime="vllm",
    release=VLLM,
    architecture="NemotronHMTPModel",
    family="Nemotron-H",
    targets=("type:nemotron_h", "type:nemotron_h_puzzle", "type:nemotron_h_mtp"),
    count_max=1,
    first="0",
    layer="mtp.layers.{i}",
    step_pattern="mtp_hybrid_override_pattern",
    own=(("norm", "H"),),
    decoder=(("mixer", None),),
    first_of_step=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H")),
    last_of_step=(("final_layernorm", "H"),),
    cites={
        "targets": f'{SPEC}:895-906 `"NemotronHMTPModel"`',
        "count_keys": f"{M}nemotron_h_mtp.py:246 `num_nextn_predict_layers`",
        "targets_need": f"{SPEC}:895-899 `hf_config.num_nextn_predict_layers > 0` (no key, or 0: "
        "no MTP draft at all)",
        "count_max": f"{M}nemotron_h_mtp.py:247-249 `Only one MTP layer is supported`",
        "first": f'{M}nemotron_h_mtp.py:462 `name.replace("mtp.layers.", "model.layers.")`',
        "layer": f'{M}nemotron_h_mtp.py:462 `name.replace("mtp.layers.", "model.layers.")`',
        "step_pattern": f"{M}nemotron_h_mtp.py:251-262 `total_layers = self.num_mtp_layers * self.pattern_len`",
        "own": f"{M}nemotron_h.py:529 `self.norm = RMSNorm`",
        "decoder": f"{M}nemotron_h.py:520 `self.mixer = NemotronHAttention(`",
        "first_of_step": f"{M}nemotron_h_mtp.py:69-76 `self.eh_proj = ColumnParallelLinear(`",
        "last_of_step": f"{M}nemotron_h_mtp.py:87-88 `self.final_layernorm = RMSNorm(`",
        "missing": f"{M}nemotron_h_mtp.py:544 `return loaded_params`; {TRACKED}",
    },
)
VLLM_BAILING = MtpLoader(
    name="vllm-mtp-bailing",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="BailingMoeV25MTPModel",
    family="Bailing MoE V2.5 (Ling / Ring)",
    targets=("type:bailing_hybrid", "arch:BailingMoeV2_5ForCausalLM"),
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("post_attention_layernorm", "H"),
        ("attention", None),
        ("mlp", None),
    ),
    from_target=("shared_head.head",),
    layer_check="Bailing MTP speculative decoding layer {j} weights are missing from checkpoint",
    cites={
        "checked": f"{M}bailing_moe_mtp.py:78-80 `self.eh_proj = nn.Linear(config.hidden_size * 2` {CHECKED}",
        "targets": f'{SPEC}:950-961 `"BailingMoeV25MTPModel"`',
        "count_keys": f"{SPEC}:955 `num_nextn_predict_layers`",
        "first": f"{M}bailing_moe_mtp.py:303-306 `mtp_idx = layer_idx - self.config.num_hidden_layers`",
        "layer": f'{M}bailing_moe_mtp.py:297-299 `name.startswith("model.layers.")`',
        "own": f"{M}bailing_moe_mtp.py:78-80 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}bailing_moe_mtp.py:98 `self.final_layernorm = RMSNorm`",
        "decoder": f"{M}bailing_moe_mtp.py:309-312 `.attention.`",
        "from_target": f"{M}bailing_moe_mtp.py:332-334 `load_lm_head(loaded_weight)`",
        "layer_check": f"{M}bailing_moe_mtp.py:380-386 `weights are missing from checkpoint`",
        "missing": f"{M}bailing_moe_mtp.py:389 `return loaded_params`; {TRACKED}",
    },
)

VLLM_OPENPANGU = MtpLoader(
    name="vllm-mtp-openpangu",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="OpenPanguMTPModel",
    family="openPangu Ultra MoE",
    targets=("type:pangu_ultra_moe",),
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    cites={
        "checked": f"{M}openpangu_mtp.py:61-67 `self.eh_proj = nn.Linear(config.hidden_size * 2` {CHECKED}",
        "targets": f'{SPEC}:777-783 `"OpenPanguMTPModel"`',
        "count_keys": f"{M}openpangu_mtp.py:76-77 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f"{M}openpangu_mtp.py:140-143 `mtp_idx = layer_idx - self.config.num_hidden_layers`",
        "layer": f"{M}openpangu_mtp.py:134-143 `def get_spec_layer`",
        "own": f"{M}openpangu_mtp.py:61-67 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}deepseek_mtp.py:61-65 `self.head = ParallelLMHead(`",
        "decoder": f"{M}openpangu_mtp.py:69 `self.mtp_block = OpenPanguDecoderLayer`",
        "missing": f"{M}openpangu_mtp.py:242 `return loaded_params`; {TRACKED}",
    },
)
VLLM_EXAONE_MOE = replace(
    VLLM_QWEN3_NEXT,
    name="vllm-mtp-exaone-moe",
    architecture="ExaoneMoeMTP",
    family="EXAONE MoE",
    targets=("type:exaone_moe",),
    fp4_unquantised=(),  # its fc takes the quantisation config as it is
    cites={
        "targets": f'{SPEC}:973-979 `"ExaoneMoeMTP"`',
        "count_keys": f'{M}exaone_moe_mtp.py:56 `getattr(config, "num_nextn_predict_layers", 1)`',
        "count_default": f'{M}exaone_moe_mtp.py:56 `getattr(config, "num_nextn_predict_layers", 1)`',
        "first": "the draft layers are stored from 0 under mtp.layers",
        "own": f"{M}exaone_moe_mtp.py:63 `self.fc = ColumnParallelLinear(` (fc and its norms "
        "are the model's, loaded once)",
        "decoder": f'{M}exaone_moe_mtp.py:72-80 `prefix=f"{{prefix}}.layers.{{idx}}",`',
        "layer": f'{M}exaone_moe_mtp.py:194-197 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}exaone_moe_mtp.py:63 `self.fc = ColumnParallelLinear(`; "
        f"{M}exaone_moe_mtp.py:82-84 `self.pre_fc_norm_hidden = RMSNorm`",
        "missing": f"{M}exaone_moe_mtp.py:201-202 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_EXAONE4_5 = replace(
    VLLM_EXAONE_MOE,
    name="vllm-mtp-exaone4.5",
    architecture="Exaone4_5_MTP",
    family="EXAONE 4.5",
    targets=("type:exaone4_5",),
    cites={
        "targets": f'{SPEC}:980-986 `"Exaone4_5_MTP"`',
        "count_keys": f'{M}exaone4_5_mtp.py:59 `getattr(config, "num_nextn_predict_layers", 1)`',
        "count_default": f'{M}exaone4_5_mtp.py:59 `getattr(config, "num_nextn_predict_layers", 1)`',
        "first": "the draft layers are stored from 0 under mtp.layers",
        "own": f"{M}exaone4_5_mtp.py:66 `self.fc = ColumnParallelLinear(` (fc and its norms "
        "are the model's, loaded once)",
        "decoder": f'{M}exaone4_5_mtp.py:75-83 `prefix=f"{{prefix}}.layers.{{idx}}",`',
        "layer": f'{M}exaone4_5_mtp.py:191-194 `name = name.replace("mtp.", "model.")`',
        "once": f"{M}exaone4_5_mtp.py:66 `self.fc = ColumnParallelLinear(`; "
        f"{M}exaone4_5_mtp.py:86 `self.pre_fc_norm_hidden = RMSNorm(`",
        "missing": f"{M}exaone4_5_mtp.py:201-202 `loader.load_weights`; {TRACKED}",
    },
)
VLLM_HY_V3 = MtpLoader(
    name="vllm-mtp-hy-v3",
    runtime="vllm",
    release=VLLM,
    architecture="HYV3MTPModel",
    family="Hunyuan V3",
    targets=("type:hy_v3",),
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    from_target=("shared_head.head", "embed_tokens"),
    missing="silent",
    cites={
        "targets": f'{SPEC}:1073-1078 `"HYV3MTPModel"`',
        "count_keys": f"{SPEC}:1075 `num_nextn_predict_layers`",
        "first": f"{M}hy_v3_mtp.py:149 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": SPEC_IDX,
        "own": f"{M}hy_v3_mtp.py:104-106 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{M}hy_v3_mtp.py:116 `self.final_layernorm = RMSNorm`",
        "decoder": f"{M}hy_v3_mtp.py:470-478 `.mtp_block.`",
        "from_target": f'{M}hy_v3_mtp.py:330-333 `"lm_head.weight": f"model.layers.{{mtp_start}}'
        f'.shared_head.head.weight",`; {M}hy_v3_mtp.py:463-468 `return "__skip__"`',
        "missing": f"{M}hy_v3_mtp.py:272 `def load_weights(self, weights: Iterable[tuple[str, "
        "torch.Tensor]]):` (returns no set of loaded names: nothing tracks what was loaded)",
    },
)
VLLM_MIMO_V2 = MtpLoader(
    name="vllm-mtp-mimo-v2",
    runtime="vllm",
    release=VLLM,
    architecture="MiMoV2MTPModel",
    family="MiMo-V2 (Pro, Flash)",
    targets=("arch:MiMoV2ForCausalLM", "arch:MiMoV2FlashForCausalLM"),
    count_fixed=1,
    first="0",
    layer="model.mtp.layers.{i}",
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("pre_mlp_layernorm", "H"),
        ("self_attn", None),
        ("mlp", None),
    ),
    cites={
        "targets": f'{SPEC}:809-829 `"MiMoV2ForCausalLM": "MiMoV2MTPModel",`; '
        f'{SPEC}:831-846 `"MiMoV2FlashForCausalLM"`',
        "count_fixed": f"{M}mimo_v2_mtp.py:53-54 `_MIMO_V2_PRO_NUM_MTP_LAYERS = 1`; "
        f"{SPEC}:820-821 `vLLM currently supports only the first MiMo-V2 MTP layer.`",
        "first": f'{M}mimo_v2_mtp.py:187-192 `prefix=maybe_prefix(prefix, "mtp.layers"),`',
        "layer": f'{M}mimo_v2_mtp.py:284-290 `"model.mtp" not in name`',
        "own": f"{M}mimo_v2_mtp.py:73-77 `self.eh_proj = ReplicatedLinear(`; "
        f"{M}mimo_v2_mtp.py:119 `self.final_layernorm = RMSNorm`",
        "decoder": f"{M}mimo_v2_mtp.py:109 `self.pre_mlp_layernorm = RMSNorm(`",
        "missing": f"{M}mimo_v2_mtp.py:386 `return loaded_params`; {TRACKED}",
    },
)
