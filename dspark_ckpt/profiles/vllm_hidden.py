"""How vLLM 0.33.0 feeds the target's hidden states to its drafters: the keys its model
runner reads aux layer ids from, where the target captures them, which target classes can
give them; the ``HiddenStates`` the entries of ``vllm.py`` use."""

from __future__ import annotations

from dspark_ckpt.profiles.schema import HiddenStates
from dspark_ckpt.profiles.vllm_aux_targets import AUX_CAPABLE, NOT_AUX_CAPABLE, VLLM_RELEASE

# the order vLLM's runner reads aux layer ids in (eagle3_utils.py:113-150); a speculators
# config's aux_hidden_state_layer_ids is copied to eagle_aux_hidden_state_layer_ids on load
# (transformers_utils/configs/speculators/algos.py:114-115 DFlash, 192-193 DSpark)
VLLM_DFLASH_AUX = (
    "eagle_aux_hidden_state_layer_ids",
    "aux_hidden_state_layer_ids",
    "dflash_config.target_layer_ids",
    "dspark_target_layer_ids",
    "target_layer_ids",
    "dflash_config.layer_ids",
    "eagle_config.layer_ids",
)

VLLM_RUNNER = (
    "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:113-150 "
    "(get_eagle3_aux_layers_from_config, Model Runner V2, the 0.33.0 default)"
)
VLLM_CAPTURE = (
    "vllm/model_executor/models/llama.py:427-441 and interfaces.py:1616-1650 (the "
    "target captures the state entering layer L, L in [0, N]; ids deduplicated, sorted)"
)
VLLM_TARGETS = dict(capable_targets=AUX_CAPABLE, refused_targets=NOT_AUX_CAPABLE)
VLLM_TARGETS_SOURCE = (
    f"dspark_ckpt/profiles/vllm_aux_targets.py (vLLM {VLLM_RELEASE} registry: classes implementing "
    "SupportsEagle3; eagle3_utils.py:25-31 raises for others)"
)
# vLLM's keys in its read order (VLLM_DFLASH_AUX), each with the offset that turns it
# into a capture id: DFlash/DSpark target_layer_ids are aux ids minus one
VLLM_IDS = tuple((key, 1 if key.endswith("target_layer_ids") else 0) for key in VLLM_DFLASH_AUX)

EAGLE3_HIDDEN = HiddenStates(
    "target_hidden_size",
    VLLM_IDS,
    "0..N",
    None,
    "missing",
    (
        "vllm/model_executor/models/llama_eagle3.py:209-248, qwen3_eagle3.py:201-214 "
        "(fc input = target_hidden_size (default hidden_size) x n_aux)",
        VLLM_RUNNER,
        VLLM_CAPTURE,
        "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:18-77 (the target's "
        "embed_tokens / lm_head shared when the drafter ships none)",
        VLLM_TARGETS_SOURCE,
    ),
    **VLLM_TARGETS,
)
# DFlash, and DSpark (Qwen3DSparkModel is a DFlash model)
DFLASH_HIDDEN = HiddenStates(
    "target_hidden_size",
    VLLM_IDS,
    "0..N",
    None,
    "missing",
    (
        "vllm/model_executor/models/qwen3_dflash.py:84-93 (fc input = (target_hidden_size "
        "or hidden_size) x the aux ids), 829-846 (combine_hidden_states raises on "
        "another width)",
        VLLM_RUNNER,
        VLLM_CAPTURE,
        VLLM_TARGETS_SOURCE,
    ),
    **VLLM_TARGETS,
)
