"""Every vLLM and SGLang citation of the profiles, checked against the cited release.

``python tools/fetch_sources.py`` downloads the wheels and unpacks the cited files into
``$DSPARK_CKPT_SOURCES`` (default ``~/.cache/dspark-ckpt/sources``). For each line cite
(``path:LINES `anchor```) the file must be in the release, the lines must exist and every
anchor must stand within a few lines of the cited lines; a file cite (``path (prose)``)
must name a file of the release. Without the unpacked sources these tests skip, unless
``DSPARK_CKPT_REQUIRE_SOURCES=1`` (CI sets it): then they fail. The parser's own tests
below need no sources.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dspark_ckpt.profiles.architectures import ARCHITECTURES
from dspark_ckpt.profiles.cites import (
    RELEASES,
    anchor_problem,
    form_problem,
    parse_cites,
    parse_part,
    split_parts,
)
from dspark_ckpt.profiles.mtp import LOADERS
from dspark_ckpt.profiles.registry import PROFILES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = Path(
    os.environ.get("DSPARK_CKPT_SOURCES") or Path.home() / ".cache/dspark-ckpt/sources"
).expanduser()
REQUIRE = os.environ.get("DSPARK_CKPT_REQUIRE_SOURCES") == "1"
FILE_LIST = "WHEEL-FILES.txt"


def _release_cites():
    for p in (*PROFILES.values(), *LOADERS):  # the runtime profiles and the MTP loaders
        for field, value in p.cites.items():
            for i, cite in enumerate(parse_cites(value)):
                if cite.release is not None and cite.kind in ("line", "file"):
                    yield pytest.param(cite, id=f"{p.name}:{field}:{i}")
    # where each registered draft architecture is registered and its class defined
    for a in ARCHITECTURES:
        for i, cite in enumerate(parse_cites(a.cite)):
            if cite.release is not None and cite.kind in ("line", "file"):
                yield pytest.param(cite, id=f"{a.runtime}:{a.name}:{i}")


RELEASE_CITES = list(_release_cites())


def _listing(release) -> set[str]:
    """The release's file list, or skip (fail under DSPARK_CKPT_REQUIRE_SOURCES=1)."""
    listing = SOURCES / release.name / FILE_LIST
    if not listing.is_file():
        msg = f"{release.name} is not unpacked in {SOURCES}: run python tools/fetch_sources.py"
        if REQUIRE:
            pytest.fail(msg)
        pytest.skip(msg)
    return set(listing.read_text(encoding="utf-8").split())


@pytest.mark.parametrize("cite", RELEASE_CITES)
def test_cite_stands_in_the_release(cite):
    release = cite.release
    assert cite.wheel_path in _listing(release), f"{cite.text}: no such file in {release.name}"
    path = SOURCES / release.name / cite.wheel_path
    assert path.is_file(), f"{path} is not unpacked: rerun python tools/fetch_sources.py"
    if cite.kind == "line":
        problem = anchor_problem(cite, path.read_text(encoding="utf-8"))
        assert problem is None, f"{cite.text}: {problem}"


def test_both_releases_are_cited():
    assert {c.values[0].release.package for c in RELEASE_CITES} == set(RELEASES)


# --- the parser and the check, on strings ---------------------------------------------

SOURCE = "\n".join(f"line {i:02d}" for i in range(1, 21)) + "\n"  # "line 01" .. "line 20"


def test_a_part_is_parsed_into_path_lines_anchors_and_prose():
    c = parse_part("vllm/a/b.py:12-14,20 `x = 1` `y(` (prose; with a `quote`)")
    assert (c.kind, c.path, c.lines, c.anchors) == (
        "line",
        "vllm/a/b.py",
        ((12, 14), (20, 20)),
        ("x = 1", "y("),
    )
    assert c.release == RELEASES["vllm"] and c.wheel_path == "vllm/a/b.py"
    sg = parse_part("python/sglang/srt/models/dflash.py:3 `a`")
    assert sg.release == RELEASES["sglang"] and sg.wheel_path == "sglang/srt/models/dflash.py"
    # the versions and commit below are arbitrary examples of the form, not the releases read
    older = parse_part("vllm/x.py@0.32.1:3 `a`")
    assert older.release.name == "vllm-0.32.1" and older.wheel_path == "vllm/x.py"
    trt = parse_part("tensorrt_llm/m.py@40289c86:Eagle3DraftModel.__init__() (fc width)")
    assert (trt.kind, trt.ref, trt.func, trt.release) == (
        "function",
        "40289c86",
        "Eagle3DraftModel.__init__()",
        None,
    )
    assert parse_part("vllm/x.py (no input_norm)").kind == "file"
    assert parse_part("vllm PR #53458 (before it)").kind == "prose"


def test_semicolons_inside_parentheses_and_backticks_are_prose():
    value = "vllm/a.py:1 `p; q` (x; y); vllm PR #1 (a; b); vllm/b.py (none)"
    assert split_parts(value) == [
        "vllm/a.py:1 `p; q` (x; y)",
        "vllm PR #1 (a; b)",
        "vllm/b.py (none)",
    ]


@pytest.mark.parametrize(
    "text,problem",
    [
        ("vllm/a.py:12 (no anchor)", "without an anchor"),
        ("see vllm/a.py:12 `x`", "inside prose"),
        ("vllm/a.py:12, vllm/b.py:3 `x`", "inside prose"),
        ("interfaces.py:1616 `x`", "outside a vLLM/SGLang release"),
        ("tensorrt_llm/m.py:Foo.bar()", "without the commit"),
        ("tensorrt_llm/m.py (none)", "neither in a vLLM/SGLang release nor at a named commit"),
        ("vllm/a.py:14-12 `x`", "empty"),
    ],
)
def test_a_malformed_part_is_named(text, problem):
    assert problem in form_problem(parse_part(text))


