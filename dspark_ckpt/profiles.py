"""Runtime profiles, as data: how one runtime loads one drafter family.

Each field is one rule of the runtime's loader, with the source it mirrors. The
rule engine in ``rules.py`` evaluates every profile the same way; adding a runtime
means adding a ``Profile`` here, never a copy of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspark_ckpt.errors import UsageError

LT, NE = "<", "!="


@dataclass(frozen=True)
class Profile:
    name: str
    runtime: str
    family: str  # the drafter family this loader reads: dspark, dflash, eagle3
    versions: str  # the runtime versions the rules were read from
    sources: tuple[str, ...]  # the runtime source files (and PRs) the rules mirror
    # the draft vocab counts as reduced (lm_head and d2t required, a
    # draft_id_to_target_id parameter created) when Vd <reduced_when> Vt
    reduced_when: str
    # a reduced drafter without d2t: "error" (refused at load) or "zeros" (silently all zero)
    missing_d2t: str
    # input embeddings larger than the target's must ship embed_tokens (else a load error)
    requires_embed_when_expanded: bool = True
    # Qwen3-Omni targets: config-time check 0 < Vd <= Vt
    omni_vocab_check: bool = False
    # rows of markov_head.markov_w2.weight: "draft_vocab_size" or "vocab_size"
    markov_w2_rows: str = "draft_vocab_size"

    def reduced(self, vd: int, vt: int) -> bool:
        return vd < vt if self.reduced_when == LT else vd != vt


DSPARK_SOURCE = "vllm/model_executor/models/qwen3_dspark.py (Qwen3DSparkForCausalLM)"

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in [
        Profile(
            name="vllm",
            runtime="vLLM",
            family="dspark",
            versions="vLLM with PR #55133 (padded drafters accepted)",
            sources=(
                DSPARK_SOURCE + ": __init__ and load_weights, uses_reduced_vocab = Vd < Vt",
                "vllm PR #55133",
            ),
            reduced_when=LT,
            missing_d2t="error",
            omni_vocab_check=True,
        ),
        Profile(
            name="vllm-legacy",
            runtime="vLLM",
            family="dspark",
            versions="vLLM from PR #52560 until PR #55133",
            sources=(
                DSPARK_SOURCE + ": load_weights, uses_reduced_vocab = Vd != Vt",
                "vllm PR #52560",
            ),
            reduced_when=NE,
            missing_d2t="error",
            omni_vocab_check=True,
        ),
    ]
}

DEFAULT_PROFILE = "vllm"


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}; choose from {', '.join(PROFILES)}") from None
