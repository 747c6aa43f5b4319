"""How each runtime feeds the target's hidden states to a drafter, as data.

One ``HiddenStates`` entry per runtime and drafter family, each field citing the
source it mirrors (vLLM 0.33.0, SGLang 0.5.23, TensorRT-LLM main). Profiles
(``profiles.py``) pick their entry by runtime and family; the rules that read them
are in ``target_rules.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspark_ckpt.profiles.registry import DFLASH, DSPARK, EAGLE3, VLLM_DFLASH_AUX, Profile
from dspark_ckpt.profiles.vllm_aux_targets import AUX_CAPABLE, NOT_AUX_CAPABLE, VLLM_RELEASE

VLLM_RUNNER = (
    "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:113-150 "
    "(get_eagle3_aux_layers_from_config, Model Runner V2, the 0.33.0 default)"
)
VLLM_CAPTURE = (
    "vllm/model_executor/models/llama.py:427-441 and interfaces.py:1616-1650 (the "
    "target captures the state entering layer L, L in [0, N]; ids deduplicated, sorted)"
)
SGLANG_CAPTURE = (
    "python/sglang/srt/models/qwen3.py:524-532,778-805, llama.py:929-953 (captures the "
    "state entering layer i < N at id + 1)"
)


@dataclass(frozen=True)
class HiddenStates:
    """How one runtime feeds the target's hidden states to one drafter family."""

    # the width of each aux state the drafter's fc is built for: "target_hidden_size"
    # (that key, else hidden_size) or "hidden_size" (target_hidden_size is not read)
    aux_width: str
    # where the aux layer ids are read, in order: (dotted key, shift to a capture point)
    aux_ids: tuple[tuple[str, int], ...]
    # the capture points the target produces: "0..N" (every layer boundary, the final
    # pre-norm state included), "0..N-1" (the state entering each layer), None: unknown
    captures: str | None
    # an id the runtime refuses at start-up, when it checks one: "0..N-1" or None
    checked: str | None
    # where the drafter's embed_tokens comes from: "missing" (the target's, when the
    # drafter ships none), "unless_target_hidden_size" (the target's unless the config's
    # target_hidden_size differs from its hidden_size), "always" (always the target's)
    embed_from_target: str
    sources: tuple[str, ...]
    # target architectures the runtime can take aux states from, and those it refuses
    # (any other: not judged)
    capable_targets: frozenset[str] = frozenset()
    refused_targets: frozenset[str] = frozenset()


VLLM_TARGETS = dict(capable_targets=AUX_CAPABLE, refused_targets=NOT_AUX_CAPABLE)
VLLM_TARGETS_SOURCE = (
    f"dspark_ckpt/profiles/vllm_aux_targets.py (vLLM {VLLM_RELEASE} registry: classes implementing "
    "SupportsEagle3; eagle3_utils.py:25-31 raises for others)"
)

# vLLM's keys in its read order (profiles.VLLM_DFLASH_AUX), each with the offset that
# turns it into a capture id: DFlash/DSpark target_layer_ids are aux ids minus one
VLLM_IDS = tuple((key, 1 if key.endswith("target_layer_ids") else 0) for key in VLLM_DFLASH_AUX)
SGLANG_DFLASH_IDS = (("dflash_config.target_layer_ids", 1), ("target_layer_ids", 1))

HIDDEN_STATES: dict[tuple[str, str], HiddenStates] = {
    ("vLLM", EAGLE3): HiddenStates(
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
    ),
    ("vLLM", DFLASH): HiddenStates(
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
    ),
    ("SGLang", EAGLE3): HiddenStates(
        "target_hidden_size",
        (("eagle_config.eagle_aux_hidden_state_layer_ids", 1),),
        "0..N-1",
        None,
        "unless_target_hidden_size",
        (
            "python/sglang/srt/models/llama_eagle3.py:151-166 (fc input = "
            "target_hidden_size (default hidden_size) x n_aux)",
            "python/sglang/srt/model_executor/model_runner_components/"
            "spec_aux_hidden_state.py:186-196 (only eagle_config's ids are read)",
            SGLANG_CAPTURE,
            "python/sglang/srt/models/llama.py:910-916 (set_embed: the target's embedding "
            "unless target_hidden_size != hidden_size)",
        ),
    ),
    ("SGLang", DFLASH): HiddenStates(
        "hidden_size",
        SGLANG_DFLASH_IDS,
        "0..N-1",
        "0..N-1",
        "always",
        (
            "python/sglang/srt/models/dflash.py:750-775 (fc input = hidden_size x the "
            "target layer ids), 830-841 (a feature-width mismatch raises)",
            "python/sglang/srt/speculative/dflash_utils.py:556-585 (ids outside "
            "[0, num_hidden_layers) raise at start-up)",
            SGLANG_CAPTURE,
        ),
    ),
    ("TensorRT-LLM", DSPARK): HiddenStates(
        "hidden_size",
        (("target_layer_ids", 0),),
        None,
        None,
        "always",
        (
            "tensorrt_llm/_torch/models/modeling_dspark_qwen3.py (Qwen3DSparkDraftModel: fc "
            "input = hidden_size x len(target_layer_ids); embed_tokens / lm_head shared with "
            "the target)",
        ),
    ),
}
HIDDEN_STATES[("vLLM", DSPARK)] = HIDDEN_STATES[("vLLM", DFLASH)]  # Qwen3DSparkModel is a DFlash
HIDDEN_STATES[("SGLang", DSPARK)] = HIDDEN_STATES[("SGLang", DFLASH)]  # dspark.py builds on dflash


def hidden_states(p: Profile) -> HiddenStates | None:
    """The entry for ``p``'s runtime (its name without a release) and family."""
    return HIDDEN_STATES.get((p.runtime.split(" ")[0], p.family))
