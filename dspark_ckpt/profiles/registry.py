"""The profiles, by name: every runtime module's entries, and how ``--profile`` picks them.

Each profile names the runtime **release** it mirrors and each rule field cites the
``file:line`` (at that release) it was read from. The schema is ``schema.py``; the
entries are in one module per runtime (``vllm.py``, ``sglang.py``, ``trtllm.py``): a
release that changes a rule is a new entry there, never a branch in the rule engine
(``dspark_ckpt/rules/``). ``dspark-ckpt profiles`` prints them.
"""

from __future__ import annotations

from dspark_ckpt.errors import UsageError
from dspark_ckpt.profiles import sglang, trtllm, vllm
from dspark_ckpt.profiles.families import (
    COVERED,
    DEFAULT_PROFILE,
    DFLASH,
    DSPARK,
    EAGLE1,
    EAGLE3,
    FAMILY_DEFAULT,
    MEDUSA,
    MTP,
    covered,
    detect_family,
)
from dspark_ckpt.profiles.schema import ABOUT, LT, NE, RULE_FIELDS, HiddenStates, Profile

# the registry's own names, and the families' and the schema's that callers import from here
__all__ = [
    "ABOUT",
    "COVERED",
    "DEFAULT_PROFILE",
    "DFLASH",
    "DSPARK",
    "EAGLE1",
    "EAGLE3",
    "FAMILY_DEFAULT",
    "LT",
    "MEDUSA",
    "MTP",
    "NE",
    "PROFILES",
    "RULE_FIELDS",
    "HiddenStates",
    "Profile",
    "applicable_profiles",
    "covered",
    "default_profile",
    "detect_family",
    "get_profile",
    "parse_profiles",
]

# in the order the CLI lists them and verdicts are shown
PROFILES: dict[str, Profile] = {
    p.name: p for module in (vllm, sglang, trtllm) for p in module.PROFILES
}


def applicable_profiles(family: str | None) -> list[str]:
    """The profiles that load ``family`` (none for a family no profile covers)."""
    return [n for n, p in PROFILES.items() if p.family == family]


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
