"""The DFlash and DSpark variant architectures of vLLM 0.33.0 and SGLang 0.5.23, and the
profile that judges each: ``VARIANTS[(runtime, architecture)]`` (runtime ``vllm`` or
``sglang``), read from each model file (its module tree, its load_weights, what it takes
from the target, the config keys it reads).

A variant whose model reads as an existing profile's for every check made maps to that
profile (``vllm-dflash`` for Muse Glimmer's assistant, an alias of the DFlash class); one
that differs has its own profile, derived from its family's (``vllm_variants.py``,
``sglang_variants.py``). ``NOT_JUDGED`` gives, for each variant no profile judges, why.
"""

from __future__ import annotations

VARIANTS: dict[tuple[str, str], str] = {
    # vLLM 0.33.0 (model_executor/models/registry.py:664-697)
    # registry.py:674-675: both names build qwen3_dflash's DFlashQwen3ForCausalLM
    ("vllm", "MuseGlimmerAssistantModel"): "vllm-dflash",
    ("vllm", "DFlashMuseGlimmerAssistantModel"): "vllm-dflash",
    # registry.py:666: qwen3_dflash2's DFlash2Qwen3ForCausalLM
    ("vllm", "DFlash2DraftModel"): "vllm-dflash2",
    # registry.py:686-687: qwen3_xpress's Qwen3XPressForCausalLM under both names
    ("vllm", "Qwen3XPressModel"): "vllm-xpress",
    ("vllm", "DFlashQwen3XPressModel"): "vllm-xpress",
    # registry.py:682: qwen3_dspark's model, with the Omni checks of config/speculative.py
    ("vllm", "Qwen3OmniDSparkModel"): "vllm",
    # config/speculative.py:1534-1567: Qwen3DSparkModel where model_type is qwen3, else
    # rewritten to the DeepSeek-V4 drafter (the vllm profile's DSC664 says so)
    ("vllm", "DSparkDraftModel"): "vllm",
    # registry.py:697: gemma4_dspark's Gemma4DSparkForCausalLM, Gemma 4 layers under the DSpark
    # speculator (config/speculative.py:1462, 1549, 1568-1577)
    ("vllm", "Gemma4DSparkModel"): "vllm-gemma4-dspark",
    # registry.py:667: vllm.models.beam's DFlash2BeamForCausalLM (models/beam/nvidia/dflash2.py)
    ("vllm", "DFlash2BeamDraftModel"): "vllm-dflash2-beam",
    # registry.py:665: lilicorr's LiLiCorrForCausalLM, DFlash with a lattice correction head
    ("vllm", "LiLiCorrDraftModel"): "vllm-lilicorr",
    # registry.py:696: laguna_dflash's DFlashLagunaForCausalLM, Laguna decoder layers
    ("vllm", "DFlashLagunaForCausalLM"): "vllm-laguna",
    # registry.py:688-691: vllm.models.kimi_k3's K3DSparkForCausalLM, Kimi-K3 MLA layers under
    # the DSpark speculator, its own top-level modules and a load that refuses what it lacks
    ("vllm", "K3DSparkModel"): "vllm-k3-dspark",
    # registry.py:692-695: vllm.models.muse_spark's MuseSparkDSparkForCausalLM, Muse Spark 1.x
    # layers (the CUDA class) under the DSpark speculator, built from a MuseSparkDSparkConfig
    ("vllm", "MuseSparkDSparkModel"): "vllm-muse-spark-dspark",
    # registry.py:723: gemma4_mtp's Gemma4MTP, which vLLM builds for a Gemma 4 assistant
    # (config/speculative.py:1106-1115): q-only KV-shared layers, its own mapper and head
    ("vllm", "Gemma4MTPModel"): "vllm-gemma4-assistant",
    # SGLang 0.5.23 (each model file's EntryClass)
    # models/dspark.py:981-992, lfm2_dspark.py:13-14: DSparkDraftModel subclasses, no changes
    ("sglang", "LingDSparkModel"): "sglang-dspark",
    ("sglang", "Lfm2DSparkDraftModel"): "sglang-dspark",
    # models/dspark_minimax.py:101-323: DSpark over MiniMax-M3 layers, its own config
    # normalisation (configs/minimax_vl.py:64-111) and strict load_weights
    ("sglang", "DSparkMiniMaxDraftModel"): "sglang-dspark-minimax",
    # models/dflash.py:1309-1310: an alias of DFlashDraftModel
    ("sglang", "MuseGlimmerAssistantModel"): "sglang-dflash",
    # models/dflash.py:1264-1315: DFlash2DraftModel and its two aliases
    ("sglang", "DFlash2DraftModel"): "sglang-dflash2",
    ("sglang", "DFlash2BeamDraftModel"): "sglang-dflash2",
    ("sglang", "MiniMaxDFlash2DraftModel"): "sglang-dflash2",
    # models/lilicorr.py:529-575: DFlash with a lattice correction head
    ("sglang", "LiLiCorrDraftModel"): "sglang-lilicorr",
    # models/dflash.py:1057-1072: DFlash with Laguna's attention gate and aux norms
    ("sglang", "DFlashLagunaForCausalLM"): "sglang-laguna",
    # models/gemma4_mtp.py:59-404: the Gemma 4 MTP assistant, classic EAGLE's shape over a
    # Gemma4TextModel (the unified class is the same model: 400-401)
    ("sglang", "Gemma4AssistantForCausalLM"): "sglang-gemma4-assistant",
    ("sglang", "Gemma4UnifiedAssistantForCausalLM"): "sglang-gemma4-assistant",
}

# names a runtime serves as a class it registers under another name: vLLM rewrites a draft
# config whose model_type is gemma4_assistant or gemma4_unified_assistant to Gemma4MTPModel
# (vllm/config/speculative.py:1106-1115), so it answers the assistants by that row
SERVED_AS: dict[tuple[str, str], str] = {
    ("vllm", "Gemma4AssistantForCausalLM"): "Gemma4MTPModel",
    ("vllm", "Gemma4UnifiedAssistantForCausalLM"): "Gemma4MTPModel",
}

# the variants no profile judges, with why (the reason an answer gives instead of a verdict):
# what the runtime's loader does that the loader model (loader/model.py) cannot describe
_TARGET = "its weights are read from the target checkpoint, not from a drafter folder: "
NOT_JUDGED: dict[tuple[str, str], str] = {
    ("vllm", "DSparkV41DraftModel"): _TARGET
    + "DeepSeek-V4.1 DSpark reuses the target's config and loads its mtp.* stages "
    "(vllm/models/deepseek_v41/nvidia/dspark.py:1-7; config/speculative.py:1552-1567)",
    ("sglang", "DeepseekV4ForCausalLMDSpark"): _TARGET
    + "the DSpark stage ships under mtp.* in the DeepSeek-V4 checkpoint "
    "(srt/configs/model_config.py:1041-1054; srt/models/deepseek_v4_dspark.py:1120-1127)",
}
