"""A release is a diff over its predecessor (``Profile.derive``), every profile has a
release-qualified name, the short names are the newest releases', and docs/profiles.md's
tables are what the registry gives. The last test adds a vLLM release the way
CONTRIBUTING.md walks through it, on a copy of the registry."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import replace
from pathlib import Path

import pytest
import synth
from conftest import FIXTURES, cli
from synth import VT

from dspark_ckpt.errors import UsageError
from dspark_ckpt.facts.config import drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.facts.target import target_from_vocab_size
from dspark_ckpt.profiles.cites import form_problem, parse_cites
from dspark_ckpt.profiles.registry import (
    PROFILES,
    get_profile,
    names,
    newest,
    register,
    resolve_profile,
)
from dspark_ckpt.profiles.releases import covers, first_release, last_release, parse_version
from dspark_ckpt.profiles.schema import NE, RULE_FIELDS
from dspark_ckpt.rules.engine import profile_findings
from dspark_ckpt.source.checkpoint import open_checkpoint

ROOT = Path(__file__).resolve().parents[2]
DSPARK_UTILS = "vllm/v1/worker/gpu/spec_decode/dspark/utils.py"


def _tool():
    spec = importlib.util.spec_from_file_location(
        "profiles_table", ROOT / "tools/profiles_table.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def next_release(p) -> str:
    """The release after the last one ``p``'s range names (``<=0.33.0`` -> ``0.34.0``)."""
    major, minor = parse_version(last_release(p.releases))[:2]
    return f"{major}.{minor + 1}.0"


# --- derive -------------------------------------------------------------------------------


def test_each_newer_vllm_release_derives_from_the_older_and_changes_only_what_it_cites():
    """vllm / vllm-dflash / vllm-eagle3 differ from their legacy entries in exactly the
    fields the release changed, each with its own cite; everything else is carried over."""
    changed = {  # by release-qualified name: a later release does not move these
        ("vllm-dspark@0.29.0", "vllm-dspark@0.30.0"): {"reduced_when"},
        ("vllm-dflash@0.29.0", "vllm-dflash@0.31.0"): {"own_lm_head_keys"},
        # mla_architectures: read from 0.33.0's deepseek_eagle3.py for the newest entry only
        ("vllm-eagle3@0.29.0", "vllm-eagle3@0.30.0"): {
            "d2t_param",
            "unmapped_logits_vocab_wide",
            "mla_architectures",
        },
    }
    for (old_name, new_name), fields in changed.items():
        old, new = get_profile(old_name), get_profile(new_name)
        assert old.line == new.line and old.hidden_states is new.hidden_states
        differ = {f for f in RULE_FIELDS if getattr(old, f) != getattr(new, f)}
        assert differ == fields, (new_name, differ)
        assert {f for f in RULE_FIELDS if old.cites[f] != new.cites[f]} == fields


def test_a_derived_entry_that_changes_a_field_without_a_new_cite_fails_naming_both():
    base = get_profile("vllm-dspark@0.30.0")
    common = dict(name="vllm-next", release="vLLM next", releases="==9.0.0", sources=())
    with pytest.raises(ValueError) as err:
        base.derive(**common, reduced_when=NE)
    assert str(err.value) == (
        f"profile 'vllm-next' (derived from {base.name!r}): reduced_when changes from '<' to "
        "'!=' without a new cite"
    )
    with pytest.raises(ValueError, match="reduced_when changes .* without a new cite"):
        base.derive(**common, cites={"reduced_when": base.cites["reduced_when"]}, reduced_when=NE)
    with pytest.raises(ValueError, match="'vllm-next' .*: no_such_field is not a rule field"):
        base.derive(**common, cites={"no_such_field": "x.py (prose)"})
    with pytest.raises(ValueError, match="profile 'vllm-next'.*missing_d2t='nope'"):
        base.derive(**common, cites={"missing_d2t": "x.py (a new cite)"}, missing_d2t="nope")
    # an unchanged value keeps its cite; a new cite of an unchanged value is allowed
    same = base.derive(**common, reduced_when=base.reduced_when)
    assert same.rules == base.rules and same.cites == base.cites
    recited = base.derive(**common, cites={"reduced_when": "x.py (read again)"})
    assert recited.cites["reduced_when"] == "x.py (read again)"
    # how a release feeds hidden states is cited in its own sources, not in cites
    other = PROFILES["sglang-dflash"].hidden_states
    assert base.derive(**common, hidden_states=other).hidden_states is other
    with pytest.raises(ValueError, match="hidden_states is not a rule field"):
        base.derive(**common, cites={"hidden_states": "x.py (prose)"}, hidden_states=other)


