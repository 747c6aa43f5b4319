"""SGLang 0.5.23's MTP / NextN architectures: what each reads from the target checkpoint
(``profiles/mtp.py`` registers them). Where SGLang reads the layout vLLM does, the entry
derives from vLLM's and names every field that differs, with its own cites."""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.profiles.mtp_loader import (
    DEEPSEEK_V4_DECODER,
    DEEPSEEK_V4_OWN,
    QWEN4_EXP_DECODER,
    QWEN4_EXP_ONCE,
    QWEN_NEXT_ONCE,
    SGLANG,
    TF_DEFAULT,
    TF_KEYS,
    MtpLoader,
)
from dspark_ckpt.profiles.mtp_vllm import (
    VLLM_BAILING,
    VLLM_ERNIE,
    VLLM_HY_V3,
    VLLM_LONGCAT,
    VLLM_MIMO,
    VLLM_MIMO_V2,
    VLLM_NEMOTRON_H,
)
from dspark_ckpt.profiles.mtp_vllm_models import PLAIN_EXTRA, VLLM_STEP3P5

# --- SGLang 0.5.23 ---------------------------------------------------------------------------
S = "python/sglang/srt/"
SILENT = "nothing checks what was loaded"
SG_DS_LOADER = f"{S}models/deepseek_common/deepseek_weight_loader.py"

