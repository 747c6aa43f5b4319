"""The drafter's tokenizer against the target's (compared by ``facts/tokenizer.py``).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``: the tokenizer comparison.
"""

from __future__ import annotations

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.tokenizer import DIFFER, NOT_CHECKED
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import COMMON, rule


@rule(
    "DSC710",
    ERROR,
    "tokenizer differs from the target's",
    scope=COMMON,
    hint="use the drafter trained with this target's tokenizer",
)
def tokenizer_differs(f: Facts) -> list[Finding]:
    """Runtimes use the target's tokenizer only, so the drafter's tokenizer files are the record of
    what it was trained with. When an id below min(V, Vt) names another token there, the drafter
    reads and proposes other tokens than the target means: everything loads, the proposals are
    garbage (SafeAILab/EAGLE #258)."""
    tok = f.tokenizer
    if tok is None or tok.result != DIFFER or not tok.vocab_differs:
        return []
    shown = ", ".join(f"id {i}: drafter {a!r}, target {b!r}" for i, a, b in tok.first_differences)
    return [
        new_finding(
            "DSC710",
            f"the drafter's tokenizer differs from the target's: {tok.differing_ids} of "
            f"the {tok.compared_ids} shared ids name other tokens (first: {shown}); the "
            "runtime loads it and feeds it the target's ids: proposals are garbage and "
            "acceptance collapses",
            tensor="tokenizer.json" if "tokenizer.json" in tok.drafter.files else "vocab.json",
        )
    ]


@rule(
    "DSC711",
    WARNING,
    "special tokens differ from the target's",
    scope=COMMON,
    hint="use the drafter trained with this target's tokenizer and chat template",
)
def special_tokens_differ(f: Facts) -> list[Finding]:
    """The drafter's tokenizer names other special tokens (bos/eos/pad/...) or gives a special token
    another id than the target's: it was trained on another chat format, and proposals around those
    tokens are rejected."""
    tok = f.tokenizer
    if tok is None or tok.result != DIFFER or not tok.special_differences:
        return []
    return [
        new_finding(
            "DSC711",
            # the first few, the rest counted (facts/tokenizer.py): bounded however many
            f"special tokens differ: {'; '.join(tok.special_differences)}",
            tensor="tokenizer_config.json",
        )
    ]


@rule(
    "DSC712",
    INFO,
    "tokenizer not checked",
    scope=COMMON,
    hint="ship the tokenizer files the drafter was trained with beside it",
)
def tokenizer_not_checked(f: Facts) -> list[Finding]:
    """Only one of the drafter and target folders holds tokenizer files (tokenizer.json or
    vocab.json), or one could not be read: whether the drafter was trained with the target's
    tokenizer is not known. Nothing is guessed."""
    tok = f.tokenizer
    if tok is None or tok.result != NOT_CHECKED:
        return []
    if not (tok.drafter.files or tok.target.files):
        return []  # neither folder has tokenizer files: nothing to compare, nothing to say
    return [new_finding("DSC712", f"tokenizer not checked: {tok.reason}")]