def test_a_derived_entry_keeps_its_variant_unless_it_names_one():
    """A variant's next release stays on the variant's line; ``variant=`` names another."""
    base = get_profile("vllm-xpress")
    common = dict(name="vllm-next", release="vLLM next", releases="==9.0.0", sources=())
    assert base.variant == "xpress"
    assert base.derive(**common).variant == "xpress"
    assert base.derive(**common, variant="other").variant == "other"
    assert get_profile("vllm-dspark@0.30.0").derive(**common, variant="other").variant == "other"


# --- names --------------------------------------------------------------------------------


def test_every_profile_has_a_release_qualified_name_and_the_short_names_are_the_newest():
    for p in PROFILES.values():
        runtime, _, rest = p.qualified_name.partition("-")
        family, _, first = rest.partition("@")
        # a variant architecture's own profile is a line of its own (vllm-xpress)
        assert (family, p.line) == (p.variant or p.family, f"{runtime}-{family}")
        assert covers(p.releases, first), p.name
        assert get_profile(p.qualified_name) is p
    for line in {p.line for p in PROFILES.values()}:
        top = newest(PROFILES, line)
        short = "vllm" if line == "vllm-dspark" else line  # the default profile's name
        assert top.name == short and get_profile(line) is top
        assert names(top) == [short, top.qualified_name, *([line] if line != short else [])]


@pytest.mark.parametrize(
    "name,qualified",
    [
        ("vllm-dspark@0.30.0", "vllm-dspark@0.30.0"),  # the qualified name
        ("vllm-dspark@0.32.1", "vllm-dspark@0.30.0"),  # a release it covers
        ("vllm-dspark@0.29.0", "vllm-dspark@0.29.0"),
        ("vllm-legacy", "vllm-dspark@0.29.0"),  # its short name
        ("vllm-dflash@0.30.0", "vllm-dflash@0.29.0"),
        ("trtllm-dspark@main", "trtllm-dspark@main"),
    ],
)
def test_profile_takes_every_name_of_a_profile(name, qualified):
    assert PROFILES[resolve_profile(name)].qualified_name == qualified


def test_a_line_name_and_its_newest_release_are_the_short_name():
    for line, short in (("vllm-dspark", "vllm"), ("sglang-eagle3", "sglang-eagle3")):
        newest_release = last_release(newest(PROFILES, line).releases)
        assert resolve_profile(line) == resolve_profile(f"{line}@{newest_release}") == short


def test_a_qualified_name_outside_the_releases_or_unknown_is_one_usage_line():
    after = next_release(newest(PROFILES, "vllm-dspark"))
    with pytest.raises(UsageError, match=f"no vllm-dspark profile covers {after}; known: "):
        get_profile(f"vllm-dspark@{after}")
    with pytest.raises(UsageError, match="is not a release version"):
        get_profile("vllm-dspark@v1")
    with pytest.raises(UsageError, match="unknown profile 'mlc-dspark@1.0'; choose from vllm,"):
        get_profile("mlc-dspark@1.0")
    r = cli("inspect", FIXTURES / "padded", "--target-vocab-size", "100",
            "--profile", f"vllm-dspark@{after}")  # fmt: skip
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert f"no vllm-dspark profile covers {after}" in r.stderr


def test_register_refuses_a_name_another_entry_answers_to():
    p = PROFILES["vllm"]
    with pytest.raises(ValueError, match="profile 'vllm': the name 'vllm' is 'vllm''s"):
        register(dict(PROFILES), p)
    twin = replace(p, name="vllm-twin")  # the same qualified name as vllm
    taken = re.escape(f"profile 'vllm-twin': the name '{p.qualified_name}' is 'vllm''s")
    with pytest.raises(ValueError, match=taken):
        register(dict(PROFILES), twin)


def test_the_cli_lists_and_takes_the_qualified_names():
    r = cli("profiles", "--format", "json")
    listed = {p["name"]: p for p in r.json["profiles"]}
    for name, p in PROFILES.items():
        assert listed[name]["qualified_name"] == p.qualified_name
        assert listed[name]["names"] == names(p)
    r = cli("inspect", FIXTURES / "padded", "--target", FIXTURES / "targets/small",
            "--profile", "vllm-dspark@0.29.0", "--format", "json")  # fmt: skip
    assert r.json["profiles"] == ["vllm-legacy"]  # verdicts print the short name
    table = cli("profiles", env={"COLUMNS": "200"}).stdout
    assert all(p.qualified_name in table for p in PROFILES.values())


# --- the generated docs -------------------------------------------------------------------


