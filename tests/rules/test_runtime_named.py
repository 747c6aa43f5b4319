"""Findings that point the right way: what a finding says under a profile names that
profile's runtime, not another's, and a drafter's own family, not another's loader.

Walks every code x profile the rule tables reach: each firing row of tests/rules/* is run
once through the engine, and every finding of every profile it evaluates (the selected
one's and the others', ``Report.others``) is held to it. The few explicit contrasts (an
SGLang finding that says what vLLM does with the same drafter) are allowed by pattern,
``CONTRASTS`` below; anything else naming another runtime fails, with the row and the
text. Explanations (``explain CODE``) are one text for every runtime: they may not say of
one runtime what the code finds under all (``no vLLM version masks them``)."""

from __future__ import annotations

import re

import pytest
from rules_harness import Bench
from test_cases import ALL

from dspark_ckpt.profiles.registry import PROFILES, detect_family
from dspark_ckpt.rules.registry import RULES

RUNTIMES = {
    "vLLM": re.compile(r"\bvLLM\b|\bvllm\b"),
    "SGLang": re.compile(r"\bSGLang\b|\bsglang\b"),
    "TensorRT-LLM": re.compile(r"\bTensorRT-LLM\b|\bTRT-LLM\b|\btrtllm\b"),
}
# the explicit contrasts allowed, each a parenthesis that says what another runtime does
# with the same drafter: DSC621 / DSC666 under SGLang and TensorRT-LLM ("vLLM refuses the
# load"), DSC666's hint ("vLLM refuses them"), DSC110's under vLLM ("what SGLang and
# TensorRT-LLM do anyway": the target's embedding shared)
CONTRASTS = re.compile(
    r"\(vLLM refuses (?:the load|them)\)|\(what SGLang and TensorRT-LLM do anyway\)"
)
FAMILY_NAMES = {"EAGLE-3": "eagle3", "DFlash": "dflash", "DSpark": "dspark"}
# "SGLang's EAGLE-3 loader", "its DFlash/DSpark loaders": a loader or model of a family
LOADER = re.compile(
    r"\b((?:EAGLE-3|DFlash|DSpark)(?:/(?:EAGLE-3|DFlash|DSpark))*) (?:loader|model)"
)
# a universal claim made of one runtime: "no vLLM version masks them"
ONE_FOR_ALL = re.compile(r"\bno (vLLM|SGLang|TensorRT-LLM) (?:version|release)")

FIRING = [c for c in ALL if c.fires]


def _walk(tmp_root) -> tuple[list[tuple], dict[str, set[str]]]:
    """Every finding of every firing row: (row, profile, part, text, drafter family, code)
    for each message and hint, and the runtimes each code is found under."""
    bench = Bench(tmp_root)
    texts, under = [], {}
    for c in FIRING:
        report = bench.run(c)
        family = detect_family(report.drafter) if report.drafter else None
        found = [*report.findings, *(f for fs in report.others.values() for f in fs)]
        for f in found:
            runtimes = (
                {PROFILES[f.profile].runtime}
                if f.profile
                else {PROFILES[n].runtime for n in report.verdicts}
            )
            under.setdefault(f.code, set()).update(runtimes)
            for part, text in (("message", f.message), ("hint", f.fix_hint or "")):
                texts.append((c.id, f.profile or "", part, text, family, f.code))
    return texts, under


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    return _walk(tmp_path_factory.mktemp("walk"))


def test_a_finding_names_its_own_runtime_only(walked):
    texts, _ = walked
    wrong = set()
    for row, profile, part, text, _, code in texts:
        if not profile:
            continue  # a common rule's finding is every runtime's
        own = PROFILES[profile].runtime
        bare = CONTRASTS.sub("", text)
        for runtime, named in RUNTIMES.items():
            if runtime != own and named.search(bare):
                wrong.add(f"{code} under {profile} ({row}), its {part}: {text}")
    assert not wrong, "\n".join(sorted(wrong))


def test_a_finding_names_its_drafters_family_loader_only(walked):
    texts, _ = walked
    wrong = set()
    for row, _, part, text, family, code in texts:
        for m in LOADER.finditer(text):
            named = {FAMILY_NAMES[n] for n in m.group(1).split("/")}
            if family is not None and family not in named:
                wrong.add(f"{code} on a {family} drafter ({row}), its {part}: {text}")
    assert not wrong, "\n".join(sorted(wrong))


def test_an_explanation_says_of_one_runtime_only_what_is_its_own(walked):
    _, under = walked
    assert set(under) >= {"DSC401", "DSC501", "DSC604"}  # the walk reaches them
    wrong = []
    for code, runtimes in sorted(under.items()):
        for m in ONE_FOR_ALL.finditer(RULES[code].explanation):
            if runtimes - {m.group(1)}:
                wrong.append(f"{code} (found under {sorted(runtimes)}): {m.group(0)} ...")
    assert not wrong, "\n".join(wrong)


def test_the_walk_would_catch_each_wrong_way_text():
    """The patterns themselves: each wrong-way text issue 27 found fails its check, each
    allowed contrast passes."""
    assert RUNTIMES["SGLang"].search("export an SGLang config: architectures [...]")
    assert not RUNTIMES["vLLM"].search(CONTRASTS.sub("", "skips them (vLLM refuses the load)"))
    m = LOADER.search("vLLM and TensorRT-LLM use vocab_size 100 (SGLang's EAGLE-3 loader fails")
    assert m and m.group(1) == "EAGLE-3"
    assert LOADER.search("its DFlash/DSpark loaders never read it").group(1) == "DFlash/DSpark"
    assert ONE_FOR_ALL.search("Rows [Vt, Vd) are padding, not tokens, yet no vLLM version masks")
