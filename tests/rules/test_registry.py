"""The registry: each finding code is one registered function, and the codes that
``explain``, SARIF and the docs show are generated from it."""

from __future__ import annotations

import inspect

import pytest

from dspark_ckpt.rules.codes import CODES
from dspark_ckpt.rules.findings import ERROR, SEVERITY_ORDER
from dspark_ckpt.rules.registry import ENGINE, RULES, SCOPES, rule


def test_the_registry_codes_are_the_codes():
    assert list(CODES) == sorted(RULES)
    assert all(CODES[code] == r.as_code for code, r in RULES.items())


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_code_has_a_docstring_a_severity_a_title_and_a_scope(code):
    r = RULES[code]
    doc = r.check.__doc__
    assert doc and doc.strip(), f"{code}: {r.check.__qualname__} has no docstring"
    assert r.explanation == " ".join(inspect.cleandoc(doc).split())
    assert "  " not in r.explanation and "\n" not in r.explanation
    assert r.severity in SEVERITY_ORDER
    assert r.title and r.title == r.title.strip()
    assert r.scope in SCOPES
    assert r.hint is None or r.hint.strip() == r.hint != ""


def test_one_function_per_code():
    checks = [r.check for r in RULES.values()]
    assert len(set(checks)) == len(checks)
    assert all(r.check.__module__.startswith("dspark_ckpt.rules.") for r in RULES.values())


def test_a_code_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="DSC001 is registered twice"):
        rule("DSC001", ERROR, "another", scope=ENGINE)(lambda: None)
    assert RULES["DSC001"].title == "unreadable or malformed checkpoint"


def test_what_a_finding_quotes_keeps_its_start_and_end_around_a_marker():
    from dspark_ckpt.rules.findings import MAX_ITEMS, MAX_QUOTED, bounded

    half = (MAX_ITEMS - 1) // 2
    assert bounded(list(range(MAX_ITEMS))) == list(range(MAX_ITEMS))  # at the bound: kept
    n = MAX_ITEMS + 10
    left = n - 2 * half
    assert bounded(list(range(n))) == [
        *range(half), f"[... {left} items ...]", *range(n - half, n)
    ]  # fmt: skip
    d = {str(i): i for i in range(n)}
    assert list(bounded(d).items()) == [
        *((str(i), i) for i in range(half)),
        (f"[... {left} items ...]", None),
        *((str(i), i) for i in range(n - half, n)),
    ]
    assert bounded(dict(list(d.items())[:MAX_ITEMS])) == dict(list(d.items())[:MAX_ITEMS])
    text = "a" * MAX_QUOTED
    assert bounded(text) == text
    long = "b" * 10 + "c" * MAX_QUOTED + "d" * 10
    out = bounded(long)
    assert len(out) <= MAX_QUOTED and out.startswith("b" * 10) and out.endswith("d" * 10)
    assert "characters ...]" in out
    cut = int(out.split("[... ")[1].split(" ")[0])
    assert len(out) - len(f"[... {cut} characters ...]") == len(long) - cut
