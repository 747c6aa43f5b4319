"""What was not checked, and why: the checks the target as given leaves undecided.

A rule that needs a fact the target does not give returns nothing, which reads like a
pass. A target folder without weights gives no embedding rows (``Et``); a bare
``--target-vocab-size`` gives ``Vt`` alone: no config (hidden size, layers,
architectures, Qwen3-Omni or not), no weights, no tokenizer files. ``not_checked``
lists each check that would have been made with them, for this drafter under the
evaluated profiles, so that the report can say its verdict is partial. Computed from
the facts only, like the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import PADDED
from dspark_ckpt.loader.moe import AFTER_TARGET
from dspark_ckpt.profiles.hidden_states import hidden_states
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.registry import RULES, TARGET
from dspark_ckpt.rules.target import trained_layers, uses_aux, verifier

NO_WEIGHTS = (
    "the target folder holds no weights: the rows of its embedding and head (Et) are unknown"
)
VOCAB_ONLY_ET = "--target-vocab-size gives Vt alone: the target's embedding rows (Et) are unknown"
VOCAB_ONLY_MODEL = (
    "--target-vocab-size gives Vt alone: the target's config (hidden size, layers, "
    "architectures) is not read"
)
VOCAB_ONLY_OMNI = "--target-vocab-size gives Vt alone: whether the target is Qwen3-Omni is unknown"
LAYERS_UNKNOWN = "--target-vocab-size gives Vt alone: the target's num_hidden_layers is unknown"
NUMBERED = (
    ": whether a draft layer's MLP is MoE or dense is decided by its number after the target's "
    "layers (vLLM deepseek_eagle.py)"
)
VOCAB_ONLY_TOKENIZER = "--target-vocab-size gives Vt alone: no tokenizer files to compare"


@dataclass(frozen=True)
class NotChecked:
    """One check not made: its finding code, why, and the evaluated profiles whose rule
    it is (empty: a check every runtime shares)."""

    code: str
    reason: str
    profiles: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        return RULES[self.code].title


def not_checked(f: Facts, profiles: list[Profile]) -> list[NotChecked]:
    """The checks this drafter would get against a target that gave every fact, and did
    not get against this one, in code order."""
    t = f.target
    out: list[NotChecked] = []

    def names(keep) -> tuple[str, ...]:
        return tuple(p.name for p in profiles if keep(p))

    if t.embedding_rows is None:
        why = VOCAB_ONLY_ET if t.model is None else NO_WEIGHTS
        if f.classification == PADDED:  # DSC207: Vd > Et, only a padded drafter can
            out.append(NotChecked("DSC207", why))
        if found := names(
            lambda p: p.vocab_is_target_width or p.markov_bias_width == "at_most_target"
        ):
            out.append(NotChecked("DSC605", why, found))
    if t.model is None:
        if f.Vd > f.Vt and (found := names(lambda p: p.omni_vocab_check)):
            out.append(NotChecked("DSC106", VOCAB_ONLY_OMNI, found))
        fed = [p for p in profiles if hidden_states(p) is not None and uses_aux(f, p)]
        for code in sorted(c for c, r in RULES.items() if r.scope == TARGET):
            if fed:
                out.append(NotChecked(code, VOCAB_ONLY_MODEL, tuple(p.name for p in fed)))
        if verifier(f.raw)[0] or trained_layers(f.raw):  # DSC704: the config names a target
            out.append(NotChecked("DSC704", VOCAB_ONLY_MODEL))
    if f.layers is None and (found := names(lambda p: p.decoder_layer == AFTER_TARGET)):
        # the draft layers are numbered after the target's (vLLM deepseek_eagle.py:53-60)
        why = LAYERS_UNKNOWN if t.model is None else "the target's config has no num_hidden_layers"
        out += [NotChecked(code, why + NUMBERED, found) for code in ("DSC112", "DSC652")]
    if f.tokenizer is None:
        out += [NotChecked(code, VOCAB_ONLY_TOKENIZER) for code in ("DSC710", "DSC711")]
    return sorted(out, key=lambda n: n.code)
