"""Runtime profiles, as data: how one runtime loads one drafter family.

Each field is one rule of the runtime's loader, with the source it mirrors. The
rule engine in ``rules.py`` evaluates every profile the same way; adding a runtime
means adding a ``Profile`` here, never a copy of the engine. Every field's values
are documented where they are declared; every profile names the source files its
rules were read from (``dspark-ckpt profiles`` prints them; the README has the table).
"""

from __future__ import annotations

from dataclasses import dataclass

from dspark_ckpt.config import DrafterConfig
from dspark_ckpt.errors import UsageError

LT, NE = "<", "!="
DSPARK, DFLASH, EAGLE3 = "dspark", "dflash", "eagle3"


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
    # a reduced drafter without d2t: "error" (refused at load), "zeros" (silently all
    # zero: draft id i becomes target id i), "unused" (the runtime has no d2t path)
    missing_d2t: str
    # where a checkpoint's d2t goes: "reduced" (a parameter exists only for a reduced
    # vocab; otherwise the weight loader raises), "always" (the parameter always
    # exists), "hot_token_id" (turned into hot_token_id = d2t + arange, never a
    # parameter), "rejected" (strict state-dict load: d2t and t2d are unexpected keys)
    d2t_param: str = "reduced"
    # a reduced drafter without lm_head: "refused" (load error), "target" (the
    # target's head is shared silently, with other rows than Vd), "uninitialised"
    # (an explicit draft_vocab_size creates a head nothing loads), "target-always"
    # (the head always comes from the target)
    missing_lm_head: str = "refused"
    # when a shipped lm_head is replaced by the target's: "never",
    # "no_draft_vocab_size" (config without draft_vocab_size), "always"
    lm_head_from_target: str = "never"
    # input embeddings larger than the target's must ship embed_tokens (else a load error)
    requires_embed_when_expanded: bool = True
    # Qwen3-Omni targets: config-time check 0 < Vd <= Vt
    omni_vocab_check: bool = False
    # rows of markov_head.markov_w2.weight: "draft_vocab_size" or "vocab_size"
    markov_w2_rows: str = "draft_vocab_size"
    # False where the runtime has no path for draft_vocab_size > vocab_size
    draft_vocab_above_vocab: bool = True

    def reduced(self, vd: int, vt: int) -> bool:
        return vd < vt if self.reduced_when == LT else vd != vt


DSPARK_SOURCE = "vllm/model_executor/models/qwen3_dspark.py (Qwen3DSparkForCausalLM)"
DFLASH_SOURCE = "vllm/model_executor/models/qwen3_dflash.py (DFlashQwen3ForCausalLM)"
VLLM_EAGLE3_SOURCE = "vllm/model_executor/models/llama_eagle3.py (Eagle3LlamaForCausalLM)"
VLLM_SHARE_SOURCE = (
    "vllm/v1/spec_decode/eagle.py (EagleProposer._maybe_share_lm_head: "
    "no lm_head in the checkpoint -> the target's lm_head is shared)"
)
SGLANG_EAGLE3_SOURCE = "python/sglang/srt/models/llama_eagle3.py (LlamaForCausalLMEagle3)"
SGLANG_WORKER_SOURCE = (
    "python/sglang/srt/speculative/eagle_worker.py (init_lm_head: set_embed / "
    "set_embed_and_head, hot_token_id)"
)
TRTLLM_SOURCE = "tensorrt_llm/_torch/models/modeling_dspark_qwen3.py (Qwen3DSparkDraftModel)"
TRTLLM_HEADS_SOURCE = "tensorrt_llm/_torch/models/dspark/heads.py (build_markov_head)"

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in [
        Profile(
            name="vllm",
            runtime="vLLM",
            family=DSPARK,
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
            family=DSPARK,
            versions="vLLM from PR #52560 until PR #55133",
            sources=(
                DSPARK_SOURCE + ": load_weights, uses_reduced_vocab = Vd != Vt",
                "vllm PR #52560",
            ),
            reduced_when=NE,
            missing_d2t="error",
            omni_vocab_check=True,
        ),
        Profile(
            name="vllm-dflash",
            runtime="vLLM",
            family=DFLASH,
            versions="vLLM main, DFlash drafters (read autumn 2026)",
            sources=(
                DFLASH_SOURCE + ": __init__ creates draft_id_to_target_id only when "
                "draft_vocab_size != model_config.get_vocab_size(), as zeros; load_weights "
                "drops the name when the checkpoint has no d2t (no error), skips t2d",
                VLLM_SHARE_SOURCE,
            ),
            reduced_when=NE,
            missing_d2t="zeros",
            missing_lm_head="target",
            requires_embed_when_expanded=False,
        ),
        Profile(
            name="vllm-eagle3",
            runtime="vLLM",
            family=EAGLE3,
            versions="vLLM main, EAGLE-3 drafters (read autumn 2026)",
            sources=(
                VLLM_EAGLE3_SOURCE + ": __init__ always creates draft_id_to_target_id "
                "[draft_vocab_size] as zeros; load_weights renames d2t, skips t2d, and skips "
                "draft_id_to_target_id when the checkpoint has no d2t (no error)",
                VLLM_SHARE_SOURCE,
            ),
            reduced_when=NE,
            missing_d2t="zeros",
            d2t_param="always",
            missing_lm_head="target",
            requires_embed_when_expanded=False,
        ),
        Profile(
            name="sglang-eagle3",
            runtime="SGLang",
            family=EAGLE3,
            versions="SGLang main, EAGLE-3 drafters (read autumn 2026)",
            sources=(
                SGLANG_EAGLE3_SOURCE + ": load_weights turns d2t into hot_token_id = d2t + "
                "arange(len(d2t)) and skips t2d; no draft_vocab_size sets "
                "load_lm_head_from_target; names not in params_dict are skipped silently",
                SGLANG_WORKER_SOURCE,
            ),
            reduced_when=LT,
            missing_d2t="zeros",
            d2t_param="hot_token_id",
            missing_lm_head="uninitialised",
            lm_head_from_target="no_draft_vocab_size",
            requires_embed_when_expanded=False,
        ),
        Profile(
            name="trtllm-dspark",
            runtime="TensorRT-LLM",
            family=DSPARK,
            versions="TensorRT-LLM main, Qwen3 DSpark drafters (read autumn 2026)",
            sources=(
                TRTLLM_SOURCE + ": load_weights skips embed_tokens/lm_head (shared from the "
                "target by load_weights_from_target_model) and loads the rest with "
                "load_state_dict(strict=True)",
                TRTLLM_HEADS_SOURCE + ": markov_w1 and markov_w2 both sized by vocab_size",
            ),
            reduced_when=LT,
            missing_d2t="unused",
            d2t_param="rejected",
            missing_lm_head="target-always",
            lm_head_from_target="always",
            requires_embed_when_expanded=False,
            markov_w2_rows="vocab_size",
            draft_vocab_above_vocab=False,
        ),
    ]
}