SGLANG_DEEPSEEK = MtpLoader(
    name="sglang-nextn-deepseek",
    runtime="sglang",
    release=SGLANG,
    architecture="DeepseekV3ForCausalLMNextN",
    family="DeepSeek V3/R1/V3.2",
    targets=("arch:DeepseekV3ForCausalLM", "arch:DeepseekV32ForCausalLM"),
    count_keys=TF_KEYS,
    count_default=1,
    count_max=1,
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1032-1036 `"DeepseekV3ForCausalLMNextN"`',
        "count_keys": f"{SG_DS_LOADER}:563-566 `num_nextn_predict_layers`",
        "count_default": TF_DEFAULT,
        "count_max": f"{SG_DS_LOADER}:567 `Only 1 nextn layer is supported`",
        "first": f"{SG_DS_LOADER}:570-572 `else self.config.num_hidden_layers`",
        "layer": f'{SG_DS_LOADER}:577 `nextn_layer_prefix=f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{SG_DS_LOADER}:578-583 `"shared_head.norm",`; {S}models/deepseek_nextn.py:90 '
        "`self.enorm = RMSNorm`",
        "decoder": f"{SG_DS_LOADER}:332-336 `model.decoder`",
        "from_target": f'{SG_DS_LOADER}:327-329 `if "shared_head.head" in name or "embed_tokens" in name:`',
        "missing": f"{SG_DS_LOADER}:324-326 `if not name.startswith(layer_prefix):` ({SILENT})",
    },
)
SGLANG_GLM4_MOE = MtpLoader(
    name="sglang-nextn-glm4-moe",
    runtime="sglang",
    release=SGLANG,
    architecture="Glm4MoeForCausalLMNextN",
    family="GLM-4.5 / 4.6 MoE",
    targets=("arch:Glm4MoeForCausalLM",),
    count_keys=TF_KEYS,
    count_default=1,
    count_max=1,
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1063-1064 `"Glm4MoeForCausalLMNextN"`',
        "count_keys": f"{S}models/glm4_moe.py:1077-1079 `num_nextn_predict_layers`",
        "count_default": TF_DEFAULT,
        "count_max": f"{S}models/glm4_moe.py:1080 `Only 1 nextn layer is supported`",
        "first": f"{S}models/glm4_moe.py:1082-1085 `else self.config.num_hidden_layers`",
        "layer": f'{S}models/glm4_moe.py:1129 `nextn_layer_prefix = f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{S}models/glm4_moe.py:1130-1135 `"shared_head.norm",`; '
        f"{S}models/glm4_moe_nextn.py:70 `self.eh_proj = nn.Linear(2 * config.hidden_size`",
        "decoder": f"{S}models/glm4_moe_nextn.py:73 `self.decoder = Glm4MoeDecoderLayer(`",
        "from_target": f'{S}models/glm4_moe.py:1163 `if "shared_head.head" in name or "embed_tokens" in name`',
        "missing": f"{S}models/glm4_moe.py:1158-1163 `nextn_layer_prefix` ({SILENT})",
    },
)
SGLANG_QWEN3_NEXT = MtpLoader(
    name="sglang-mtp-qwen3-next",
    runtime="sglang",
    release=SGLANG,
    architecture="Qwen3NextForCausalLMMTP",
    family="Qwen3-Next",
    targets=("arch:Qwen3NextForCausalLM",),
    count_fixed=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1134-1136 `"Qwen3NextForCausalLMMTP"`',
        "count_fixed": f"{S}configs/model_config.py:1134-1136 `num_nextn_predict_layers = 1`",
        "own": f"{S}models/qwen3_next_mtp.py:60 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "first": f'{S}models/qwen3_next.py:1183-1184 `name = name.replace("mtp", "model")`',
        "layer": f'{S}models/qwen3_next.py:1173-1184 `if "mtp" not in name:`',
        "decoder": f"{S}models/qwen3_next_mtp.py:69 `self.model = Qwen3NextModel(`",
        "once": f'{S}models/qwen3_next.py:1177-1181 `"mtp.fc.weight",`; '
        f"{S}models/qwen3_next_mtp.py:60-65 `self.pre_fc_norm_hidden`",
        "missing": f"{S}models/qwen3_next.py:1170-1174 `params_dict = dict(self.named_parameters())` ({SILENT})",
    },
)
SGLANG_QWEN3_5 = MtpLoader(
    name="sglang-mtp-qwen3.5",
    runtime="sglang",
    release=SGLANG,
    architecture="Qwen3_5ForCausalLMMTP",
    family="Qwen3.5 / Qwen3.5-MoE",
    targets=(
        "arch:Qwen3_5ForConditionalGeneration",
        "arch:Qwen3_5MoeForConditionalGeneration",
        "arch:Qwen3_5ForCausalLM",
        "arch:Qwen3_5MoeForCausalLM",
    ),
    count_fixed=1,
    first="0",
    layer="mtp.layers.{i}",
    own=(),
    once=QWEN_NEXT_ONCE,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1159-1166 `"Qwen3_5MoeForConditionalGeneration",`',
        "count_fixed": f"{S}configs/model_config.py:1179-1181 `num_nextn_predict_layers = 1`",
        "own": f"{S}models/qwen3_5_mtp.py:129 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "first": f"{S}models/qwen3_5_mtp.py:135-137 `mtp_config.num_hidden_layers = 1`",
        "layer": f'{S}models/qwen3_5_mtp.py:362-367 `name = name.replace("mtp.", "model.")`',
        "decoder": f'{S}models/qwen3_5_mtp.py:135-141 `add_prefix("mtp", prefix)`',
        "once": f"{S}models/qwen3_5_mtp.py:129-134 `self.fc = nn.Linear(2 * config.hidden_size`",
        "missing": f'{S}models/qwen3_5_mtp.py:362-363 `if "mtp" not in name:` ({SILENT})',
    },
)

