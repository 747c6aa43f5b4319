"""SGLang 0.5.23's MTP / NextN architectures added beside ``mtp_sglang.py``'s: the strict
and per-step (multi-layer EAGLE) loaders, and the families whose layers carry
hyper-connections (``profiles/mtp.py`` registers them)."""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.profiles.mtp_loader import (
    DEEPSEEK_V4_DECODER,
    DEEPSEEK_V4_OWN,
    QWEN4_EXP_DECODER,
    QWEN4_EXP_ONCE,
    SGLANG,
    MtpLoader,
)
from dspark_ckpt.profiles.mtp_sglang import (
    SG_DS_LOADER,
    SGLANG_HY_V3,
    SGLANG_QWEN3_5,
    SILENT,
    S,
)
from dspark_ckpt.profiles.mtp_vllm_models import PLAIN_EXTRA, VLLM_INKLING, VLLM_STEP3P5

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
GC = f"{S}models/gigachat35_mtp.py"
MULTI = (
    f"{S}managers/tp_worker.py:504-519 `draft_model_idx=i,` (multi-layer EAGLE: one draft "
    "worker per step, i below speculative_num_steps)"
)
# GigaChat 3.5: multi-layer EAGLE, worker k reads model.layers.{num_hidden_layers + k}
# through DeepSeek's NextN loader
SGLANG_GIGACHAT35 = MtpLoader(
    name="sglang-nextn-gigachat35",
    runtime="sglang",
    release=SGLANG,
    architecture="GigaChat35ForCausalLMNextN",
    family="GigaChat 3.5",
    targets=("arch:GigaChat35ForCausalLM",),
    missing="silent",
    serving="speculative_num_steps",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1110-1114 `"GigaChat35ForCausalLMNextN"`',
        "count_keys": f"{GC}:193-194 `num_nextn_predict_layers is not in the config` (the "
        "layers the checkpoint declares)",
        "first": f"{GC}:195-199 `else self.config.num_hidden_layers + self.draft_model_idx`",
        "layer": f'{GC}:200-205 `nextn_layer_prefix=f"model.layers.{{nextn_layer_id}}",`',
        "own": f'{GC}:204 `nextn_spec_weight_names=["shared_head.norm", "eh_proj", "enorm", '
        '"hnorm"],`',
        "decoder": f"{GC}:208-209 `self.do_load_weights(_remap_gigachat_weight_names(weights), "
        "is_nextn=True)` (DeepSeek's NextN loader: the layer's decoder)",
        "from_target": f'{SG_DS_LOADER}:327-329 `if "shared_head.head" in name or '
        '"embed_tokens" in name:`',
        "missing": f"{SG_DS_LOADER}:324-326 `if not name.startswith(layer_prefix):` ({SILENT})",
        "serving": f"{MULTI}; {S}arg_groups/model_overrides/gigachat35.py:14-23 "
        '`overrides["enable_multi_layer_eagle"] = True`',
    },
)
INK = f"{S}models/inkling.py"
# Inkling: multi-layer EAGLE, worker k reads depth model.mtp.layers.{k} alone, strictly
SGLANG_INKLING = MtpLoader(
    name="sglang-mtp-inkling",
    runtime="sglang",
    release=SGLANG,
    architecture="InklingForConditionalGenerationMTP",
    family="Inkling",
    targets=("arch:InklingForConditionalGeneration",),
    count_keys=("mtp_config.n_layers", "num_nextn_predict_layers"),
    count_in_text=True,
    count_default=8,
    first="0",
    layer="model.mtp.layers.{i}",
    own=VLLM_INKLING.own,
    decoder=VLLM_INKLING.decoder,
    missing="strict",
    strict_error="MTP draft (idx k): ... unloaded weights ...; an unloaded RMSNorm stays "
    "all-ones and silently miscalibrates the draft",
    serving="speculative_num_steps",
    from_target=("embed_tokens", "lm_head"),
    cites={
        "targets": f'{S}configs/model_config.py:1099-1103 `"InklingForConditionalGenerationMTP"`',
        "count_keys": f'{S}configs/inkling.py:334-336 `mtp_config["n_layers"]`',
        "count_in_text": f"{S}configs/inkling.py:334-336 "
        "`self.text_config.num_nextn_predict_layers`",
        "count_default": f"{S}configs/inkling.py:73 `num_nextn_predict_layers: int = 8,`",
        "first": f"{S}model_loader/loader.py:395 `_MTP_PATTERN = "
        're.compile(r"model\\.mtp\\.layers\\.(\\d+)\\.")`',
        "layer": f"{S}model_loader/loader.py:741-755 `if idx != draft_model_idx:`",
        "own": f"{INK}:1695-1704 `self.hidden_norm = RMSNorm(`",
        "decoder": f'{INK}:1883-1886 `name = re.sub(r".*mtp\\.(?:model\\.)?layers\\.\\d+\\.", '
        '"model.", name)`',
        "missing": f"{INK}:1978-1988 `raise RuntimeError(msg)`",
        "strict_error": f"{INK}:1980-1986 `an unloaded `",
        "serving": f"{MULTI}; {INK}:1771-1777 `MultiLayerEagleDraftWorker creates one instance "
        "per layer` (without multi-layer EAGLE every depth is read into one layer)",
        "from_target": f'{INK}:1888-1891 `name = "model.embed_tokens.weight"`',
    },
)
D3 = f"{S}models/dots3_common/modeling.py"
# dots3 note: SGLang's own Dots3Config chooses the draft class and fixes one shared layer
SGLANG_DOTS3_NOTE = MtpLoader(
    name="sglang-nextn-dots3-note",
    runtime="sglang",
    release=SGLANG,
    architecture="Dots3NoteForCausalLMNextN",
    family="dots3 note",
    targets=("type:dots3_note",),
    count_fixed=1,
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f"{S}configs/model_config.py:1013-1018 "
        "`self.hf_text_config.configure_draft_model()`; "
        f'{S}configs/dots3.py:17-18 `model_type = "dots3_note"` (SGLang\'s own config class)',
        "count_fixed": f"{S}configs/dots3.py:187-199 `self.num_nextn_predict_layers = 1`",
        "first": f"{D3}:1906-1915 `else self.config.num_hidden_layers`",
        "layer": f'{D3}:2044-2045 `nextn_layer_prefixes = [f"model.layers.{{lid}}" for lid in '
        "nextn_layer_ids]`",
        "own": f'{D3}:2046-2051 `"shared_head.norm",`',
        "decoder": f'{D3}:2136-2139 `matched_prefix, f"model.heads.{{head_idx}}.decoder"`',
        "from_target": f"{S}models/dots3_common/nextn.py:200-205 `self.lm_head.weight = head`",
        "missing": f"{D3}:2295-2302 `self.post_load_weights(is_nextn=is_nextn, "
        f"weight_names=weight_names)` ({SILENT})",
    },
)
GO = f"{S}models/glm_ocr.py"
# GLM-OCR: GLM's NextN layer past the text model's decoder layers, read under the text
# model's prefix or without it
SGLANG_GLM_OCR = MtpLoader(
    name="sglang-nextn-glm-ocr",
    runtime="sglang",
    release=SGLANG,
    architecture="GlmOcrForConditionalGenerationNextN",
    family="GLM-OCR",
    targets=("arch:GlmOcrForConditionalGeneration",),
    count_in_text=True,
    count_max=1,
    layer_also=("model.language_model.layers.{i}",),
    missing="silent",
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "targets": f'{S}configs/model_config.py:1080-1083 `"GlmOcrForConditionalGenerationNextN"`',
        "count_keys": f"{GO}:332-343 `num_nextn_predict_layers is not in the config`",
        "count_in_text": f"{GO}:332-334 `num_nextn_layers = self.config.num_nextn_predict_layers` "
        "(the config the model is built with: the text model's sizes)",
        "count_max": f"{GO}:335 `Only 1 nextn layer is supported`",
        "first": f"{GO}:336-341 `else self.config.num_hidden_layers`",
        "layer": f'{GO}:353-354 `nextn_layer_prefix = f"model.layers.{{nextn_layer_id}}"`',
        "layer_also": f'{GO}:379-380 `name = name.replace(r"model.language_model.", r"model.")`',
        "own": f'{GO}:353-359 `"shared_head.norm",`; {S}models/glm_ocr_nextn.py:69-72 '
        "`self.eh_proj = nn.Linear(2 * config.hidden_size`",
        "decoder": f'{GO}:409-411 `name = name.replace(nextn_layer_prefix, "model.decoder")`',
        "from_target": f'{GO}:397-399 `if "shared_head.head" in name or "embed_tokens" in name:`',
        "missing": f"{GO}:394-396 `if not name.startswith(nextn_layer_prefix):` ({SILENT})",
    },
)
IQ = f"{S}models/iquest_q1_mtp.py"
# IQuest Q1: a separate MTP export (its own config names IQuestQ1MTP, passed as the draft
# model path), judged by inspect EXPORT --mtp; it raises on any name but its own
SGLANG_IQUEST_Q1 = MtpLoader(
    name="sglang-mtp-iquest-q1",
    runtime="sglang",
    release=SGLANG,
    architecture="IQuestQ1MTP",
    family="IQuest Q1 (its separate MTP export)",
    targets=("arch:IQuestQ1MTP", "type:iquest_q1_mtp"),
    count_fixed=1,
    first="0",
    layer="mtp",
    own=(("enorm", "H"), ("hnorm", "H"), ("eh_proj", "H,2H"), ("final_layernorm", "H")),
    decoder=(
        ("mtp_model_layer.attention_norm", "H"),
        ("mtp_model_layer.attn_out_norm", "H"),
        ("mtp_model_layer.feed_forward_norm", "H"),
        ("mtp_model_layer.ffn_out_norm", "H"),
        ("mtp_model_layer.self_attn", None),
        ("mtp_model_layer.mlp", None),
    ),
    once=(("embed_tokens", "V,H"), ("lm_head", "V,H")),
    missing="silent",
    accepts=(
        r"mtp\.",
        r"embed_tokens\.weight$",
        r"lm_head\.weight$",
        r"target_final_norm\.weight$",
    ),
    refused_error="ValueError 'Unexpected MTP weight: ...' at start-up",
    cites={
        "targets": f'{S}configs/iquest_q1.py:166-197 `architectures=["IQuestQ1MTP"],` (the '
        "export's own config class, iquest_q1_mtp)",
        "count_fixed": f"{S}configs/iquest_q1.py:179-180 `MTP supports one physical draft layer.`",
        "first": f'{IQ}:192-193 `yield "model.mtp_layer." + name.removeprefix("mtp."), weight`',
        "layer": f'{IQ}:192-193 `elif name.startswith("mtp."):`',
        "own": f"{IQ}:78-88 `self.final_layernorm = IQuestQ1RMSNorm(`",
        "decoder": f"{IQ}:32-52 `self.ffn_out_norm = IQuestQ1RMSNorm(`",
        "once": f'{IQ}:188-195 `yield "model.embed_tokens.weight", weight`; {IQ}:167-171 '
        "`def set_embed_and_head(self, embed, head):` (keeps its own: the export ships both)",
        "missing": f"{IQ}:201 `load_iquest_q1_weights(self, mapped_weights())` ({SILENT})",
        "accepts": f'{IQ}:187-199 `raise ValueError(f"Unexpected MTP weight: {{name}}")`',
        "refused_error": f'{IQ}:199 `raise ValueError(f"Unexpected MTP weight: {{name}}")`',
    },
)
