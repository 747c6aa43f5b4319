"""The release ranges profiles cover and ``--runtime RUNTIME==VERSION``: a runtime release
resolves to the profile of that release for the drafter's family; a version no profile
covers is a one-line usage error naming the ranges (read from the releases' wheels)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import FIXTURES, cli

from dspark_ckpt.errors import UsageError
from dspark_ckpt.profiles.registry import (
    COVERED,
    PROFILES,
    get_profile,
    newest,
    newest_release,
    resolve_profile,
)
from dspark_ckpt.profiles.releases import (
    covers,
    first_release,
    history,
    last_release,
    parse_version,
)

SMALL = FIXTURES / "targets/small"
# the newest vLLM release read (the default profile's), the one after it (read by no one
# yet), the newest SGLang release read: from the registry, so that adding a release leaves
# these tests true
VLLM_LAST = last_release(newest(PROFILES, "vllm-dspark").releases)
_major, _minor = parse_version(VLLM_LAST)[:2]
VLLM_NEXT = f"{_major}.{_minor + 1}.0"
SGLANG = last_release(newest(PROFILES, "sglang-dflash").releases)

# The literal versions below are the historical boundaries the entries were read at (from the
# releases' own wheels): 0.29.0 (qwen3_dspark.py's first release, Vd != Vt, EAGLE-3's d2t
# always a parameter), 0.30.0 (PR #55133's Vd < Vt, PR #53458), 0.31.0 (DFlash reads
# has_own_lm_head). A new release does not move them.


@pytest.mark.parametrize(
    "spec,family,profile",
    [  # the entries by their release-qualified names, which a later release does not move
        ("vllm==0.32.1", "dspark", "vllm-dspark@0.30.0"),
        ("vllm==0.30", "dspark", "vllm-dspark@0.30.0"),
        ("vllm==0.29.0", "dspark", "vllm-dspark@0.29.0"),
        ("vllm==0.29.2", "eagle3", "vllm-eagle3@0.29.0"),
        ("vllm==0.30.0", "eagle3", "vllm-eagle3@0.30.0"),
        ("vllm==0.30.0", "dflash", "vllm-dflash@0.29.0"),
        ("vllm==0.31.0", "dflash", "vllm-dflash@0.31.0"),
        ("trtllm==main", "dspark", "trtllm-dspark@main"),
        ("TensorRT-LLM==main", "eagle3", "trtllm-eagle3@main"),
        ("trtllm==main", "dflash", "trtllm-dflash@main"),  # modeling_dflash.py (issue 30)
    ],
)
def test_a_release_resolves_to_its_profile_for_the_family(spec, family, profile):
    assert PROFILES[resolve_profile(spec, family)].qualified_name == profile


@pytest.mark.parametrize(
    "spec,family,profile",
    [  # the newest release read resolves to the short name
        (f"vllm=={VLLM_LAST}", "dspark", "vllm"),
        (f"sglang=={SGLANG}", "dflash", "sglang-dflash"),
        ("vllm", "eagle3", "vllm"),  # a profile name is itself
    ],
)
def test_the_newest_release_resolves_to_the_short_name(spec, family, profile):
    assert resolve_profile(spec, family) == profile


@pytest.mark.parametrize(
    "spec,family,says",
    [
        (f"vllm=={VLLM_NEXT}", "dspark", f"no vLLM profile covers {VLLM_NEXT}; known: vllm >="),
        ("vllm==0.28.0", None, "vllm-legacy >=0.29.0,<0.30.0"),  # before the first read
        ("sglang==0.5.22", None, f"sglang-dspark =={SGLANG}"),  # before the one read
        ("trtllm==1.2.1", None, "trtllm-dspark main"),
        ("mlc==1.0", None, "unknown runtime 'mlc'"),
        ("vllm==v0.32", None, "is not a release version"),
    ],
)
def test_a_release_no_profile_covers_is_a_usage_error(spec, family, says):
    with pytest.raises(UsageError, match=None) as err:
        resolve_profile(spec, family)
    assert says in str(err.value)


def test_covers_compares_release_versions():
    assert covers(">=0.30.0,<=0.33.0", "0.30.0") and covers(">=0.30.0,<=0.33.0", "0.32.1")
    assert not covers(">=0.30.0,<=0.33.0", "0.33.1") and not covers(">=0.30.0,<=0.33.0", "0.3")
    assert covers(">=0.29.0,<0.30.0", "0.29.9") and not covers(">=0.29.0,<0.30.0", "0.30")
    assert covers("==0.5.23", "0.5.23.0") and not covers("==0.5.23", "0.5.24")
    assert covers("main", "main") and not covers("main", "1.2.1") and not covers("", "0.1")


def test_every_profile_states_its_releases_and_one_release_has_one_profile_per_family():
    """Each profile says which releases it covers; within a runtime, a family's profiles
    never overlap, and vLLM's cover every release from the family's first read (classic
    EAGLE: 0.33.0 alone, the one wheel its loader was read in) to the newest."""
    for p in PROFILES.values():
        assert p.releases, p.name
    firsts = [first_release(p.releases) for p in PROFILES.values() if p.runtime == "vLLM"]
    first = parse_version(min(firsts, key=parse_version))
    assert first[0] == _major and first[1] < _minor
    for family in COVERED:
        # a variant architecture's own profile is not the family's
        mine = [
            p
            for p in PROFILES.values()
            if p.runtime == "vLLM" and p.family == family and not p.variant
        ]
        start = min(parse_version(first_release(p.releases)) for p in mine)
        assert start[0] == _major, family
        for minor in range(start[1], _minor + 1):
            version = f"{_major}.{minor}.0"
            hits = [p.name for p in mine if covers(p.releases, version)]
            assert len(hits) == 1, (version, family, hits)


def test_runtime_option_decides_by_that_release():
    r = cli("inspect", FIXTURES / "padded", "--target", SMALL, "--runtime", "vllm==0.29.0",
            "--format", "json")  # fmt: skip
    assert r.json["profiles"] == ["vllm-legacy"] and r.json["not_applicable"] == []
    assert r.exit_code == 1 and r.json["ok"] is False  # 0.29 refuses a padded drafter's head
    r = cli("inspect", FIXTURES / "pruned-eagle3", "--target", SMALL, "--runtime", "vllm==0.32.1",
            "--format", "json")  # fmt: skip
    assert r.json["profiles"] == [get_profile("vllm-eagle3@0.30.0").name] and r.exit_code == 0


def test_runtime_outside_every_range_is_one_usage_line():
    r = cli("inspect", FIXTURES / "padded", "--target", SMALL, "--runtime", f"vllm=={VLLM_NEXT}")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"dspark-ckpt: error: no vLLM profile covers {VLLM_NEXT}; known: ")
    assert "vllm-legacy >=0.29.0,<0.30.0" in r.stderr


def test_a_line_sorts_its_releases_then_the_branch_s_earlier_commits_then_its_newest():
    oldest_first = ["==0.29.0", ">=0.30.0,<=0.33.0", "==0.33.1", "main@abc123", "main"]
    assert sorted(reversed(oldest_first), key=history) == oldest_first
    line = {r: replace(get_profile("trtllm-dspark"), releases=r) for r in oldest_first}
    assert (
        newest({f"p{i}": p for i, p in enumerate(line.values())}, "trtllm-dspark").releases
        == "main"
    )


def test_a_runtime_s_newest_release_is_its_highest_version_or_its_branch():
    """``--runtime vllm`` without a version: the newest release its profiles cover."""
    assert newest_release("vLLM") == VLLM_LAST
    assert newest_release("SGLang") == SGLANG
    assert newest_release("TensorRT-LLM") == "main"


def test_no_family_and_no_default_family_profile_covering_it_is_the_first_that_does():
    """A release only other families' profiles cover, asked for no family: the first of
    them in the registry (the default family's, dspark, where one covers it)."""
    two = [PROFILES["vllm-eagle3"], PROFILES["vllm-dflash"]]
    for order in (two, two[::-1]):
        registry = {p.name: p for p in order}
        assert resolve_profile(f"vllm=={VLLM_LAST}", None, profiles=registry) == order[0].name
        assert resolve_profile(f"vllm=={VLLM_LAST}", "dflash", profiles=registry) == "vllm-dflash"
