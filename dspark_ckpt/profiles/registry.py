"""The profiles, by name: every runtime module's entries, and how ``--profile`` picks them.

Each profile names the runtime **release** it mirrors and each rule field cites the
``file:line`` (at that release) it was read from. The schema is ``schema.py``; the
entries are in one module per runtime (``vllm.py``, ``sglang.py``, ``trtllm.py``): a
release that changes a rule is a new entry there, never a branch in the rule engine
(``dspark_ckpt/rules/``). ``dspark-ckpt profiles`` prints them.

Every entry joins through ``register``. A profile answers to its name (what verdicts
print), its release-qualified name (``vllm-dspark@0.30.0``), ``LINE@VERSION`` for any
release it covers, and, the newest of its line, the line's name (``vllm-dspark``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from dspark_ckpt.errors import UsageError
from dspark_ckpt.profiles import eagle1, sglang, trtllm, vllm
from dspark_ckpt.profiles.architectures import known, rows_of, unjudged
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
from dspark_ckpt.profiles.releases import covers, history, parse_version
from dspark_ckpt.profiles.schema import ABOUT, LT, NE, RULE_FIELDS, HiddenStates, Profile
from dspark_ckpt.record import record

if TYPE_CHECKING:
    from dspark_ckpt.facts.config import DrafterConfig

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
    "asked_method",
    "covered",
    "default_profile",
    "detect_family",
    "get_profile",
    "names",
    "newest",
    "parse_profiles",
    "register",
    "resolve_profile",
    "route",
    "runtime_spec",
]


def newest(profiles: Mapping[str, Profile], line: str) -> Profile | None:
    """The newest release's entry of ``line`` (``vllm-dspark``): the one its short name,
    and the bare line name, stand for (None: no such line)."""
    if isinstance(profiles, Registry):
        profiles = profiles.of_lines([line])
    found = [p for p in profiles.values() if p.line == line]
    return max(found, key=lambda p: history(p.releases), default=None)


def names(p: Profile, profiles: dict[str, Profile] | None = None) -> list[str]:
    """Every name ``--profile`` takes for ``p``: its own (what verdicts print), its
    release-qualified one, and its line's (``vllm-dspark``) when it is the newest."""
    profiles = PROFILES if profiles is None else profiles
    out = [p.name, p.qualified_name]
    if newest(profiles, p.line) is p:
        out.append(p.line)
    return list(dict.fromkeys(out))


def _named(name: str, profiles: dict[str, Profile]) -> Profile | None:
    """The entry ``name`` stands for: a profile's name, a line name (its newest release), a
    qualified name, or ``LINE@VERSION`` (the entry covering that version). None: no such
    name or line; a version no entry of the line covers is a ``UsageError``."""
    if name in profiles:
        return profiles[name]
    line, at, version = name.partition("@")
    found = [p for p in profiles.values() if p.line == line]
    if not found or not at:
        return newest(profiles, line)
    exact = [p for p in found if p.qualified_name == name]
    if exact:
        return exact[0]
    if version != "main":
        try:
            parse_version(version)
        except ValueError:
            raise UsageError(f"{name!r}: {version!r} is not a release version") from None
    covering = [p for p in found if covers(p.releases, version)]
    if not covering:
        known = ", ".join(f"{p.qualified_name} {p.releases}" for p in found)
        raise UsageError(f"no {line} profile covers {version}; known: {known}")
    return covering[0]


def register(profiles: dict[str, Profile], *entries: Profile) -> dict[str, Profile]:
    """Add ``entries`` to ``profiles`` (by name, in order) and return it: how every entry
    joins the registry. A name or release-qualified name another entry already answers to
    is a ``ValueError`` naming both."""
    taken = {n: q for q in profiles.values() for n in (q.name, q.qualified_name)}
    for p in entries:
        for name in (p.name, p.qualified_name):
            if name in taken:
                raise ValueError(f"profile {p.name!r}: the name {name!r} is {taken[name].name!r}'s")
        profiles[p.name] = p
        taken.update({p.name: p, p.qualified_name: p})
    return profiles


