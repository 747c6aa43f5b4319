"""How each loader builds fc where the drafter's config declares quantised weights
(``Profile.quantised_fc``), cited: through the quantization config (a quantised fc's
``weight_packed`` / ``weight_scale`` / ``qweight`` ... are its parameters), or a plain torch
Linear whose load skips them, leaving fc at its initial values (SGLang issue #39087, PR #39254:
a pack-quantised DFlash fc, acceptance 1.4%)."""

from __future__ import annotations

from dspark_ckpt.profiles.mla import vllm_mla_cites

V = "vllm/model_executor/models/"
S = "python/sglang/srt/models/"
SG_DFLASH = S + "dflash.py"
SG_IGNORED = f"{SG_DFLASH}:943-946 `# Ignore unexpected weights` (fc.weight_packed, ... skipped)"

# vLLM 0.33.0: DFlash (and DSpark, its subclass) and EAGLE-3 build fc as a ReplicatedLinear
# given the draft's quant_config
VLLM_QUANTISED_FC = {
    "dspark": f"{V}qwen3_dspark.py:192 `class Qwen3DSparkModel(DFlashQwen3Model):`; "
    f"{V}qwen3_dflash.py:477-485 `self.fc = ReplicatedLinear(` `quant_config=self.quant_config,`",
    "dflash": f"{V}qwen3_dflash.py:477-485 `self.fc = ReplicatedLinear(` "
    "`quant_config=self.quant_config,`",
    "eagle3": f"{V}llama_eagle3.py:242-247 `self.fc = ReplicatedLinear(` "
    "`quant_config=self.quant_config,`",
}

# SGLang 0.5.23's DFlash model: supports_quantization False, so fc is a plain nn.Linear unless
# the config is the Nemotron 3.5 draft layout; DSpark's model is DFlash's subclass
SG_DFLASH_FC = (
    f"{SG_DFLASH}:685 `supports_quantization = False`; {SG_DFLASH}:706-707 "
    "`self.quantizable = self.supports_quantization or self.is_nemotron_35_draft`; "
    f"{SG_DFLASH}:762-774 `self.fc = nn.Linear(`; "
    "python/sglang/srt/speculative/dflash_utils.py:461-477 `W4A16_NVFP4`; " + SG_IGNORED
)
SGLANG_QUANTISED_FC = {
    "dflash": SG_DFLASH_FC,
    "dspark": f"{S}dspark.py:967 `class DSparkDraftModel(DSparkDraftMixin, DFlashDraftModel):`; "
    + SG_DFLASH_FC,
    "eagle3": f"{S}llama_eagle3.py:163-167 `self.fc = torch.nn.Linear(` (no quant_config); "
    f"{S}llama_eagle3.py:372-373 `if param_name in params_dict:` (fc.weight_packed, ... skipped)",
}
SGLANG_QUANTISED_FC_VALUE = {"dflash": "nemotron35", "dspark": "nemotron35", "eagle3": "plain"}

# the variants and classic EAGLE lines that set their own value
SGLANG_EAGLE_FC = (
    f"{S}llama_eagle.py:91 `self.fc = torch.nn.Linear(config.hidden_size * 2, "
    f"config.hidden_size)` (no quant_config); {S}qwen2_eagle.py:92 `self.fc = torch.nn.Linear(`"
)
SGLANG_LILICORR_FC = (
    f"{S}lilicorr.py:529-530 `supports_quantization = True`; "
    f"{SG_DFLASH}:762-770 `self.fc = ReplicatedLinear(`"
)
SGLANG_MINIMAX_FC = (
    f"{S}dspark_minimax.py:130-135 `self.fc = ColumnParallelLinear(` `quant_config=quant_config,`"
)
SGLANG_MISTRAL_FC = (
    f"{S}mistral_eagle.py:93-98 `self.fc = RowParallelLinear(` `quant_config=quant_config,`"
)


def vllm_fc_cites(model_py: str, family: str) -> dict[str, str]:
    """The MLA fields' cites (``mla.py``) and ``quantised_fc``'s, for a vLLM 0.33.0 family."""
    return {**vllm_mla_cites(model_py), "quantised_fc": VLLM_QUANTISED_FC[family]}
