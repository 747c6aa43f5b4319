"""dspark_ckpt/loader/names.py: walking the sorted stored names by module, each limit on both
sides (a name exactly at a module's edge, a module that is a prefix of another's name)."""

from __future__ import annotations

from dspark_ckpt.loader.names import children, gaps, has, span, under

NAMES = sorted(
    [
        "embed_tokens.weight",
        "layers.0.mlp.down_proj.weight",
        "layers.0.mlp.up_proj.weight",
        "layers.0.norm.weight",
        "layers.1.norm.weight",
        "layers.10.norm.weight",
        "layers.1/odd",
        "lm_head.weight",
        "norm",
    ]
)


def test_span_holds_the_module_and_not_a_name_it_prefixes():
    lo, hi = span(NAMES, "layers.1")
    assert NAMES[lo:hi] == ["layers.1.norm.weight"]  # not layers.10, not layers.1/odd
    assert under(NAMES, "layers.0.mlp") == [
        "layers.0.mlp.down_proj.weight",
        "layers.0.mlp.up_proj.weight",
    ]
    assert under(NAMES, "norm") == []  # a name, no module
    assert under(NAMES, "absent") == []


def test_span_keeps_to_the_range_it_is_given():
    lo, hi = span(NAMES, "layers")
    assert (lo, hi) == (1, 7)
    assert span(NAMES, "layers", lo + 1, hi - 1) == (lo + 1, hi - 1)
    assert span(NAMES, "layers.0", 0, 2) == (1, 2)


def test_has_is_exact():
    assert has(NAMES, "norm") and has(NAMES, "embed_tokens.weight")
    assert not has(NAMES, "layers.0") and not has(NAMES, "norm.weight")
    assert not has(NAMES, "zzz")  # past the last name
    assert not has([], "norm")


def test_children_are_runs_of_the_next_component():
    lo, hi = span(NAMES, "layers.0")
    assert list(children(NAMES, "layers.0.", lo, hi)) == [
        ("mlp", lo, lo + 2),
        ("norm", lo + 2, lo + 3),
    ]
    assert list(children(NAMES, "", 0, len(NAMES))) == [
        ("embed_tokens", 0, 1),
        ("layers", 1, 7),
        ("lm_head", 7, 8),
        ("norm", 8, 9),  # a name that ends there is its own run
    ]
    assert list(children(NAMES, "", 3, 3)) == []


def test_gaps_are_what_no_range_covers():
    assert list(gaps([(2, 4), (6, 8)], 0, 10)) == [(0, 2), (4, 6), (8, 10)]
    assert list(gaps([(0, 4), (4, 10)], 0, 10)) == []  # ranges that touch leave no gap
    assert list(gaps([(3, 6), (0, 4)], 0, 8)) == [(6, 8)]  # overlapping, given unsorted
    assert list(gaps([(0, 3)], 0, 3)) == []
    assert list(gaps([], 2, 5)) == [(2, 5)]
    assert list(gaps([(0, 2)], 0, 3)) == [(2, 3)]


def test_a_name_that_starts_with_a_dot_has_an_empty_first_component():
    """``.weight`` and ``.a.b`` share the component before their first dot (the empty one):
    one run, as ``layers.0`` and ``layers.1`` share ``layers``."""
    names = sorted([".a.b", ".weight", "fc.weight", "norm"])
    assert list(children(names, "", 0, len(names))) == [("", 0, 2), ("fc", 2, 3), ("norm", 3, 4)]
