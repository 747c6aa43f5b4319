"""The draft classes vLLM 0.33.0's model registry finds for an EAGLE-3 or DFlash drafter, and
the class each EAGLE-3 name builds: ``Profile.architectures`` and ``aux_layer_keys_by_class``
of ``vllm-eagle3`` and ``vllm-dflash`` (and the variants derived from it), with their cites.

vLLM renames a drafter config's architectures by the speculative method before its registry
looks them up (``Profile.architecture_rename``; transformers_utils/configs/eagle.py:46-76):
method eagle3 makes ``Eagle3<arch>`` of any name that neither starts nor ends with Eagle3,
method dflash ``DFlash<arch>`` of any that neither starts nor ends with DFlash and is not
LiLiCorrDraftModel. The names below are those of ``_SPECULATIVE_DECODING_MODELS``
(model_executor/models/registry.py:655-745) that survive that renaming: the others of the
family are registered but never asked for by a renamed config. vLLM's P-EAGLE names
(PEagleDraftModel, PeagleLlamaForCausalLM, PeagleQwen3ForCausalLM) are reached only through
the speculators translation, which names the class itself (speculators/algos.py:77-82) and
is not renamed (config/speculative.py:1514-1530 `(EAGLEConfig, SpeculatorsConfig)`): a native
config naming PEagleDraftModel is looked up as Eagle3PEagleDraftModel, which is refused.
Likewise the bare MuseGlimmerAssistantModel and Qwen3XPressModel ("defensive aliases",
registry.py:668-675,683-687) are asked for as DFlashMuseGlimmerAssistantModel and
DFlashQwen3XPressModel.

Only vLLM 0.33.0's registry is read; the legacy entries (0.29.0, 0.29.0-0.30.0) keep its
lists, as no PR read shows a name of them added since.
"""

from __future__ import annotations

from dspark_ckpt.profiles.renames import EAGLE_CONFIG

REG = "vllm/model_executor/models/registry.py"
SPEC_CONFIG = "vllm/config/speculative.py"

# method eagle3: the names that start or end with Eagle3 (registry.py:700-705,712-713)
VLLM_EAGLE3_ARCHITECTURES = (
    "Eagle3LlamaForCausalLM",
    "LlamaForCausalLMEagle3",
    "Eagle3Qwen3ForCausalLM",
    "Eagle3MiniMaxM2ForCausalLM",
    "Eagle3Qwen2_5vlForCausalLM",
    "Eagle3Qwen3vlForCausalLM",
    "Eagle3DeepseekV2ForCausalLM",
    "Eagle3DeepseekV3ForCausalLM",
)
# method dflash: the names that start with DFlash, and LiLiCorrDraftModel (registry.py:664-696)
VLLM_DFLASH_ARCHITECTURES = (
    "DFlashDraftModel",
    "DFlash2DraftModel",
    "DFlash2BeamDraftModel",
    "DFlashMuseGlimmerAssistantModel",
    "DFlashQwen3XPressModel",
    "DFlashLagunaForCausalLM",
    "LiLiCorrDraftModel",
)
_UNKNOWN = (
    f"{SPEC_CONFIG}:1882-1885 `registry.inspect_model_cls(` (a name it does not register is "
    f"refused); {REG}:1250-1251 `are not supported for now`"
)
REGISTRY_CITES = {
    "eagle3": {
        "architectures": f'{REG}:700-705 `"Eagle3LlamaForCausalLM"` `"LlamaForCausalLMEagle3"` '
        f'`"Eagle3Qwen3ForCausalLM"`; {REG}:712-713 `"Eagle3DeepseekV2ForCausalLM"`; '
        f'{EAGLE_CONFIG}:55-62 `arch.startswith("Eagle3") or arch.endswith("Eagle3")` (only '
        "these survive the renaming: the P-EAGLE names are asked for as Eagle3<name>); "
        f'{REG}:698-706 `"PEagleDraftModel"` `"PeagleQwen3ForCausalLM"` (registered, reached '
        f"only through the speculators translation); {_UNKNOWN}",
    },
    "dflash": {
        "architectures": f'{REG}:664-667 `"DFlashDraftModel"` `"LiLiCorrDraftModel"` '
        f'`"DFlash2BeamDraftModel"`; {REG}:675 `"DFlashMuseGlimmerAssistantModel"`; '
        f'{REG}:687 `"DFlashQwen3XPressModel"`; {REG}:696 `"DFlashLagunaForCausalLM"`; '
        f'{EAGLE_CONFIG}:65-74 `or arch == "LiLiCorrDraftModel"` (only these survive the '
        "renaming); "
        f'{REG}:674,686 `"MuseGlimmerAssistantModel"` `"Qwen3XPressModel"` (registered, '
        f"asked for as DFlash<name>); {_UNKNOWN}",
    },
}

# the Qwen3 EAGLE-3 class counts fc's aux states by its own keys
QWEN3_EAGLE3_AUX = (
    "num_aux_layers",
    "num_aux_hidden_states",
    "eagle_aux_hidden_state_layer_ids",
    "eagle_config.eagle_aux_hidden_state_layer_ids",
)
VLLM_EAGLE3_CLASSES = tuple(
    (arch, QWEN3_EAGLE3_AUX)
    for arch in (
        "Eagle3Qwen3ForCausalLM",
        "PeagleQwen3ForCausalLM",
        "Qwen3ForCausalLM",  # EAGLEConfig renames it Eagle3Qwen3ForCausalLM
        "speculators:qwen3",  # the speculators translation's qwen3 class
    )
)
