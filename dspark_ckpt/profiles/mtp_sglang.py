"""SGLang 0.5.23's MTP / NextN architectures: what each reads from the target checkpoint
(``profiles/mtp.py`` registers them). Where SGLang reads the layout vLLM does, the entry
derives from vLLM's and names every field that differs, with its own cites."""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.profiles.mtp_loader import (
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
    checked=("norm",),  # "silent": no tracking
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
    checked=("norm",),  # "silent": no tracking
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
    checked=("norm",),  # "silent": no tracking
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
