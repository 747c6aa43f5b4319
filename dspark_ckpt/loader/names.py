"""Walking the sorted stored names by module, never name by name.

A module (``layers.3.mlp``) is a contiguous range of the sorted names: every name under
``P.`` sorts between ``P.`` and ``P/`` ('/' follows '.'). So the distinct children of a
module, a layer's modules, and the names a model has no module for are found with binary
searches: the cost follows the modules a checkpoint holds, not the names in them nor the
counts a config declares.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator


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
