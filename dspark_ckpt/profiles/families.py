"""Drafter families: how a config names its family (first by the draft architecture it
names, ``architectures.py``), which families the profiles cover, and each covered family's
default profile."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.profiles.architectures import FAMILY_OF, known

if TYPE_CHECKING:
    from dspark_ckpt.facts.config import DrafterConfig

# the schema's Family values (EAGLE1: classic EAGLE)
DSPARK, DFLASH, EAGLE3, EAGLE1 = "dspark", "dflash", "eagle3", "eagle"
# families seen in drafter configs that no profile covers (never judged by another's rules)
MTP, MEDUSA = "mtp", "medusa"

DEFAULT_PROFILE = "vllm"
# the primary profile for a family when --profile is not given
FAMILY_DEFAULT = {
    DSPARK: "vllm",
    DFLASH: "vllm-dflash",
    EAGLE3: "vllm-eagle3",
    EAGLE1: "vllm-eagle",
}
COVERED = tuple(FAMILY_DEFAULT)

# how a config names its family where it names no registered draft architecture
# (architectures.py): substrings of architectures / model_type / speculators_model_type
# (lower case), first match wins (P-EAGLE is served as EAGLE-3:
# vllm/model_executor/models/registry.py:698-706; MTP has no profile)
FAMILY_MARKERS = (
    (EAGLE3, ("eagle3", "peagle")),
    (DSPARK, ("dspark",)),
    (DFLASH, ("dflash", "xpress", "museglimmerassistant")),  # profiles/variants.py
    (MTP, ("mtp",)),
    (MEDUSA, ("medusa",)),
    (EAGLE1, ("eagle",)),
)
# a nested config that names the family when no name does
NESTED_MARKERS = ((DSPARK, "dspark_config"), (DFLASH, "dflash_config"))


def detect_family(cfg: DrafterConfig) -> str | None:
    """The drafter family: that of the first architecture a runtime registers for drafting
    (``architectures.py``), else from architectures, model_type and the speculators format;
    a DSpark config is also known by its Markov head (``markov_rank``). A config naming
    none (EAGLE drafters published as ``LlamaForCausalLM``: vLLM renames the class by the
    method it serves them with) is of the method asked for or read from its path
    (``DrafterConfig.method``), else EAGLE-3 where it sets ``draft_vocab_size`` (the
    EAGLE-3 head's size, which no other family's config names alone)."""
    if (name := known(cfg.architectures)) is not None:
        return FAMILY_OF[name] or None
    raw = cfg.raw if isinstance(cfg.raw, dict) else {}
    names = [*cfg.architectures, cfg.model_type or "", str(raw.get("speculators_model_type", ""))]
    names = [n.lower() for n in names]
    for family, marks in FAMILY_MARKERS:
        if any(m in n for n in names for m in marks):
            return family
    if cfg.markov_rank is not None:
        return DSPARK
    for family, nested in NESTED_MARKERS:
        if isinstance(raw.get(nested), dict):
            return family
    if cfg.method in COVERED:
        return cfg.method
    return EAGLE3 if "draft_vocab_size" in raw else None


def covered(family: str | None) -> bool:
    """Whether some profile judges drafters of ``family``."""
    return family in COVERED