class Registry(Mapping[str, Profile]):
    """Every profile by name, in the order the CLI lists them and verdicts are shown: the
    runtimes' own (``base``: what a drafter of a family is judged by), then the variant
    architectures' (``Profile.variant``, each judging only the architectures
    profiles/variants.py names), built from their ``modules`` the first time a lookup needs
    them: a drafter no variant judges never builds them (a sixth of a start-up)."""

    def __init__(self, base: dict[str, Profile], modules: tuple[str, ...]) -> None:
        self.base = base
        self.base_lines = frozenset(p.line for p in base.values())
        self.modules = modules  # the variants' modules, under profiles/
        self._all: dict[str, Profile] | None = None

    def complete(self) -> dict[str, Profile]:
        """Every profile: the variants' modules imported and registered on first use."""
        if self._all is None:
            later = (importlib.import_module(f"{__package__}.{m}") for m in self.modules)
            self._all = register(dict(self.base), *(p for m in later for p in m.PROFILES))
        return self._all

    def __getitem__(self, name: str) -> Profile:
        found = self.base.get(name)
        return found if found is not None else self.complete()[name]

    def __contains__(self, name: object) -> bool:
        return name in self.base or (isinstance(name, str) and name in self.complete())

    def __iter__(self) -> Iterator[str]:
        return iter(self.complete())

    def __len__(self) -> int:
        return len(self.complete())

    def of_lines(self, lines: Iterable[str | None]) -> Mapping[str, Profile]:
        """The profiles a lookup of these lines (None: none) must see: the base ones when
        every line is one of theirs (no variant belongs to a base line), else all."""
        return self.base if set(lines) <= self.base_lines | {None} else self

    def is_all(self, names: list[str]) -> bool:
        """Whether ``names`` are every profile (``--profile all``)."""
        return self.base.keys() <= set(names) and set(names) == set(self)


PROFILES = Registry(
    register(
        {},
        *vllm.PROFILES,
        eagle1.VLLM_EAGLE,
        *sglang.PROFILES,
        eagle1.SGLANG_EAGLE,
        *trtllm.PROFILES,
    ),
    (
        "vllm_variants",
        "vllm_muse",
        "vllm_gemma4",
        "sglang_variants",
        "eagle1_vllm_models",
        "mistral",
        "deepseek_eagle",
    ),
)


def applicable_profiles(family: str | None) -> list[str]:
    """The profiles that load ``family`` (none for a family no profile covers): the base
    ones; a variant architecture's own profile (``Profile.variant``, never a base one)
    judges only when asked for."""
    return [n for n, p in PROFILES.base.items() if p.family == family]


@record
class Route:
    """How a drafter is judged, from its config: its family, the registered draft
    architecture it names (None: none), the profiles that judge it (None: every profile of
    the family), and why each runtime that registers the name and judges it by no profile
    does not (one line each)."""

    family: str | None
    architecture: str | None
    judges: tuple[str, ...] | None
    unjudged: tuple[str, ...] = ()

    @property
    def judged(self) -> bool:
        """Whether some profile judges it (else: DSC108, no verdict)."""
        return covered(self.family) and self.judges != ()


def _line(answer: str) -> str:
    """The profile line an ``architectures.py`` answer (a profile or line name) names."""
    if answer in PROFILES.base_lines:
        return answer
    return PROFILES[answer].line if answer in PROFILES else answer