def test_the_profile_tables_of_the_docs_are_what_the_registry_gives():
    page = ROOT / "docs/profiles.md"
    text = page.read_text(encoding="utf-8")
    assert text == _tool().page(text), "run python tools/profiles_table.py"
    for p in PROFILES.values():
        assert f"| `{p.name}` | " in text and p.qualified_name in text


# --- a new release, as CONTRIBUTING.md walks through it -----------------------------------


def test_a_new_vllm_release_that_changes_one_condition_is_one_derived_entry(tmp_path):
    """vLLM 0.34 (hypothetical) makes the Qwen3 DSpark loader read the config's
    has_own_lm_head, as the DFlash one does from 0.31.0: the entry before it is renamed to
    its qualified name, the new one derives from it and takes the short name, and both
    join a copy of the registry through ``register`` (CONTRIBUTING.md's walk-through)."""
    # the 0.30.0-0.33.0 entry, and none after it (a real later release is left out of the copy)
    registry_before = dict(PROFILES)
    current = get_profile("vllm-dspark@0.30.0")
    version = next_release(current)
    before = replace(current, name=current.qualified_name)
    new = before.derive(
        name="vllm",
        release=f"vLLM {version}",
        releases=f">={version},<={version}",
        sources=current.sources,
        cites={"own_lm_head_keys": f"{DSPARK_UTILS}@{version}:142-149 `has_own_lm_head`"},
        own_lm_head_keys=("has_own_lm_head",),
    )
    line = [p for p in PROFILES.values() if p.line == "vllm-dspark"]
    kept = [p for p in line if parse_version(first_release(p.releases)) < parse_version(version)]
    entries = [
        x
        for p in PROFILES.values()
        if p.line != "vllm-dspark" or p in kept
        for x in ((new, before) if p is current else (p,))
    ]
    copy = register({}, *entries)

    # --runtime and --profile resolve to it (the global registry does not know it)
    assert resolve_profile(f"vllm=={version}", "dspark", profiles=copy) == "vllm"
    last = last_release(current.releases)
    assert resolve_profile(f"vllm=={last}", "dspark", profiles=copy) == before.name
    assert get_profile("vllm-dspark", profiles=copy) is new
    assert get_profile(f"vllm-dspark@{version}", profiles=copy) is new

    # the engine judges a drafter by it: has_own_lm_head without an lm_head (Vd == Vt, the
    # target's head shared until now) is an uninitialised head under the new release only
    cfg = {"markov_rank": 4, "has_own_lm_head": True}
    folder = synth.drafter(tmp_path / "own-head", vocab=VT, draft=VT, config=cfg)
    ckpt = open_checkpoint(str(folder))
    facts = gather(ckpt, drafter_config(ckpt), target_from_vocab_size(VT))
    errors = {p.name: sorted(f.code for f in profile_findings(facts, p) if f.severity == "error")
              for p in (before, new)}  # fmt: skip
    assert errors == {before.name: [], "vllm": ["DSC653"]}, errors

    # the generated docs list it, and its one change
    tool = _tool()
    listed = tool.generated(copy)
    assert (
        f"| `vllm` | `vllm-dspark@{version}`, `vllm-dspark` | dspark | vLLM {version} |" in listed
    )
    assert f"| `{before.name}` |  | dspark | {current.release} |" in listed
    fields = tool.generated_fields(copy)
    assert "It differs from `vllm` in `own_lm_head_keys`:" in fields
    old_cite = current.cites["own_lm_head_keys"]
    assert f"| `own_lm_head_keys` | - | `has_own_lm_head` | {old_cite} |" in fields

    # and its cites have the form the citation test checks (the anchors: once the
    # release's wheel is fetched, tests/test_citations.py)
    assert all(form_problem(c) is None for v in new.cites.values() for c in parse_cites(v))
    assert parse_cites(new.cites["own_lm_head_keys"])[0].release.name == f"vllm-{version}"
    # and the registry the other tests see is as it was
    assert registry_before == PROFILES and all(p is not new for p in PROFILES.values())


def test_the_registry_builds_the_variants_last_and_only_variants_there():
    """``PROFILES.base`` (what a family is judged by) holds no variant architecture's
    profile, and the modules built on first use hold nothing else: a lookup of a base
    line never needs them (``Registry.of_lines``)."""
    later = [p for n, p in PROFILES.items() if n not in PROFILES.base]
    assert list(PROFILES)[: len(PROFILES.base)] == list(PROFILES.base)
    assert later and all(p.variant for p in later)
    assert not any(p.variant for p in PROFILES.base.values())
    assert not PROFILES.base_lines & {p.line for p in later}
    assert PROFILES.of_lines(["vllm-dspark", None]) is PROFILES.base
    assert PROFILES.of_lines(["vllm-dflash2"]) is PROFILES
