"""Walking the sorted stored names by module, never name by name.

A module (``layers.3.mlp``) is a contiguous range of the sorted names: every name under
``P.`` sorts between ``P.`` and ``P/`` ('/' follows '.'). So the distinct children of a
module, a layer's modules, and the names a model has no module for are found with binary
searches: the cost follows the modules a checkpoint holds, not the names in them nor the
counts a config declares.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from dspark_ckpt.errors import whole_number as index  # noqa: F401 (a layer index or None)
from dspark_ckpt.record import record


def span(names: list[str], prefix: str, lo: int = 0, hi: int | None = None) -> tuple[int, int]:
    """The range of ``names`` (sorted) under the module ``prefix`` (``prefix.``...)."""
    hi = len(names) if hi is None else hi
    a = bisect_left(names, prefix + ".", lo, hi)
    return a, bisect_left(names, prefix + "/", a, hi)


def has(names: list[str], name: str) -> bool:
    """Whether the exact ``name`` is stored."""
    i = bisect_left(names, name)
    return i < len(names) and names[i] == name


def children(names: list[str], base: str, lo: int, hi: int) -> Iterator[tuple[str, int, int]]:
    """(child, start, end) for each run of names in ``[lo, hi)`` (all starting with
    ``base``) that share their next component; a name that ends there is its own run."""
    n, i = len(base), lo
    while i < hi:
        name = names[i]
        dot = name.find(".", n)
        if dot < 0:
            yield name[n:], i, i + 1
            i += 1
            continue
        j = bisect_left(names, name[:dot] + "/", i, hi)
        yield name[n:dot], i, j
        i = j


def gaps(covered: list[tuple[int, int]], lo: int, hi: int) -> Iterator[tuple[int, int]]:
    """The runs of positions of ``[lo, hi)`` outside every range of ``covered``."""
    at = lo
    for a, b in sorted(covered):
        if a > at:
            yield at, a
        at = max(at, b)
    if hi > at:
        yield at, hi


def under(names: list[str], prefix: str) -> list[str]:
    """The names (sorted) under the module ``prefix``."""
    lo, hi = span(names, prefix)
    return names[lo:hi]


# --- a loader whose mapper renames whole names by pattern (the profile's "re:" name_maps) ---

ROOT = "model."  # the runtime's model module, under its causal-LM wrapper
OUTSIDE = "^"  # marks a name the mapper leaves outside the model (no module of it takes it)


@record
class Renamed:
    """The stored names as such a loader hands them to its model: ``names`` (sorted) relative
    to the model's root, a name left outside it under ``OUTSIDE`` (``lm_head`` keeps its
    name: the head is judged at the top level for every loader); ``stored``, each one's name
    as stored; ``skipped``, the stored names the mapper skips."""

    names: list[str]
    stored: dict[str, str]
    skipped: tuple[str, ...]


def renamed(stored: Iterable[str], patterns: tuple[tuple[str, str, str], ...]) -> Renamed:
    """Each stored name through ``patterns`` ((kind, pattern, name)), then placed against the
    model's root. Kind ``re``: applied in order, each with ``re.sub`` (an empty result: the
    mapper skips the name; a name none matches passes as it is). Kind ``re1``: the first whose
    pattern matches the whole name renames it (``re.fullmatch``, then ``expand``), and a name
    none matches is skipped (SGLang's mappers). The one place the loader model reads names one
    by one: only the loaders that rename by pattern do."""
    first = [(re.compile(p), to) for kind, p, to in patterns if kind == "re1"]
    subs = [(re.compile(p), to) for kind, p, to in patterns if kind == "re"]
    out: dict[str, str] = {}
    skipped = []
    for name in stored:
        new = _first(name, first) if first else name
        for pattern, to in subs:
            if not new:
                break
            new = pattern.sub(to, new)
        if not new:
            skipped.append(name)
            continue
        if new.startswith(ROOT):
            new = new[len(ROOT) :]
        elif not (new == "lm_head" or new.startswith("lm_head.")):
            new = OUTSIDE + new
        out.setdefault(new, name)  # two stored names onto one: the first is judged
    return Renamed(sorted(out), out, tuple(sorted(skipped)))


def read_under(
    stored: Iterable[str], prefixes: tuple[str, ...], renames: tuple[str, ...]
) -> Renamed:
    """The names a loader that reads only under ``prefixes`` hands its model: each stored
    name under one of them with the prefix removed, then through ``renames`` ("old>new": old
    replaced by new in the name; "old>": a name holding old is skipped); a name under none of
    them is skipped (SGLang's M3.1 DSpark)."""
    pairs = [r.split(">", 1) for r in renames]
    out: dict[str, str] = {}
    skipped = []
    for name in stored:
        prefix = next((x for x in prefixes if name.startswith(x)), None)
        read = name[len(prefix) :] if prefix is not None else ""
        for old, new in pairs if read else ():
            if not new and old in read:
                read = ""
                break
            read = read.replace(old, new)
        if read:
            out.setdefault(read, name)
        else:
            skipped.append(name)
    return Renamed(sorted(out), out, tuple(sorted(skipped)))


def _first(name: str, patterns: list[tuple[re.Pattern, str]]) -> str:
    for pattern, to in patterns:
        if (m := pattern.fullmatch(name)) is not None:
            return m.expand(to)
    return ""