def route(cfg: DrafterConfig) -> Route:
    """The profiles that judge this drafter. A config naming a draft architecture some
    runtime registers (``architectures.py``) is judged, for each runtime that registers it,
    by the profile line the table (or ``VARIANTS``) names, or not at all (the row's reason);
    a runtime that does not register the name judges it as its registry does (refused).
    Any other config: every profile of its family (``detect_family``)."""
    family = detect_family(cfg)
    name = known(cfg.architectures)
    if name is None:
        return Route(family, None, None)
    rows = rows_of(name)  # a runtime that serves it under another name: that class's row
    lines = {r.runtime: _line(r.judged_by) for r in rows if r.judged_by}
    if not lines:
        return Route(family, name, (), unjudged(name))
    mine = {r.runtime: lines.get(r.runtime) for r in rows}
    first = next(iter(lines.values()))
    profiles = PROFILES.of_lines(mine.values())
    family = next((p.family for p in profiles.values() if p.line == first), family)
    judges = tuple(
        n
        for n, p in profiles.items()
        # a runtime that does not register the name: its family's own profiles (a variant's
        # profile judges only the architectures it is named for)
        if p.family == family
        and (mine[p.runtime] == p.line if p.runtime in mine else not p.variant)
    )
    return Route(family, name, judges, unjudged(name))


def asked_method(profile: str | list[str] | None) -> str | None:
    """The family of the first profile ``--profile`` names (not ``all`` nor a
    ``RUNTIME==VERSION``): the method the user serves the drafter with, which vLLM renames
    a config's class by (``DrafterConfig.method``); None where none is named."""
    names = [] if profile is None else [profile] if isinstance(profile, str) else profile
    for name in names:
        if name != "all" and runtime_spec(name) is None:
            return get_profile(name).family
    return None


def default_profile(family: str | None) -> str:
    """The profile that decides when --profile is not given: the family's primary one."""
    return FAMILY_DEFAULT.get(family, DEFAULT_PROFILE)


def get_profile(
    name: str, *, all_ok: bool = False, profiles: dict[str, Profile] | None = None
) -> Profile:
    """The profile ``name`` stands for (its name, its release-qualified name, a line name
    or ``LINE@VERSION``: ``names``); ``all_ok``: the command also takes 'all' (the
    message offers it only then)."""
    profiles = PROFILES if profiles is None else profiles
    found = _named(name, profiles)
    if found is None:
        choices = ", ".join(profiles) + (" or 'all'" if all_ok else "")
        raise UsageError(f"unknown profile {name!r}; choose from {choices}")
    return found


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


def newest_release(runtime: str) -> str:
    """The newest release some profile of ``runtime`` (``vLLM``) covers: the highest version
    its ``releases`` name, or ``main`` (TensorRT-LLM)."""
    found = [
        v
        for p in PROFILES.values()
        if p.runtime == runtime and p.releases
        for v in re.findall(r"main|\d+(?:\.\d+)+", p.releases)
    ]
    if "main" in found:
        return "main"
    return max(found, key=parse_version)


def _ranges(profiles: dict[str, Profile], runtime: str, family: str | None = None) -> str:
    return ", ".join(
        f"{p.name} {p.releases or 'none'}"
        for p in profiles.values()
        if p.runtime == runtime and family in (None, p.family)
    )


def resolve_profile(
    name: str, family: str | None = None, profiles: dict[str, Profile] | None = None
) -> str:
    """The name of the profile ``name`` stands for: a profile's name (``get_profile``),
    or ``RUNTIME==VERSION`` resolved to the profile of that runtime whose ``releases``
    cover the version and that judges ``family`` (None: the default profile's family
    where one covers it). A version no profile covers is a ``UsageError`` naming the
    known ranges. ``profiles``: another registry than ``PROFILES`` (``register``)."""
    profiles = PROFILES if profiles is None else profiles
    spec = runtime_spec(name)
    if spec is None:
        return get_profile(name, profiles=profiles).name
    runtime, version = spec
    found = [p for p in profiles.values() if p.runtime == runtime and covers(p.releases, version)]
    if not found:
        known = _ranges(profiles, runtime)
        raise UsageError(f"no {runtime} profile covers {version}; known: {known}")
    want = family or PROFILES[DEFAULT_PROFILE].family
    of_family = [p.name for p in found if p.family == want and not p.variant]
    if of_family:
        return of_family[0]
    if family is None:
        return found[0].name
    raise UsageError(
        f"no {runtime} profile covers {version} for {family} drafters; known: "
        f"{_ranges(profiles, runtime, family) or 'none'}"
    )
