"""vLLM 0.33.0's MTP loaders of GLM-4.7 Flash (GLM-4 MoE Lite, read from a separate MTP
export), GLM-OCR and Nemotron Parse 3.5: what each reads (``profiles/mtp.py`` registers
them)."""

from __future__ import annotations

from dspark_ckpt.profiles.mtp_loader import DEEPSEEK_OWN, VLLM, MtpLoader
from dspark_ckpt.profiles.mtp_vllm import CHECKED, SPEC, TRACKED, M

# --- GLM-4.7 Flash (GLM-4 MoE Lite), GLM-OCR, Nemotron Parse 3.5 -----------------------------
GLL = "vllm/model_executor/models/glm4_moe_lite_mtp.py"
GOC = "vllm/model_executor/models/glm_ocr_mtp.py"
# the override zeroes num_hidden_layers: the draft layers are read from index 0 of the
# checkpoint the draft is loaded from (a separate MTP export; the target itself holds its
# first decoder layer there)
VLLM_GLM4_MOE_LITE = MtpLoader(
    name="vllm-mtp-glm4-moe-lite",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="Glm4MoeLiteMTPModel",
    family="GLM-4.7 Flash (GLM-4 MoE Lite)",
    targets=("arch:Glm4MoeLiteForCausalLM",),
    first="0",
    own=(*DEEPSEEK_OWN, ("shared_head.head", "V,H")),
    from_target=("embed_tokens",),
    cites={
        "checked": f"{M}glm4_moe_lite_mtp.py:98-100 `self.eh_proj = nn.Linear(config.hidden_size * 2` {CHECKED}",
        "targets": f'{SPEC}:858-867 `"architectures": ["Glm4MoeLiteMTPModel"],`',
        "count_keys": f"{GLL}:164-165 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "first": f'{SPEC}:858-865 `"num_hidden_layers": 0,`; {GLL}:164 '
        "`self.mtp_start_layer_idx = config.num_hidden_layers` (index 0 of the checkpoint "
        "the draft is loaded from: a separate MTP export, not the target's layers)",
        "layer": 'vllm/model_executor/models/utils.py:589-595 `f"model.layers.{base + i}.",`',
        "own": f"{GLL}:98-100 `self.eh_proj = nn.Linear(config.hidden_size * 2`; "
        f"{GLL}:76-83 `self.head = ParallelLMHead(`",
        "decoder": f"{GLL}:127-130 `self.mtp_block = Glm4MoeLiteDecoderLayer(`",
        "from_target": f"{GLL}:437-442 `spec_layer != self.model.mtp_start_layer_idx`",
        "missing": f"{GLL}:454 `return loaded_params`; {TRACKED}",
    },
)
VLLM_GLM_OCR = MtpLoader(
    name="vllm-mtp-glm-ocr",
    checked=("norm", "eh_proj"),
    runtime="vllm",
    release=VLLM,
    architecture="GlmOcrMTPModel",
    family="GLM-OCR",
    targets=("arch:GlmOcrForConditionalGeneration",),
    count_in_text=True,
    layer_also=("model.language_model.layers.{i}", "layers.{i}"),
    from_target=("shared_head.head", "embed_tokens"),
    cites={
        "checked": f"{M}glm_ocr_mtp.py:67-69 `self.eh_proj = nn.Linear(config.hidden_size * 2` {CHECKED}",
        "targets": f'{SPEC}:869-878 `"architectures": ["GlmOcrMTPModel"],`',
        "count_keys": f"{GOC}:109-111 `self.num_mtp_layers = config.num_nextn_predict_layers`",
        "count_in_text": f"{GOC}:109 `config = vllm_config.model_config.hf_config.text_config` "
        "(the override zeroes the top level's num_hidden_layers, not the text model's)",
        "first": f"{GOC}:110 `self.mtp_start_layer_idx = config.num_hidden_layers`",
        "layer": 'vllm/model_executor/models/utils.py:589-595 `f"model.layers.{base + i}.",`',
        "layer_also": f'{GOC}:252 `name = name.replace("model.language_model.layers", '
        '"model.layers")`; vllm/model_executor/models/utils.py:589-595 `f"layers.{base + i}.",`',
        "own": f"{GOC}:67-69 `self.eh_proj = nn.Linear(config.hidden_size * 2`",
        "decoder": f"{GOC}:75-77 `self.mtp_block = Glm4DecoderLayer(`",
        "from_target": f'{GOC}:187-189 `name = f"model.layers.{{spec_layer}}.shared_head.head.weight"`',
        "missing": f"{GOC}:246 `return loaded_params`; {TRACKED}",
    },
)
NP = "vllm/model_executor/models/nemotron_parse3_5_mtp.py"
# Nemotron Parse 3.5: one auxiliary step from the decoder's trained extra projection and head
VLLM_PARSE_AUX = MtpLoader(
    name="vllm-mtp-parse-aux",
    checked=("extra_proj", "extra_heads"),
    runtime="vllm",
    release=VLLM,
    architecture="ParseAuxMTPModel",
    family="Nemotron Parse 3.5",
    targets=("arch:RadioMBartPrefixForCausalLM",),
    count_keys=(),
    count_fixed=1,
    first="0",
    layer="decoder",
    own=(("extra_proj.0", None), ("extra_heads.0", None)),
    decoder=(),
    from_target=("embed_tokens",),
    cites={
        "checked": f"{NP}:20-21 `self.extra_proj = nn.Linear(hidden_size, hidden_size)` {CHECKED}",
        "targets": f'{SPEC}:721-729 `"architectures": ["ParseAuxMTPModel"],` (when the '
        "decoder's causal_vision_prefix is set)",
        "count_fixed": f'{SPEC}:726-728 `"num_nextn_predict_layers": 1,`',
        "first": f'{NP}:73-78 `"decoder.extra_heads.0."` (the one auxiliary step)',
        "layer": f'{NP}:29-36 `"decoder.extra_proj.0.": "model.extra_proj.",`',
        "own": f"{NP}:14-16 `self.extra_head = nn.Linear(hidden_size, hidden_size)`",
        "decoder": f"{NP}:19-20 `return self.extra_head(hidden_states + "
        "self.extra_proj(token_embeds))` (no decoder block)",
        "from_target": f'{NP}:75 `if name == "decoder.embed_tokens.weight" or name.startswith(`',
        "missing": f"{NP}:80-81 `return loader.load_weights(mtp_weights(), "
        f"mapper=self.hf_to_vllm_mapper)`; {TRACKED}",
    },
)
