"""vLLM 0.33.0's MTP architectures whose source the wheel keeps outside
``model_executor/models`` (``vllm/models/<family>/{common,nvidia,amd}/mtp.py``): what each
reads from the target checkpoint (``profiles/mtp.py`` registers them)."""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.profiles.mtp_loader import (
    DEEPSEEK_OWN,
    DEEPSEEK_V4_DECODER,
    DEEPSEEK_V4_OWN,
    QWEN4_EXP_DECODER,
    QWEN4_EXP_ONCE,
    VLLM,
    MtpLoader,
)
from dspark_ckpt.profiles.mtp_vllm import (
    CHECKED,
    SPEC,
    TRACKED,
    VLLM_BAILING,
    VLLM_DEEPSEEK_V32,
    VLLM_MIMO_V2,
    VLLM_QWEN3_5_MOE,
    M,
)

G5 = "vllm/models/glm5next/common/mtp.py"
G5M = "vllm/models/glm5next/common/model.py"

VLLM_GLM5_NEXT = MtpLoader(
    name="vllm-mtp-glm5-next",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="Glm5NextMTPModel",
    family="GLM-5 Next",
    targets=("type:glm5_next",),
    count_in_text=True,
    layer_also=("model.language_model.layers.{i}",),
    own=DEEPSEEK_OWN,
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint.",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "checked": "vllm/models/glm5next/common/mtp.py:52-54 `self.eh_proj = nn.Linear(config.hidden_size * 2` "
        + CHECKED,
        "targets": f'{SPEC}:1146-1157 `"architectures": ["Glm5NextMTPModel"],`',
        "count_keys": f'{SPEC}:1154 `"n_predict": text_config.num_nextn_predict_layers,`; '
        f"{G5}:114 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f"{SPEC}:1148 `text_config = hf_config.get_text_config()`",
        "count_default": f"{SPEC}:1154 `text_config.num_nextn_predict_layers` (read as an "
        "attribute: no default)",
        "first": f"{G5}:113 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{G5M}:1288-1293 `f"model.layers.{{layer_idx + i}}."`',
        "layer_also": f'{G5}:322-327 `name = name.replace("model.language_model.", "model.", 1)`'
        f" (the vision-language target stores its text tower there: {G5M}:1170-1172 "
        "`language_model.model.`)",
        "own": f"{G5}:52-54 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{G5}:62-66 `defer_lm_head=True,` (shared_head.norm only: no head of its own)",
        "decoder": f'{G5}:284-286 `f"model.layers.{{spec_layer}}.mtp_block."`',
        "layer_check": f"{G5}:425-433 `MTP speculative decoding layer {{layer_idx}} weights`",
        "from_target": f"{G5}:62-66 `defer_lm_head=True,`; {G5}:273 `shared_weight_names = "
        '["embed_tokens"]`',
        "missing": f"{G5}:434 `return loaded_params`; {TRACKED}",
    },
)
K3 = "vllm/models/kimi_k3/nvidia/mtp.py"
K3M = "vllm/models/kimi_k3/nvidia/model.py"
VLLM_KIMI_K3 = MtpLoader(
    name="vllm-mtp-kimi-k3",
    runtime="vllm",
    release=VLLM,
    architecture="KimiK3MTPModel",
    family="Kimi K3",
    targets=("type:kimi_k3",),
    count_in_text=True,
    layer_also=("language_model.model.layers.{i}",),
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint.",
    from_target=("embed_tokens",),
    cites={
        "targets": f'{SPEC}:785-793 `"architectures": ["KimiK3MTPModel"]`',
        "count_keys": f'{SPEC}:788-789 `getattr(text_config, "num_nextn_predict_layers", None)`; '
        f"{K3}:161 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f'{SPEC}:788 `text_config = getattr(hf_config, "text_config", hf_config)`',
        "first": f"{K3}:160 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{K3M}:1552-1559 `if f"layers.{{layer_idx + i}}." in weight_name:`',
        "layer_also": f'{K3}:324-325 `if name.startswith("language_model."):`',
        "own": f"{K3}:82-87 `self.eh_proj = ReplicatedLinear(`; {K3}:60-64 "
        "`self.head = ParallelLMHead(` (its own head, V x H)",
        "decoder": f'{K3}:450-454 `f"model.layers.{{spec_layer}}.mtp_block.",`',
        "layer_check": f"{K3}:412-421 `MTP speculative decoding layer {{layer_idx}} weights`",
        "from_target": f'{K3}:441 `shared_weight_names = ["embed_tokens"]`',
        "missing": f"{K3}:424 `return loaded_params`; {TRACKED}",
    },
)
MM3 = "vllm/models/minimax_m3/nvidia/mtp.py"
VLLM_MINIMAX_M3 = MtpLoader(
    name="vllm-mtp-minimax-m3",
    runtime="vllm",
    release=VLLM,
    architecture="MiniMaxM3MTP",
    family="MiniMax M3",
    targets=("type:minimax_m3_vl", "arch:MiniMaxM3SparseForConditionalGeneration"),
    count_keys=("num_mtp_modules",),
    count_in_text=True,
    count_default=1,
    first="0",
    layer="language_model.model.mtp.layers.{i}",
    layer_also=("model.mtp.layers.{i}",),
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    decoder=(
        ("input_layernorm", "H"),
        ("post_attention_layernorm", "H"),
        ("self_attn", None),
        ("block_sparse_moe", None),
    ),
    layer_check="Failed to load MTP layer {j} weights from checkpoint.",
    from_target=("embed_tokens", "lm_head"),
    cites={
        "targets": f'{SPEC}:1117-1134 `hf_config.model_type == "minimax_m3_vl"`',
        "count_keys": f'{SPEC}:1131 `n_predict = getattr(hf_config, "num_mtp_modules", 1)`; '
        f"{MM3}:108 `self.num_mtp_layers = config.num_mtp_modules`",
        "count_in_text": f'{SPEC}:1124 `hf_config = getattr(hf_config, "text_config", hf_config)`',
        "count_default": f'{SPEC}:1131 `getattr(hf_config, "num_mtp_modules", 1)`',
        "first": f"{MM3}:109-114 `for idx in range(self.num_mtp_layers)`",
        "layer": f'{MM3}:207-211 `name = name.removeprefix("language_model.")`; '
        f'{MM3}:217-223 `return name.replace(".mtp.", ".")`',
        "layer_also": f"{MM3}:207-209 `The standalone MTP checkpoint has no such prefix.`",
        "own": f"{MM3}:49-56 `self.eh_proj = ReplicatedLinear(`; {MM3}:65-67 "
        "`self.final_layernorm = MiniMAXGemmaRMSNorm(`",
        "decoder": f"{MM3}:58-64 `force_moe=True,` (built under the layer's own prefix); "
        "vllm/models/minimax_m3/nvidia/model.py:738-740 `self.block_sparse_moe = MiniMaxM3MoE(`",
        "layer_check": f"{MM3}:313-320 `Failed to load MTP layer {{layer_idx}} weights from "
        "checkpoint.`; vllm/model_executor/model_loader/mtp_validation.py:9-11 "
        "`default=True` (off only for a live weight transfer)",
        "from_target": f'{MM3}:213-216 `if name == "lm_head.weight":`',
        "missing": f"{MM3}:329 `return loaded_params`; {TRACKED}",
    },
)
D3 = "vllm/models/dots3_note/nvidia/mtp.py"
# Dots3 Note's MTP is DeepSeek V3.2's (the same loader and layer check) with its own layer
VLLM_DOTS3_NOTE = replace(
    VLLM_DEEPSEEK_V32,
    name="vllm-mtp-dots3-note",
    checked=("norm",),
    architecture="Dots3NoteMTPModel",
    family="dots3 note",
    targets=("type:dots3_note",),
    count_keys=("num_nextn_predict_layers",),
    count_default=1,
    cites={
        **VLLM_DEEPSEEK_V32.cites,
        "checked": "vllm/models/dots3_note/nvidia/mtp.py:41-50 `self.eh_proj = ReplicatedLinear(` (a quant method: counted as loaded)",
        "targets": f'{SPEC}:734-747 `"architectures": ["Dots3NoteMTPModel"]`; '
        f"{D3}:157 `class Dots3NoteMTP(DeepseekV32MTP):` (V3.2's load_weights and layer check)",
        "count_keys": f'{SPEC}:735 `getattr(hf_config, "num_nextn_predict_layers", 1)`; '
        f"{D3}:108-109 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_default": f'{SPEC}:735 `getattr(hf_config, "num_nextn_predict_layers", 1)`',
        "first": f"{D3}:108 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "own": f"{D3}:41-50 `self.eh_proj = ReplicatedLinear(`; {D3}:50-52 "
        "`self.shared_head = SharedHead(` (its own head, V x H)",
        "decoder": f"{D3}:53 `self.mtp_block = Dots3NoteDecoderLayer(`",
    },
)
# Intern-S2-Mobius: Qwen3.5-MoE's MTP built from the target's MTP expert counts
VLLM_INTERNS2_MOBIUS = replace(
    VLLM_QWEN3_5_MOE,
    name="vllm-mtp-interns2-mobius",
    architecture="InternS2MobiusMTP",
    family="Intern-S2-Mobius",
    targets=("type:interns2_mobius",),
    cites={
        **VLLM_QWEN3_5_MOE.cites,
        "targets": f'{SPEC}:1008-1023 `"InternS2MobiusMTP"`; '
        "vllm/model_executor/models/interns2_mobius.py:446 "
        "`class InternS2MobiusMTP(Qwen3_5MoeMTP):` (Qwen3.5-MoE's MTP and its load_weights)",
        "count_keys": f'{SPEC}:1020 `n_predict = getattr(text_config, "mtp_num_hidden_layers", None)`',
        "count_in_text": f'{SPEC}:1010 `text_config = getattr(hf_config, "text_config", None)`',
    },
)
B3 = "vllm/model_executor/models/bailing_moe_v3_mtp.py"
VLLM_BAILING_V3 = replace(
    VLLM_BAILING,
    name="vllm-mtp-bailing-v3",
    checked=("norm",),
    architecture="BailingMoeV3MTPModel",
    family="Bailing MoE V3 (Ling / Ring)",
    targets=("arch:BailingMoeV3ForCausalLM", "arch:BailingMoeV3VLForConditionalGeneration"),
    count_in_text=True,
    decoder=(
        ("input_layernorm", "H"),
        ("post_attention_layernorm", "H"),
        ("self_attn", None),
        ("mlp", None),
    ),
    layer_check="Bailing V3 MTP speculative decoding layer {j} weights are missing from "
    "checkpoint.",
    cites={
        "checked": f"{M}bailing_moe_v3_mtp.py:90-92 `self.eh_proj = ReplicatedLinear(` (a quant method: counted as loaded); {TRACKED}",
        "targets": f'{SPEC}:937-949 `"BailingMoeV3VLForConditionalGeneration",`; '
        f'{SPEC}:963-969 `"architectures": ["BailingMoeV3MTPModel"],`',
        "count_keys": f'{SPEC}:964 `n_predict = getattr(hf_config, "num_nextn_predict_layers", None)`'
        f"; {B3}:163 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f"{SPEC}:938-940 `hf_config = copy.deepcopy(hf_config.text_config)`",
        "first": f"{B3}:362-363 `mtp_idx = layer_idx - self.config.num_hidden_layers`",
        "layer": f'{B3}:355-357 `if not name.startswith("model.layers."):`',
        "own": f"{B3}:90-92 `self.eh_proj = ReplicatedLinear(`; {B3}:117 "
        "`self.final_layernorm = RMSNorm`",
        "decoder": f"{B3}:100-111 `self.self_attn = BailingMoeV3MLAAttention(`",
        "from_target": f"{B3}:388-390 `load_lm_head(loaded_weight)`",
        "layer_check": f"{B3}:433-442 `weights are missing from checkpoint`",
        "missing": f"{B3}:443 `return loaded_params`; {TRACKED}",
    },
)
# MiMo-V2-Omni: MiMo-V2's MTP (its load_weights) with a multimodal embedding
VLLM_MIMO_V2_OMNI = replace(
    VLLM_MIMO_V2,
    name="vllm-mtp-mimo-v2-omni",
    architecture="MiMoV2OmniMTPModel",
    family="MiMo-V2-Omni",
    targets=("arch:MiMoV2OmniForCausalLM",),
    cites={
        **VLLM_MIMO_V2.cites,
        "targets": f'{SPEC}:806-827 `"MiMoV2OmniForCausalLM": "MiMoV2OmniMTPModel",`; '
        "vllm/model_executor/models/mimo_v2_mtp.py:389 "
        "`class MiMoV2OmniMTP(MiMoV2MTP, SupportsMultiModal):`",
    },
)
# --- Step-3.5 / Step-3.7 and Step5: strict loaders ------------------------------------------
S35 = "vllm/model_executor/models/step3p5_mtp.py"
S5 = "vllm/models/step5/nvidia/mtp.py"
STRICT = (
    "Some parameters like ... are not in the checkpoint and will falsely use random initialization"
)
STEP_OWN = (*DEEPSEEK_OWN, ("shared_head.head", "V,H"))
STEP_DECODER = (
    ("input_layernorm", "H"),
    ("post_attention_layernorm", "H"),
    ("self_attn", None),
    ("mlp|moe", None),
)
# the head is also stored as shared_head.output; the decoder under a ".transformer." segment
STEP_ALSO = (
    ("shared_head.head", "shared_head.output"),
    *((path, f"transformer.{path}") for path, _ in STEP_DECODER for path in path.split("|")),
)
# the plain modules (a .weight each): another name under them (a quantised scale) is a
# KeyError on the parameter dict; .bias is skipped
PLAIN_EXTRA = r"(enorm|hnorm|eh_proj|shared_head\.norm)\.(?!weight$|bias$)"
VLLM_STEP3P5 = MtpLoader(
    name="vllm-mtp-step3p5",
    runtime="vllm",
    release=VLLM,
    architecture="Step3p5MTP",
    family="Step-3.5 / Step-3.7",
    targets=(
        "type:step3p5",
        "type:step3p7",
        "arch:Step3p5ForCausalLM",
        "arch:Step3p7ForConditionalGeneration",
    ),
    count_in_text=True,
    own=STEP_OWN,
    decoder=STEP_DECODER,
    also=STEP_ALSO,
    missing="strict",
    strict_error=STRICT,
    # vLLM drops ".transformer." only past its fused (stacked) and expert mappings: a fused
    # projection stored under it is looked up as ...mtp_block.transformer.*_proj
    refused=(
        PLAIN_EXTRA,
        r"transformer\..*(q_proj|k_proj|v_proj|gate_proj|up_proj)\.",
        r"transformer\.moe\.down_proj\.",
    ),
    refused_error="its load_weights looks the name up in its parameters: a KeyError at "
    "start-up, quantised or not",
    cites={
        "targets": f'{SPEC}:1039-1051 `"architectures": ["Step3p5MTP"]`',
        "count_keys": f'{SPEC}:1050 `n_predict = getattr(hf_config, "num_nextn_predict_layers", 1)`;'
        f" {S35}:105-106 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f'{SPEC}:1043 `hf_config = getattr(hf_config, "text_config", hf_config)`',
        "count_default": f"{S35}:106 `self.num_mtp_layers = config.num_nextn_predict_layers` (an "
        "attribute: no default); vllm/model_executor/models/utils.py:589 "
        '`getattr(config, "num_nextn_predict_layers", 0)` (no layer read without it)',
        "first": f"{S35}:105 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{S35}:342-344 `f"model.layers.{{spec_layer}}.mtp_block."` (the own modules are '
        "looked up as stored: another prefix is a KeyError)",
        "own": f"{S35}:66-71 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{S35}:46-51 `self.head = ParallelLMHead(`",
        "decoder": f"{S35}:72-75 `self.mtp_block = Step3p5DecoderLayer(`; "
        "vllm/model_executor/models/step3p5.py:467-480 `self.moe = FusedMoEBlock(` (moe or "
        "mlp, as the config places the layer)",
        "also": f'{S35}:286-289 `name = name.replace("shared_head.output", "shared_head.head")`',
        "missing": f"{S35}:302-320 `will falsely`; vllm/model_executor/model_loader/"
        "mtp_validation.py:9-11 `default=True` (off only for a live weight transfer)",
        "strict_error": f"{S35}:316-320 `are not in the checkpoint and will falsely`",
        "refused": f"{S35}:230-252 `name = name.replace(weight_name, param_name)` (fused names "
        f"keep '.transformer.'); {S35}:286-296 `param = params_dict[name]`",
        "refused_error": f"{S35}:296 `param = params_dict[name]`",
    },
)
VLLM_STEP5 = MtpLoader(
    name="vllm-mtp-step5",
    runtime="vllm",
    release=VLLM,
    architecture="Step5MTP",
    family="Step5",
    targets=(
        "type:step5",
        "type:step5_vl",
        "arch:Step5ForCausalLM",
        "arch:Step5ForConditionalGeneration",
    ),
    count_in_text=True,
    layer_also=("layers.{i}",),
    own=STEP_OWN,
    decoder=(*STEP_DECODER[:3], ("mlp", None)),
    also=(("shared_head.head", "shared_head.output"),),
    missing="strict",
    strict_error=STRICT,
    moe_keys=("moe_layers_enum", "moe_layer_list"),
    moe_error="Step5 MTP supports dense draft layers only",
    cites={
        "targets": f'{SPEC}:1053-1068 `"architectures": ["Step5MTP"]`',
        "count_keys": f"{S5}:179-180 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f"{S5}:56-57 `model_config.hf_text_config`",
        "count_default": "vllm/transformers_utils/configs/step5.py:92 "
        "`num_nextn_predict_layers: int = 0,` (0: refused); "
        f"{S5}:181-185 `Step5 MTP requires num_nextn_predict_layers > 0`",
        "first": f"{S5}:179 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{S5}:440-442 `f"model.layers.{{spec_layer}}.mtp_block."`',
        "layer_also": f'{S5}:370-371 `name = f"model.{{name}}"`',
        "own": f"{S5}:105-110 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{S5}:81-86 `self.head = ParallelLMHead(`",
        "decoder": f"{S5}:111-114 `self.mtp_block = Step5DecoderLayer(`; {S5}:300-301 "
        "`supports dense draft layers only` (the mlp: a MoE draft layer is refused)",
        "also": f'{S5}:398-399 `name = name.replace("shared_head.output", "shared_head.head")`',
        "missing": f"{S5}:411-420 `will falsely`; vllm/model_executor/model_loader/"
        "mtp_validation.py:9-11 `default=True` (off only for a live weight transfer)",
        "strict_error": f"{S5}:416-420 `are not in the checkpoint and will falsely`",
        "moe_keys": "vllm/models/step5/nvidia/model.py:256-283 `moe_layer_list` (the enum "
        "first; default range(1, num_hidden_layers)); vllm/models/step5/nvidia/model.py:"
        "1942-1946 `if layer_idx in moe_layers_idx:`",
        "moe_error": f"{S5}:300-301 `Step5 MTP supports dense draft layers only`",
    },
)
# --- Hunyuan V4 -----------------------------------------------------------------------------
HV4 = "vllm/models/hy_v4/nvidia/mtp.py"
VLLM_HY_V4 = MtpLoader(
    name="vllm-mtp-hy-v4",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="HYV4MTPModel",
    family="Hunyuan V4",
    targets=("type:hy_v4",),
    count_default=1,
    count_floor=1,
    layer="model.mtp_layers.{k}",
    layer_also=("model.layers.{i}",),
    also_short=1,
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "checked": "vllm/models/hy_v4/nvidia/mtp.py:338-341 `self.eh_proj = nn.Linear(config.hidden_size * 2` "
        + CHECKED,
        "targets": f'{SPEC}:1080-1085 `"architectures": ["HYV4MTPModel"]`',
        "count_keys": f"{HV4}:414-417 `self.num_mtp_layers = max(`",
        "count_default": f'{HV4}:415-416 `getattr(target_config, "num_nextn_predict_layers", 1), 1`',
        "count_floor": f'{HV4}:415-416 `getattr(target_config, "num_nextn_predict_layers", 1), 1`',
        "first": f"{HV4}:414 `self.mtp_start_layer_idx = target_config.num_hidden_layers`",
        "layer": f'{HV4}:792-799 `if name.startswith("model.mtp_layers."):` (any step k, '
        "read as model.layers.{num_hidden_layers + k})",
        "layer_also": f"{HV4}:65-72 `num_mtp_layers = max(config.num_nextn_predict_layers - 1, 1)`",
        "also_short": f"{HV4}:65-72 `num_mtp_layers = max(config.num_nextn_predict_layers - 1, 1)`",
        "own": f"{HV4}:338-341 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{HV4}:366 `self.final_layernorm = RMSNorm(`",
        "decoder": f"{HV4}:358-365 `self.mtp_block = HYV4DecoderLayer(`; "
        "vllm/models/hy_v4/nvidia/model.py:127-142 `self.post_attention_layernorm = RMSNorm(`",
        "from_target": f'{HV4}:737-740 `"lm_head.weight": f"model.layers.{{mtp_start}}.shared_head'
        f'.head.weight",`; {HV4}:604-608 `return "__skip__"` (the layer\'s own head and '
        "embedding are skipped; the target's lm_head fills draft layer 0's head only)",
        "missing": f"{HV4}:923 `return loaded_params`; {TRACKED}",
    },
)
# --- DeepSeek V4 ----------------------------------------------------------------------------
DV4 = "vllm/models/deepseek_v4/nvidia/mtp.py"
DV4M = "vllm/models/deepseek_v4/nvidia/model.py"
VLLM_DEEPSEEK_V4 = MtpLoader(
    name="vllm-mtp-deepseek-v4",
    checked=(
        "norm",
        *(f"hc_{a}_{b}" for a in ("head", "attn", "ffn") for b in ("fn", "base", "scale")),
    ),
    runtime="vllm",
    release=VLLM,
    architecture="DeepSeekV4MTPModel",
    family="DeepSeek V4",
    targets=("type:deepseek_v4",),
    layer="mtp.{k}",
    layer_also=("model.layers.{i}",),
    own=(*DEEPSEEK_V4_OWN, ("head", "V,H")),
    decoder=DEEPSEEK_V4_DECODER,
    layer_check="MTP speculative decoding layer {j} weights missing from checkpoint.",
    from_target=("embed_tokens",),
    cites={
        "checked": "vllm/models/deepseek_v4/nvidia/mtp.py:123-133 `self.hc_head_fn = nn.Parameter(`; vllm/models/deepseek_v4/nvidia/model.py:623-659 `self.hc_attn_fn = nn.Parameter(` "
        + CHECKED,
        "targets": f'{SPEC}:765-776 `overrides["architectures"] = ["DeepSeekV4MTPModel"]` '
        "(deepseek_v4 only: V4.1 has no classic MTP draft)",
        "count_keys": f"{DV4}:217-218 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_default": f"{DV4}:218 `self.num_mtp_layers = config.num_nextn_predict_layers` "
        "(an attribute: no default)",
        "first": f"{DV4}:217 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": f'{DV4}:339-353 `f"mtp.{{mtp_layer_idx}}.",`',
        "layer_also": 'vllm/model_executor/models/utils.py:589-595 `f"model.layers.{base + i}.",`',
        "own": f"{DV4}:121-153 `self.hc_head_fn = nn.Parameter(`; {DV4}:362-366 "
        '`".norm.weight": ".shared_head.norm.weight",` (its own head and final norm)',
        "decoder": f"{DV4M}:600-616 `self.attn_norm = RMSNorm(`; {DV4M}:621-664 "
        "`self.hc_attn_fn = nn.Parameter(` (its hyper-connection mixes, (2 + hc_mult) x "
        "hc_mult wide)",
        "layer_check": f"{DV4}:509-520 `MTP speculative decoding layer {{layer_idx}} weights`",
        "from_target": f'{DV4}:418-419 `".layers" not in name` (the embedding is read from '
        "draft layer 0's emb.tok_emb alone; the drafter shares the target's)",
        "missing": f"{DV4}:522 `return loaded_params`; {TRACKED}",
    },
)
# --- Qwen4Exp -------------------------------------------------------------------------------
Q4 = "vllm/models/qwen4_exp/nvidia/mtp.py"
# the prefixes vLLM strips or maps before reading an MTP name (mtp. is the plain one)
Q4_MTP_ALSO = (
    "model.mtp.",
    "language_model.mtp.",
    "language_model.model.mtp.",
    "model.language_model.mtp.",
    "model.language_model.model.mtp.",
)
VLLM_QWEN4_EXP = MtpLoader(
    name="vllm-mtp-qwen4-exp",
    runtime="vllm",
    release=VLLM,
    architecture="Qwen4ExpMTP",
    family="Qwen4Exp",
    targets=("type:qwen4_exp", "type:qwen4_exp_text"),
    count_keys=("mtp_num_hidden_layers",),
    count_in_text=True,
    count_default=1,
    first="0",
    layer="mtp.layers.{i}",
    layer_also=tuple(f"{a}layers.{{i}}" for a in Q4_MTP_ALSO),
    own=(),
    decoder=QWEN4_EXP_DECODER,
    once=QWEN4_EXP_ONCE,
    once_also=Q4_MTP_ALSO,
    cites={
        "targets": f'{SPEC}:915-933 `"architectures": ["Qwen4ExpMTP"],`',
        "count_keys": f'{Q4}:189-190 `self.num_mtp_layers = getattr(config, "mtp_num_hidden_layers", 1)`',
        "count_in_text": f"{Q4}:178-179 `config: Qwen4ExpTextConfig = model_config.hf_text_config`",
        "count_default": f'{Q4}:190 `getattr(config, "mtp_num_hidden_layers", 1)`',
        "first": f"{Q4}:223-230 `for idx in range(self.num_mtp_layers)` (a ModuleList: "
        "stored from 0)",
        "layer": f'{Q4}:119-120 `return name.replace("mtp.", "model.", 1)`',
        "layer_also": f'{Q4}:99-110 `"model.language_model.",`',
        "own": f"{Q4}:205-222 `self.fc_embedding = ColumnParallelLinear(` (the fusion is the "
        "model's, loaded once: no module of its own in a layer)",
        "decoder": "vllm/models/qwen4_exp/nvidia/model.py:258-279 "
        "`self.attn_hyper_connection = GatedResidual(`",
        "once": f"{Q4}:205-222 `self.fc_hidden = ColumnParallelLinear(`; {Q4}:237-256 "
        "`self.hidden_size * self.hc_count, eps=config.rms_norm_eps` (pre_fc_norm_hidden "
        "over the hc_count streams)",
        "once_also": f'{Q4}:99-110 `if name.startswith("model.mtp."):`',
        "missing": f"{Q4}:480-484 `return loader.load_weights(remap_weight_names(), "
        f"mapper=mapper)`; {TRACKED}",
    },
)
# --- Inkling: strict, and the depth layers built follow num_speculative_tokens --------------
INK = "vllm/models/inkling/nvidia/mtp.py"
INKLING_OWN = (("hidden_norm", "H"), ("embed_norm", "H"), ("input_proj", "H,2H"))
INKLING_DECODER = (
    ("transformer_block.attn_norm", "H"),
    ("transformer_block.attn", None),
    ("transformer_block.mlp_norm", "H"),
    ("transformer_block.mlp", None),
)
VLLM_INKLING = MtpLoader(
    name="vllm-mtp-inkling",
    runtime="vllm",
    release=VLLM,
    architecture="InklingMTPModel",
    family="Inkling",
    targets=("type:inkling_mm_model", "type:inkling_model"),
    count_keys=("mtp_config.num_nextn_predict_layers",),
    first="0",
    layer="model.mtp.layers.{i}",
    own=INKLING_OWN,
    decoder=INKLING_DECODER,
    missing="strict",
    strict_error="Inkling MTP checkpoint is missing required parameters: ...",
    refused=(
        r"(hidden_norm|embed_norm|transformer_block\.(attn_norm|mlp_norm))\.(?!weight$|bias$)",
    ),
    refused_error="a name of a built depth layer it has no parameter for: ValueError "
    "'Unexpected Inkling MTP weight: ...' at start-up",
    serving="num_speculative_tokens",
    from_target=("embed_tokens", "lm_head"),
    cites={
        "targets": f'{SPEC}:1087-1103 `"architectures": ["InklingMTPModel"],`',
        "count_keys": f'{SPEC}:1088-1092 `checkpoint_depths = mtp_config.get("num_nextn_predict_layers", 0)`',
        "count_default": f"{SPEC}:1090-1092 `The Inkling checkpoint does not contain MTP weights` "
        "(0 when mtp_config has none: refused)",
        "first": f"{INK}:142-152 `for idx in range(self.num_mtp_layers)` (depths from 0)",
        "layer": f'{INK}:417-421 `name = name.replace(".mtp.layers.", ".layers.")`',
        "own": f"{INK}:87-96 `self.input_proj = ReplicatedLinear(`",
        "decoder": f"{INK}:100-107 `self.transformer_block = InklingDecoderLayer(`; "
        "vllm/models/inkling/nvidia/model.py:151-182 `self.mlp_norm = InklingRMSNorm(`",
        "missing": f"{INK}:451-461 `is_mtp_completeness_check_enabled()`",
        "strict_error": f"{INK}:456-459 `Inkling MTP checkpoint is missing required parameters: `",
        "refused": f"{INK}:444-450 `Unexpected Inkling MTP weight: `",
        "refused_error": f"{INK}:444-450 `Unexpected Inkling MTP weight: `",
        "serving": f"{INK}:126-132 `self.num_mtp_layers = _select_mtp_depth_count(n_predict, "
        f"num_spec)`; {INK}:66-67 `num_layers = min(n_predict, num_spec) if num_spec else "
        "n_predict` (depth k is built and read for num_speculative_tokens above k)",
        "from_target": f'{INK}:397-399 `if name in ("model.llm.embed.weight", '
        '"model.llm.unembed.weight"):`',
    },
)
