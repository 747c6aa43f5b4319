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
from dspark_ckpt.profiles.schema import (
    ABOUT,
    LT,
    NE,
    RULE_FIELDS,
    HiddenStates,
    Profile,
    covers,
    parse_version,
)

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
    "resolve_profile",
    "runtime_spec",
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
    names in order, without repeats; None when none was given (auto-detect). A
    ``RUNTIME==VERSION`` value (``--runtime``) is kept as given, once it is known to name a
    release some profile covers: which profile depends on the drafter's family
    (``resolve_profile``)."""
    if not values:
        return None
    names: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",")):
            if not name:
                raise UsageError(f"empty profile name in --profile {value!r}")
            if runtime_spec(name) is not None:
                resolve_profile(name)  # a usage error now, before anything is read
                found = [name]
            else:
                found = list(PROFILES) if name == "all" else [get_profile(name, all_ok=True).name]
            for n in found:
                if n not in names:
                    names.append(n)
    return names


# how --runtime (or --profile) names a runtime: RUNTIME==VERSION
RUNTIME_NAMES = {
    "vllm": "vLLM",
    "sglang": "SGLang",
    "trtllm": "TensorRT-LLM",
    "tensorrt-llm": "TensorRT-LLM",
    "tensorrt_llm": "TensorRT-LLM",
}


def runtime_spec(name: str) -> tuple[str, str] | None:
    """``vllm==0.32.1`` as ``("vLLM", "0.32.1")``; None for a profile name. A runtime or
    version that cannot be read is a ``UsageError``."""
    if "==" not in name:
        return None
    key, _, version = (part.strip() for part in name.partition("=="))
    runtime = RUNTIME_NAMES.get(key.lower())
    if runtime is None:
        raise UsageError(f"unknown runtime {key!r} in {name!r}; choose from vllm, sglang, trtllm")
    if version != "main":
        try:
            parse_version(version)
        except ValueError:
            raise UsageError(
                f"{name!r}: {version!r} is not a release version (like 0.32.1)"
            ) from None
    return runtime, version


def _ranges(runtime: str, family: str | None = None) -> str:
    return ", ".join(
        f"{p.name} {p.releases or 'none'}"
        for p in PROFILES.values()
        if p.runtime == runtime and family in (None, p.family)
    )


def resolve_profile(name: str, family: str | None = None) -> str:
    """The profile ``name`` stands for: a profile name as is, or ``RUNTIME==VERSION``
    resolved to the profile of that runtime whose ``releases`` cover the version and
    that judges ``family`` (None: the default profile's family where one covers it). A
    version no profile covers is a ``UsageError`` naming the known ranges."""
    spec = runtime_spec(name)
    if spec is None:
        return get_profile(name).name
    runtime, version = spec
    found = [p for p in PROFILES.values() if p.runtime == runtime and covers(p.releases, version)]
    if not found:
        raise UsageError(f"no {runtime} profile covers {version}; known: {_ranges(runtime)}")
    want = family or PROFILES[DEFAULT_PROFILE].family
    of_family = [p.name for p in found if p.family == want]
    if of_family:
        return of_family[0]
    if family is None:
        return found[0].name
    raise UsageError(
        f"no {runtime} profile covers {version} for {family} drafters; known: "
        f"{_ranges(runtime, family) or 'none'}"
    )
