"""The MTP loaders (profiles/mtp.py): every field that differs from the default is cited in
a well-formed part, names are unique, and every MTP architecture the two releases pick for
a target is judged by a loader or named in UNJUDGED with its reason (read from the releases'
own files where tools/fetch_sources.py has unpacked them)."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest

from dspark_ckpt.profiles.cites import form_problem, parse_cites
from dspark_ckpt.profiles.mtp import LOADERS, RUNTIMES, UNJUDGED, MtpLoader

SOURCES = Path(
    os.environ.get("DSPARK_CKPT_SOURCES") or Path.home() / ".cache/dspark-ckpt/sources"
).expanduser()
REQUIRE = os.environ.get("DSPARK_CKPT_REQUIRE_SOURCES") == "1"
# the fields every loader states (not "a change from a default") and those of plain data
UNCITED = {"name", "runtime", "release", "architecture", "family", "cites", "count_keys"}
DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(MtpLoader) if f.default is not dataclasses.MISSING
}


def test_a_loader_with_no_count_key_fixes_its_count_or_has_a_default():
    """resolve_count names the first count key where none is set and there is no default."""
    assert [
        x.name
        for x in LOADERS
        if not x.count_keys and x.count_fixed is None and x.count_default is None
    ] == []


def test_loader_names_are_unique_and_runtimes_known():
    names = [x.name for x in LOADERS]
    assert len(names) == len(set(names))
    assert {x.runtime for x in LOADERS} == set(RUNTIMES)
    assert all(x.release == RUNTIMES[x.runtime] for x in LOADERS)


@pytest.mark.parametrize("x", LOADERS, ids=lambda x: x.name)
def test_every_stated_field_is_cited(x):
    stated = {
        f.name
        for f in dataclasses.fields(x)
        if f.name not in UNCITED and getattr(x, f.name) != DEFAULTS.get(f.name, object())
    }
    assert stated - {"targets"} <= set(x.cites), sorted(stated - set(x.cites))
    assert "targets" in x.cites and "missing" in x.cites
    for value in x.cites.values():
        for cite in parse_cites(value):
            assert form_problem(cite) is None, (x.name, cite.text)


def test_no_architecture_is_both_judged_and_unjudged():
    judged = {(x.runtime, x.architecture) for x in LOADERS}
    assert judged.isdisjoint(UNJUDGED)


def _release_file(release: str, path: str) -> str:
    f = SOURCES / release / path
    if not f.is_file():
        msg = f"{f} is not unpacked: run python tools/fetch_sources.py"
        if REQUIRE:
            pytest.fail(msg)
        pytest.skip(msg)
    return f.read_text(encoding="utf-8")


def test_every_vllm_mtp_architecture_is_judged_or_has_a_reason():
    text = _release_file("vllm-0.33.0", "vllm/model_executor/models/registry.py")
    block = text[text.index("_SPECULATIVE_DECODING_MODELS = {") :]
    block = block[: block.index("\n}")]
    names = set(re.findall(r'^\s+"(\w*MTP\w*)":', block, re.M))
    names -= {"EagleDeepSeekMTPModel"}  # an EAGLE-1 drafter of its own (not layers of a target)
    answered = {x.architecture for x in LOADERS if x.runtime == "vllm"}
    answered |= {a for r, a in UNJUDGED if r == "vllm"}
    assert len(names) >= 30
    assert sorted(names - answered) == []


def test_every_sglang_draft_rewrite_is_judged_or_has_a_reason():
    text = _release_file("sglang-0.5.23", "sglang/srt/configs/model_config.py")
    start = text.index("def _config_draft_model")
    body = text[start : text.index("\n    def ", start + 1)]
    names = set(re.findall(r'architectures(?:\[0\])? = \[?\s*"(\w+(?:NextN|MTP))"', body))
    answered = {x.architecture for x in LOADERS if x.runtime == "sglang"}
    answered |= {a for r, a in UNJUDGED if r == "sglang"}
    assert len(names) >= 15
    assert sorted(names - answered) == []


def test_docs_mtp_tables_are_current():
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("mtp_table", root / "tools/mtp_table.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    text = (root / "docs/mtp.md").read_text(encoding="utf-8")
    assert text == tool.page(text), "run python tools/mtp_table.py"
    for x in LOADERS:  # every architecture judged, and every one not, is on the page
        assert f"`{x.architecture}`" in text
    assert all(f"`{a}`" in text for _, a in UNJUDGED)