SGLANG_MIMO = replace(
    VLLM_MIMO,
    name="sglang-mtp-mimo",
    runtime="sglang",
    release=SGLANG,
    architecture="MiMoMTP",
    count_keys=(),
    count_fixed=1,
    stacked=True,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1092-1093 `"MiMoMTP"`',
        "count_fixed": f"{S}models/mimo_mtp.py:45 `self.mtp_block = Qwen2DecoderLayer(` (one "
        "layer, whatever the config declares)",
        "first": f"{S}models/mimo_mtp.py:185 `model.mtp_layers.(\\d+).`",
        "layer": f"{S}models/mimo_mtp.py:185-192 `model.mtp_layers.(\\d+).`",
        "own": f"{S}models/mimo_mtp.py:39-41 `self.input_proj = nn.Linear(`",
        "decoder": f"{S}models/mimo_mtp.py:192 `model.mtp_block.`",
        "stacked": f"{S}models/mimo_mtp.py:185-192 `name = name.replace(group.group(), "
        '"model.mtp_block.")` (any index maps onto the one layer: the last read wins)',
        "missing": f"{S}models/mimo_mtp.py:172-174 `weight_loader(param, loaded_weight)` ({SILENT})",
    },
)
SGLANG_LONGCAT = replace(
    VLLM_LONGCAT,
    name="sglang-nextn-longcat-flash",
    runtime="sglang",
    release=SGLANG,
    architecture="LongcatFlashForCausalLMNextN",
    targets=("arch:LongcatFlashForCausalLM",),
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1085-1090 `"LongcatFlashForCausalLMNextN"`',
        "count_fixed": f'{S}models/longcat_flash_nextn.py:516 `"model.mtp.layers.0.eh_proj.weight"` '
        "(only layer 0 is mapped)",
        "first": f'{S}models/longcat_flash_nextn.py:516 `"model.mtp.layers.0.eh_proj.weight"`',
        "layer": f'{S}models/longcat_flash_nextn.py:516-519 `"model.mtp.layers.0.eh_proj.weight"`',
        "own": f"{S}models/longcat_flash_nextn.py:516-519 `enorm.m.weight`",
        "decoder": f"{S}models/longcat_flash_nextn.py:534 `transformer_layer.mlp.down_proj.weight`",
        "once": f'{S}models/longcat_flash_nextn.py:540 `"model.mtp.norm.weight"`',
        "missing": f'{S}models/longcat_flash_nextn.py:547-548 `if ".mtp." not in name:` ({SILENT})',
    },
)
SGLANG_BAILING = replace(
    VLLM_BAILING,
    name="sglang-nextn-bailing",
    runtime="sglang",
    release=SGLANG,
    architecture="BailingMoeForCausalLMNextN",
    family="Bailing MoE V1 / V2 (Ling)",
    targets=("arch:BailingMoeForCausalLM", "arch:BailingMoeV2ForCausalLM"),
    count_max=1,
    layer_check="",
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1120-1127 `"BailingMoeForCausalLMNextN"`; '
        f"{S}models/bailing_moe_nextn.py:255-256 `BailingMoEForCausalLM.load_weights`",
        "count_keys": f"{S}models/bailing_moe.py:947-949 `num_nextn_predict_layers`",
        "count_max": f"{S}models/bailing_moe.py:949 `Only 1 nextn layer is supported`",
        "first": f"{S}models/bailing_moe.py:951-955 `else self.config.num_hidden_layers`",
        "layer": f'{S}models/bailing_moe.py:970 `nextn_layer_prefix = f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{S}models/bailing_moe.py:971-976 `"final_layernorm",`',
        "decoder": f"{S}models/bailing_moe.py:1025-1026 `model.decoder`",
        "from_target": f'{S}models/bailing_moe.py:1014 `if "shared_head.head" in name or '
        '"embed_tokens" in name:`',
        "missing": f"{S}models/bailing_moe.py:1010-1011 `if not name.startswith(nextn_layer_prefix):` ({SILENT})",
    },
)
SGLANG_ERNIE = replace(
    VLLM_ERNIE,
    name="sglang-mtp-ernie",
    runtime="sglang",
    release=SGLANG,
    architecture="Ernie4_5_MoeForCausalLMMTP",
    targets=("arch:Ernie4_5_MoeForCausalLM",),
    count_keys=(),
    count_fixed=1,
    count_max=None,
    layer_check="MTP layers 'mtp_*.0.*' not found in weights",
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1128-1132 `"Ernie4_5_MoeForCausalLMMTP"`',
        "count_fixed": f'{S}models/ernie4_eagle.py:145-149 `f"mtp_emb_norm.{{self.mtp_layer_id}}",` '
        "(one layer: mtp_layer_id 0)",
        "first": f'{S}models/ernie4_eagle.py:145-149 `f"mtp_emb_norm.{{self.mtp_layer_id}}",`',
        "layer": f'{S}models/ernie4_eagle.py:160-161 `name = name.replace(f".{{self.mtp_layer_id}}.", ".")`',
        "own": f"{S}models/ernie4_eagle.py:54-56 `self.mtp_linear_proj = nn.Linear(`",
        "decoder": f"{S}models/ernie4_eagle.py:59 `self.mtp_block = Ernie4DecoderLayer(`",
        "layer_check": f"{S}models/ernie4_eagle.py:183-185 `not found in weights.`",
        "missing": f"{S}models/ernie4_eagle.py:143-144 `mtp_layer_found = False` (the layer is "
        f"checked, not its tensors: {SILENT})",
    },
)
SGLANG_NEMOTRON_H = replace(
    VLLM_NEMOTRON_H,
    name="sglang-mtp-nemotron-h",
    runtime="sglang",
    release=SGLANG,
    architecture="NemotronHForCausalLMMTP",
    targets=("arch:NemotronHForCausalLM", "arch:NemotronHPuzzleForCausalLM"),
    count_keys=(),
    count_fixed=1,
    count_max=None,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:1197-1202 `"NemotronHForCausalLMMTP"`',
        "count_fixed": f"{S}configs/model_config.py:1197-1203 `num_nextn_predict_layers = 1`",
        "first": f'{S}models/nemotron_h_mtp.py:388 `has_mtp_layers |= name.startswith("mtp.layers.")`',
        "layer": f'{S}models/nemotron_h_mtp.py:388 `name.startswith("mtp.layers.")`',
        "step_pattern": f"{S}models/nemotron_h_mtp.py:227-242 `total_layers = self.num_mtp_layers * self.pattern_len`",
        "own": f"{S}models/nemotron_h.py:560 `self.norm = RMSNorm`",
        "decoder": f"{S}models/nemotron_h.py:551 `self.mixer = NemotronHMLP(`",
        "first_of_step": f"{S}models/nemotron_h_mtp.py:63-69 `self.eh_proj = ColumnParallelLinear(`",
        "last_of_step": f"{S}models/nemotron_h_mtp.py:82-83 `self.final_layernorm = RMSNorm(`",
        "missing": f"{S}models/nemotron_h_mtp.py:398 `super().load_weights(normalized_weights(), "
        f"is_mtp=True)` ({SILENT})",
    },
)
SGLANG_QWEN3_MOE = replace(
    SGLANG_QWEN3_NEXT,
    name="sglang-mtp-qwen3-moe",
    architecture="Qwen3MoeForCausalLMMTP",
    family="Qwen3-MoE",
    targets=("arch:Qwen3MoeForCausalLM",),
    cites={
        **SGLANG_QWEN3_NEXT.cites,
        "targets": f'{S}configs/model_config.py:1155-1157 `"Qwen3MoeForCausalLMMTP"`',
        "count_fixed": f"{S}configs/model_config.py:1155-1157 `num_nextn_predict_layers = 1`",
        "own": f"{S}models/qwen3_moe_mtp.py:51 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "once": f'{S}models/qwen3_moe.py:1184-1191 `"mtp.fc.weight",`',
        "layer": f'{S}models/qwen3_moe.py:1180-1191 `name = name.replace("mtp", "model")`',
        "first": f'{S}models/qwen3_moe.py:1191 `name = name.replace("mtp", "model")`',
        "decoder": f"{S}models/qwen3_moe_mtp.py:56 `self.model = Qwen3MoeModel(`",
        "missing": f'{S}models/qwen3_moe.py:1180-1182 `if "mtp" not in name:` ({SILENT})',
    },
)
G5 = f"{S}models/glm5_next.py"
SGLANG_GLM5_NEXT = MtpLoader(
    name="sglang-nextn-glm5-next",
    runtime="sglang",
    release=SGLANG,
    architecture="Glm5NextForConditionalGenerationNextN",
    family="GLM-5 Next",
    targets=("arch:Glm5NextForConditionalGeneration",),
    count_fixed=1,
    layer_also=("model.language_model.layers.{i}",),
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1071-1075 `"Glm5NextForConditionalGenerationNextN"`',
        "count_fixed": f"{S}configs/model_config.py:1077 "
        "`self.hf_text_config.num_nextn_predict_layers = 1`",
        "first": f"{S}models/glm5_next_nextn.py:82 `layer_id = self.config.num_hidden_layers`",
        "layer": f'{S}models/glm5_next_nextn.py:83-86 `f"model.layers.{{layer_id}}.",`',
        "layer_also": f'{S}models/glm5_next_nextn.py:83-86 `f"model.language_model.layers.'
        f'{{layer_id}}.",`; {G5}:1758-1759 `name = name.replace("language_model.", "")`',
        "own": f'{G5}:1722-1728 `"shared_head.norm",`; {S}models/deepseek_nextn.py:90 '
        "`self.enorm = RMSNorm`",
        "decoder": f'{G5}:1800-1801 `name = name.replace(nextn_layer_prefix, "model.decoder")`',
        "from_target": f'{G5}:1791 `if "shared_head.head" in name or "embed_tokens" in name:`',
        "missing": f"{G5}:1909-1910 `if name not in params_dict:` ({SILENT})",
    },
)
SGLANG_GLM_MOE_DSA = replace(
    SGLANG_DEEPSEEK,
    name="sglang-nextn-glm-moe-dsa",
    architecture="GlmMoeDsaForCausalLMNextN",
    family="GLM-5 (DSA)",
    targets=("arch:GlmMoeDsaForCausalLM",),
    cites={
        **SGLANG_DEEPSEEK.cites,
        "targets": f'{S}configs/model_config.py:1038-1039 `"GlmMoeDsaForCausalLMNextN"`; '
        f"{S}models/glm4_moe.py:1288 `class GlmMoeDsaForCausalLMNextN(DeepseekV3ForCausalLMNextN):`"
        f" (DeepSeek's NextN loader: {S}models/glm4_moe.py:1355-1357 "
        "`return super().load_weights(weights)`)",
    },
)
EX = f"{S}models/exaone_moe.py"
SGLANG_EXAONE_MOE = replace(
    SGLANG_QWEN3_NEXT,
    name="sglang-mtp-exaone-moe",
    architecture="ExaoneMoEForCausalLMMTP",
    family="EXAONE MoE",
    targets=("arch:ExaoneMoEForCausalLM", "arch:ExaoneMoeForCausalLM"),
    cites={
        "targets": f'{S}configs/model_config.py:1183-1187 `"ExaoneMoEForCausalLMMTP"`',
        "count_fixed": f"{S}models/exaone_moe_mtp.py:47 `config.num_hidden_layers = 1`",
        "own": f"{S}models/exaone_moe_mtp.py:51 `self.fc = nn.Linear(2 * config.hidden_size` "
        "(fc and its norms are the model's, loaded once)",
        "first": f'{EX}:787-788 `name = name.replace("mtp", "model")`',
        "layer": f'{EX}:778-788 `name = name.replace("mtp", "model")`',
        "decoder": f"{S}models/exaone_moe_mtp.py:56-57 `self.model = ExaoneMoEModel(`",
        "once": f'{EX}:781-786 `"mtp.pre_fc_norm_hidden.weight",`',
        "missing": f"{EX}:775 `params_dict = dict(self.named_parameters())` ({SILENT})",
    },
)
HY3 = f"{S}models/hunyuan_v3_nextn.py"
SGLANG_HY_V3 = replace(
    VLLM_HY_V3,
    name="sglang-nextn-hy-v3",
    runtime="sglang",
    release=SGLANG,
    architecture="HYV3ForCausalLMNextN",
    targets=("arch:HYV3ForCausalLM",),
    count_keys=(),
    count_fixed=1,
    cites={
        "targets": f'{S}configs/model_config.py:1205-1206 `"HYV3ForCausalLMNextN"`',
        "count_fixed": f'{HY3}:161-162 `nextn_prefix = f"model.layers.{{nextn_layer_id}}."` '
        "(one layer, whatever the config declares)",
        "first": f"{HY3}:161 `nextn_layer_id = self.config.num_hidden_layers`",
        "layer": f'{HY3}:162 `nextn_prefix = f"model.layers.{{nextn_layer_id}}."`',
        "own": f'{HY3}:163 `spec_weight_names = ("enorm", "hnorm", "eh_proj")`; {HY3}:187-190 '
        '`name = "model.shared_head.norm.weight"` (stored as final_layernorm)',
        "decoder": f'{HY3}:191-192 `name = f"model.decoder.{{subname}}"`',
        "from_target": f'{HY3}:195-200 `or "shared_head.head" in name`',
        "missing": f"{HY3}:252-253 `if name not in params_dict:` ({SILENT})",
    },
)
GL = f"{S}models/glm4_moe_lite.py"
SGLANG_GLM4_MOE_LITE = replace(
    SGLANG_GLM4_MOE,
    name="sglang-nextn-glm4-moe-lite",
    architecture="Glm4MoeLiteForCausalLMNextN",
    family="GLM-4.7 Flash (GLM-4 MoE Lite)",
    targets=("arch:Glm4MoeLiteForCausalLM",),
    count_keys=("num_nextn_predict_layers",),
    count_default=None,
    cites={
        "targets": f'{S}configs/model_config.py:1065-1069 `"Glm4MoeLiteForCausalLMNextN"`; '
        f"{S}models/glm4_moe_lite_nextn.py:179-180 `super().load_weights(weights, is_nextn=True)`",
        "count_keys": f"{GL}:840-842 `num_nextn_predict_layers`",
        "count_default": f"{GL}:850-851 `num_nextn_predict_layers is not in the config` "
        "(no default: transformers' Glm4MoeLiteConfig declares none)",
        "count_max": f"{GL}:843 `Only 1 nextn layer is supported`",
        "first": f"{GL}:845-849 `else self.config.num_hidden_layers`",
        "layer": f'{GL}:897-898 `nextn_layer_prefix = f"model.layers.{{nextn_layer_id}}"`',
        "own": f'{GL}:899-904 `"shared_head.norm",`',
        "decoder": f"{S}models/glm4_moe_lite_nextn.py:47 `class Glm4MoeLiteModelNextN(nn.Module):`",
        "from_target": f'{GL}:932-933 `if "shared_head.head" in name or "embed_tokens" in name:`',
        "missing": f"{GL}:926-927 `if nextn_layer_prefix and not name.startswith(nextn_layer_prefix):` ({SILENT})",
    },
)
MV2 = f"{S}models/mimo_v2_nextn.py"
SGLANG_MIMO_V2 = replace(
    VLLM_MIMO_V2,
    name="sglang-mtp-mimo-v2",
    runtime="sglang",
    release=SGLANG,
    architecture="MiMoV2MTP",
    stacked=True,
    missing="silent",
    cites={
        "targets": f'{S}configs/model_config.py:74-77 `"MiMoV2FlashForCausalLM",`; '
        f'{S}configs/model_config.py:1094-1096 `"MiMoV2MTP"`',
        "count_fixed": f"{S}configs/model_config.py:1096 "
        "`self.hf_config.num_nextn_predict_layers = 1`",
        "first": f'{MV2}:374 `pattern = r"model.mtp.layers.(\\d+)."`',
        "layer": f'{MV2}:374-381 `name = name.replace(group.group(), "model.mtp_block.")`',
        "own": f'{MV2}:368-373 `"final_layernorm",`',
        "decoder": f'{MV2}:365-366 `name = name.replace("pre_mlp_layernorm", '
        '"post_attention_layernorm")`',
        "stacked": f'{MV2}:374-381 `name = name.replace(group.group(), "model.mtp_block.")` '
        "(any index maps onto the one layer: the last read wins)",
        "missing": f"{MV2}:288 `params_dict = dict(self.named_parameters())` ({SILENT})",
    },
)
S35 = f"{S}models/step3p5_mtp.py"
# Step-3.5 / Step-3.7: multi-layer EAGLE, one draft worker per speculative step, each reading
# one layer (num_hidden_layers + its index) with a strict load
SGLANG_STEP3P5 = replace(
    VLLM_STEP3P5,
    name="sglang-mtp-step3p5",
    runtime="sglang",
    release=SGLANG,
    targets=("arch:Step3p5ForCausalLM", "arch:Step3p7ForConditionalGeneration"),
    refused=(PLAIN_EXTRA,),  # it drops '.transformer.' before any mapping
    refused_error="its load_weights looks the name up in its parameters: a KeyError at "
    "start-up, quantised or not",
    serving="speculative_num_steps",
    cites={
        "targets": f'{S}configs/model_config.py:1097-1098 `"Step3p5MTP"`; '
        f'{S}configs/model_config.py:1115-1120 `self.hf_config.architectures = ["Step3p5MTP"]`',
        "count_keys": f"{S35}:34-40 `for i in range(config.num_nextn_predict_layers):`",
        "count_in_text": f"{S}configs/model_config.py:1119 `self.hf_config = self.hf_text_config`",
        "first": f"{S35}:210-214 `self.config.num_hidden_layers + self.draft_model_idx`",
        "layer": f'{S35}:38-39 `weight_name.startswith(f"model.layers.{{base + i}}.")`',
        "own": f"{S35}:74-78 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{S35}:50-52 `self.head = ParallelLMHead(`",
        "decoder": f"{S35}:79-84 `self.mtp_block = Step3p5DecoderLayer(`; "
        f"{S}models/step3p5.py:474-480 `self.moe = Step3p5MoEMLP(` (moe or mlp, as the "
        "config places the layer)",
        "also": f'{S35}:305-309 `name = name.replace(".transformer.", ".", 1)`; '
        f'{S35}:274-275 `name = name.replace("shared_head.output", "shared_head.head")`',
        "missing": f"{S35}:288-294 `will falsely use random initialization`",
        "strict_error": f"{S35}:292-293 `are not in the checkpoint and will falsely`",
        "refused": f'{S35}:329-332 `name = name.replace(layers_prefix, "model.", 1)`; '
        f"{S35}:282 `param = params_dict[name]`",
        "refused_error": f"{S35}:282 `param = params_dict[name]`",
        "serving": f"{S}managers/tp_worker.py:504-519 `draft_model_idx=i,` (one draft worker "
        "per step, i below speculative_num_steps); "
        f'{S}arg_groups/overrides.py:346-350 `overrides["enable_multi_layer_eagle"] = True`',
    },
)
HY4 = f"{S}models/hunyuan_v4_nextn.py"
# Hunyuan V4: one NextN layer, read from model.mtp_layers.0 alone, through DeepSeek's loader
SGLANG_HY_V4 = replace(
    SGLANG_HY_V3,
    name="sglang-nextn-hy-v4",
    architecture="HYV4ForCausalLMNextN",
    family="Hunyuan V4",
    targets=("arch:HYV4ForCausalLM",),
    first="0",
    layer="model.mtp_layers.{i}",
    cites={
        "targets": f'{S}configs/model_config.py:1209-1211 `"HYV4ForCausalLMNextN"`',
        "count_fixed": f"{S}configs/model_config.py:1211 "
        "`self.hf_config.num_nextn_predict_layers = 1`",
        "first": f'{HY4}:224-226 `if not name.startswith("model.mtp_layers.0."):`',
        "layer": f'{HY4}:224-226 `name = name.replace("model.mtp_layers.0", layer_prefix)`',
        "own": f"{HY4}:123-125 `self.eh_proj = nn.Linear(2 * config.hidden_size`; "
        f'{HY4}:227-230 `".final_layernorm.weight", ".shared_head.norm.weight"`',
        "decoder": f"{HY4}:51-72 `self.mlp = DeepseekV2MoE(`",
        "from_target": f"{HY4}:210-217 `self.lm_head.weight = head` (the target's embedding "
        "and head)",
        "missing": f"{HY4}:238 `self.do_load_weights(mapped_weights(), is_nextn=True)` "
        f"(DeepSeek's loader: {SILENT})",
    },
)
DV4 = f"{S}models/deepseek_v4.py"
# DeepSeek V4: one NextN layer, mtp.0.* renamed to V4's own names on load
SGLANG_DEEPSEEK_V4 = MtpLoader(
    name="sglang-nextn-deepseek-v4",
    runtime="sglang",
    release=SGLANG,
    architecture="DeepseekV4ForCausalLMNextN",
    family="DeepSeek V4",
    targets=("arch:DeepseekV4ForCausalLM",),
    count_fixed=1,
    first="0",
    layer="mtp.{i}",
    own=DEEPSEEK_V4_OWN,
    decoder=DEEPSEEK_V4_DECODER,
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f"{S}configs/model_config.py:1041-1061 "
        '`self.hf_config.architectures[0] = "DeepseekV4ForCausalLMNextN"` (unless the '
        "checkpoint bundles a DSpark head and the algorithm is DSpark)",
        "count_fixed": f"{S}configs/model_config.py:1060-1061 "
        "`self.hf_config.num_nextn_predict_layers = 1`",
        "first": f'{DV4}:5133-5159 `name = f"model.layers.{{num_hidden_layers}}." + rest`',
        "layer": f'{DV4}:5133-5159 `if is_nextn and name.startswith("mtp."):`',
        "own": f"{S}models/deepseek_v4_nextn.py:74-100 `self.hc_head_fn = nn.Parameter(`; "
        f'{DV4}:5147-5152 `rest = "shared_head.norm.weight"`',
        "decoder": f'{DV4}:5161-5166 `name = name.replace(".attn_norm.", ".input_layernorm.")`',
        "from_target": f'{DV4}:5623-5624 `skipped_checking_patterns.extend(["lm_head", '
        '"embed_tokens"])`',
        "missing": f"{DV4}:5631-5634 `Some weights are not initialized from checkpoints` "
        f"(a warning: {SILENT})",
    },
)
Q4M = f"{S}models/qwen4_exp_mtp.py"
Q35 = f"{S}models/qwen3_5_mtp.py"
# Qwen4Exp: Qwen3.5's MTP loader (mtp.* names only) with Qwen4Exp's fusion
SGLANG_QWEN4_EXP = replace(
    SGLANG_QWEN3_5,
    name="sglang-mtp-qwen4-exp",
    architecture="Qwen4ExpForCausalLMMTP",
    family="Qwen4Exp",
    targets=("arch:Qwen4ExpForConditionalGeneration",),
    decoder=QWEN4_EXP_DECODER,
    once=QWEN4_EXP_ONCE,
    cites={
        **SGLANG_QWEN3_5.cites,
        "targets": f'{S}configs/model_config.py:1139-1148 `"Qwen4ExpForCausalLMMTP"`; '
        f"{Q4M}:27 `class Qwen4ExpForCausalLMMTP(Qwen3_5ForCausalLMMTP):` (Qwen3.5's "
        "load_weights)",
        "count_fixed": f"{S}configs/model_config.py:1147-1151 "
        "`text_config.num_nextn_predict_layers = 1`",
        "first": f"{Q4M}:40-44 `config.num_hidden_layers = 1`",
        "layer": f'{Q35}:364-369 `name = name.replace("mtp.", "model.")`',
        "decoder": f'{Q4M}:59-64 `prefix=add_prefix("mtp", prefix),`; '
        f"{S}models/qwen4_exp.py:2046 `self.hyper_connection_mixer = (`",
        "once": f"{Q4M}:74-104 `self.fc_hidden = nn.Linear(config.hidden_size` (hc_count "
        "above 1, as Qwen4Exp's configs have it); "
        f'{Q35}:364-369 `name = name.replace("model.fc", "fc")`',
        "missing": f'{Q35}:361-362 `if "mtp" not in name:` ({SILENT})',
    },
)
