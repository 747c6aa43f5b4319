"""``record`` behaves as the ``@dataclass`` it replaces: each class is defined both ways and
every method is compared, on the same arguments."""

from __future__ import annotations

import dataclasses
from dataclasses import FrozenInstanceError, dataclass, field
from typing import ClassVar

import pytest

from dspark_ckpt.record import record


def twins(decorate_dc, decorate_rec):
    def body():
        class Thing:
            """A thing."""

            name: str
            size: int = 3
            tags: list = field(default_factory=list)
            note: str = field(default="", compare=False, repr=False)
            data: object = field(default=None, hash=False)

        return Thing

    return decorate_dc(body()), decorate_rec(body())


FROZEN = twins(dataclass(frozen=True), record)
MUTABLE = twins(dataclass, record(frozen=False))
NO_EQ = twins(dataclass(frozen=True, eq=False, repr=False), record(eq=False, repr=False))


@pytest.mark.parametrize("pair", [FROZEN, MUTABLE, NO_EQ], ids=["frozen", "mutable", "no-eq"])
def test_init_defaults_repr_and_eq_match_the_dataclass(pair):
    calls = [
        (("a",), {}),
        (("a", 5), {}),
        (("a",), {"size": 7, "note": "n"}),
        ((), {"name": "b", "tags": [1], "data": 2}),
    ]
    for args, kwargs in calls:
        d, r = (cls(*args, **kwargs) for cls in pair)
        assert dataclasses.asdict(d) == dataclasses.asdict(r)
        if pair is not NO_EQ:
            assert repr(d) == repr(r)
        same = (cls(*args, **kwargs) for cls in pair)
        assert (d == next(same)) == (r == next(same))
    d1, d2 = pair[0]("a"), pair[0]("a")
    r1, r2 = pair[1]("a"), pair[1]("a")
    assert d1.tags is not d2.tags and r1.tags is not r2.tags  # a fresh default each
    assert (d1 == d2) == (r1 == r2)
    assert (pair[0]("a", note="x") == pair[0]("a", note="y")) == (
        pair[1]("a", note="x") == pair[1]("a", note="y")
    )
    assert (r1 == "a") is False and (r1 != "a") is True


def test_hash_matches_the_dataclass():
    d, r = (cls("a", 2, (), "n", [1]) for cls in FROZEN)
    assert hash(d) == hash(r)  # the compared fields but data's (hash=False)
    assert MUTABLE[1].__hash__ is None and MUTABLE[0].__hash__ is None
    assert NO_EQ[1].__hash__ is object.__hash__


def test_frozen_refuses_assignment_and_replace_works():
    r = FROZEN[1]("a")
    with pytest.raises(FrozenInstanceError):
        r.size = 4
    with pytest.raises(FrozenInstanceError):
        del r.size
    assert dataclasses.replace(r, size=9) == FROZEN[1]("a", 9)
    m = MUTABLE[1]("a")
    m.size = 4
    assert m.size == 4


@pytest.mark.parametrize("args,kwargs", [((), {}), (("a", 1, [], "", None, 9), {}),
                                         (("a",), {"name": "b"}), (("a",), {"colour": 1})])  # fmt: skip
def test_bad_arguments_raise_type_error_as_the_dataclass_does(args, kwargs):
    for cls in FROZEN:
        with pytest.raises(TypeError):
            cls(*args, **kwargs)


def test_post_init_and_explicit_methods_are_kept():
    @record
    class Checked:
        n: int

        def __post_init__(self):
            if self.n < 0:
                raise ValueError("negative")

        def __repr__(self):
            return "mine"

    assert repr(Checked(1)) == "mine"
    with pytest.raises(ValueError):
        Checked(-1)


def test_a_cycle_repr_shows_an_ellipsis():
    shown = []
    for decorate in (dataclass, record(frozen=False)):

        @decorate
        class Node:
            next: object = None

        n = Node()
        n.next = n
        shown.append(repr(n))
    assert shown[0] == shown[1] and shown[1].endswith("Node(next=...)")


def test_an_undocumented_class_gets_the_docstring_dataclass_writes():
    docs = []
    for decorate in (dataclass(frozen=True), record):

        @decorate
        class Bare:
            a: int
            b: str = "x"
            c: list = field(default_factory=list)

        docs.append(Bare.__doc__)
    assert docs[0] == docs[1] == "Bare(a: 'int', b: 'str' = 'x', c: 'list' = <factory>)"


def test_string_annotations_are_read_as_the_dataclass_reads_them():
    """Annotations written as text (``from __future__ import annotations``): a class
    variable and an init-only variable stay what dataclass makes of them, and every field
    and the class keep their annotations as written."""
    made = []
    for decorate in (dataclass(frozen=True), record):

        @decorate
        class Plain:
            a: int
            b: tuple[str, ...] = ()

        @decorate
        class Special:
            a: int
            shared: ClassVar[int] = 3
            seed: dataclasses.InitVar[int] = 0

            def __post_init__(self, seed: int) -> None:
                pass

        made.append((Plain, Special))
    for (dc_plain, dc_special), (rec_plain, rec_special) in [made]:
        for dc, rec in ((dc_plain, rec_plain), (dc_special, rec_special)):
            assert rec.__annotations__ == dc.__annotations__
            assert [(f.name, f.type) for f in dataclasses.fields(rec)] == [
                (f.name, f.type) for f in dataclasses.fields(dc)
            ]
    assert [(f.name, f.type) for f in dataclasses.fields(rec_plain)] == [
        ("a", "int"),
        ("b", "tuple[str, ...]"),
    ]
    assert [f.name for f in dataclasses.fields(rec_special)] == ["a"]
    assert rec_special.shared == 3


def test_the_package_defines_its_records_with_record():
    """A ``@dataclass`` in the package costs every start-up its exec()'d methods."""
    from conftest import ROOT

    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted((ROOT / "dspark_ckpt").rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if line.lstrip().startswith("@dataclass")
    ]
    assert found == []