@pytest.mark.parametrize(
    "text",
    [
        "vllm/a.py:12 `line 12`",
        "vllm/a.py:12 `line 07`",  # 5 lines before
        "vllm/a.py:12-13 `line 18`",  # 5 lines after the range
        "vllm/a.py:2,15-16 `line 01` `line 20`",  # one anchor near each range
        "tensorrt_llm/m.py@40289c86:Foo.bar() (prose)",
        "python/sglang/srt/x.py (no such code)",
    ],
)
def test_a_sound_part_passes(text):
    cite = parse_part(text)
    assert form_problem(cite) is None
    if cite.kind == "line":
        assert anchor_problem(cite, SOURCE) is None


@pytest.mark.parametrize(
    "text,problem",
    [
        (
            "vllm/a.py:12 `line 06`",
            "`line 06` is not within 5 lines of the cited lines (found at 6)",
        ),
        (
            "vllm/a.py:12 `gone`",
            "`gone` is not within 5 lines of the cited lines (not in the file)",
        ),
        ("vllm/a.py:2,15 `line 01`", "no anchor stands near line 15"),
        ("vllm/a.py:19-21 `line 20`", "line 21 is past the end (20 lines)"),
    ],
)
def test_a_drifted_cite_is_named(text, problem):
    assert anchor_problem(parse_part(text), SOURCE) == problem


def test_a_real_cite_moved_off_its_lines_fails():
    """The real check on a real cite: the same anchor twenty lines away is drift."""
    value = PROFILES["vllm"].cites["missing_lm_head"]
    cite = parse_cites(value)[0]
    (first, last), anchor = cite.lines[0], cite.anchors[0]
    text = "\n".join(["pad"] * (last + 30))
    moved = text.splitlines()
    moved[last + 20] = anchor
    assert "not within 5 lines" in anchor_problem(cite, "\n".join(moved))
    moved[first] = anchor  # back within the cited lines
    assert anchor_problem(cite, "\n".join(moved)) is None


# --- tools/fetch_sources.py -------------------------------------------------------------


def _wheel(folder: Path, release, files: dict[str, str]) -> Path:
    whl = folder / f"{release.package}-{release.version}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return whl


def _cited_releases() -> set:
    """Every release a profile's cite names (the wheels the tool needs)."""
    return {
        c.release
        for p in PROFILES.values()
        for v in p.cites.values()
        for c in parse_cites(v)
        if c.kind in ("line", "file") and c.release is not None
    }


def test_fetch_sources_unpacks_only_the_cited_files_and_reuses_wheels(tmp_path):
    """Reuses the wheels of --wheels (no download), unpacks the cited files only, lists the
    wheel's files, and names a cited file the release lacks."""
    vllm, sglang = RELEASES["vllm"], RELEASES["sglang"]
    cited = parse_cites(PROFILES["vllm"].cites["reduced_when"])[0]
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, vllm, {cited.wheel_path: "x = 1\n", "vllm/other.py": "y = 2\n"})
    _wheel(wheels, sglang, {"sglang/README.md": "r\n"})
    for other in _cited_releases() - {vllm, sglang}:  # a path@VERSION cite's release
        _wheel(wheels, other, {f"{other.package}/README.md": "r\n"})
    dest = tmp_path / "cache"
    env = {**os.environ, "DSPARK_CKPT_SOURCES": str(dest)}
    cmd = [sys.executable, str(ROOT / "tools/fetch_sources.py"), "--wheels", str(wheels)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (dest / vllm.name / cited.wheel_path).read_text() == "x = 1\n"
    assert not (dest / vllm.name / "vllm/other.py").exists()
    listing = (dest / vllm.name / FILE_LIST).read_text().split()
    assert listing == sorted([cited.wheel_path, "vllm/other.py"])
    assert f"cited but not in the release: {sglang.name}: sglang/srt/models/dflash.py" in r.stderr
    assert not (dest / "wheels").exists()  # nothing downloaded


def test_fetch_sources_refuses_a_cited_entry_too_large_before_unpacking_it(tmp_path):
    """A cited entry was read whole into memory (``zf.read``): a wheel whose cited file
    is a deflate bomb (32 MiB of zeros in 32 KB) cost its full size. An entry declaring
    more than a source file may have is refused before a byte of it is unpacked, naming
    it; nothing is written for it."""
    vllm, sglang = RELEASES["vllm"], RELEASES["sglang"]
    cited = parse_cites(PROFILES["vllm"].cites["reduced_when"])[0]
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    whl = wheels / f"{vllm.package}-{vllm.version}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(cited.wheel_path, bytes(32 << 20))
    assert whl.stat().st_size < 1 << 20
    _wheel(wheels, sglang, {"sglang/README.md": "r\n"})
    dest = tmp_path / "cache"
    env = {**os.environ, "DSPARK_CKPT_SOURCES": str(dest)}
    cmd = [sys.executable, str(ROOT / "tools/fetch_sources.py"), "--wheels", str(wheels)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == (
        f"fetch_sources: {whl.name}: {cited.wheel_path} unpacks to {32 << 20} bytes, over the "
        f"{16 << 20} a cited source file may have\n"
    )
    assert not [p for p in (dest / vllm.name).rglob("*") if p.is_file()]