DEFAULT_PROFILE = "vllm"
# the profiles that always get a verdict (the foundation's JSON schema)
BASE_PROFILES = ("vllm", "vllm-legacy")
# the primary profile for a family when --profile is not given
FAMILY_DEFAULT = {DSPARK: "vllm", DFLASH: "vllm-dflash", EAGLE3: "vllm-eagle3"}

# how a config names its family: substrings of architectures / model_type /
# speculators_model_type (lower case), and the nested config key it carries
FAMILY_MARKERS = {
    DSPARK: (("dspark",), "dspark_config"),
    DFLASH: (("dflash",), "dflash_config"),
    EAGLE3: (("eagle3",), None),
}


def detect_family(cfg: DrafterConfig) -> str | None:
    """The drafter family from architectures, model_type and the speculators format."""
    raw = cfg.raw if isinstance(cfg.raw, dict) else {}
    names = [*cfg.architectures, cfg.model_type or "", str(raw.get("speculators_model_type", ""))]
    names = [n.lower() for n in names]
    for family, (marks, _) in FAMILY_MARKERS.items():
        if any(m in n for n in names for m in marks):
            return family
    for family, (_, nested) in FAMILY_MARKERS.items():
        if nested and isinstance(raw.get(nested), dict):
            return family
    return None


def applicable_profiles(family: str | None) -> list[str]:
    """The profiles that load ``family`` (every profile when the family is unknown)."""
    return [n for n, p in PROFILES.items() if family is None or p.family == family]


def default_profile(family: str | None) -> str:
    """The profile that decides when --profile is not given: the family's primary one."""
    return FAMILY_DEFAULT.get(family, DEFAULT_PROFILE)


def get_profile(name: str, *, all_ok: bool = False) -> Profile:
    """The profile called ``name``; ``all_ok``: the command also takes 'all' (the
    message offers it only then)."""
    try:
        return PROFILES[name]
    except KeyError:
        choices = ", ".join(PROFILES) + (" or 'all'" if all_ok else "")
        raise UsageError(f"unknown profile {name!r}; choose from {choices}") from None


def parse_profiles(values: list[str] | None) -> list[str] | None:
    """``--profile`` values (repeated and/or comma separated, or ``all``) as profile
    names in order, without repeats; None when none was given (auto-detect)."""
    if not values:
        return None
    names: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if not name:
                raise UsageError(f"empty profile name in --profile {value!r}")
            for n in PROFILES if name == "all" else [get_profile(name, all_ok=True).name]:
                if n not in names:
                    names.append(n)
    return names
