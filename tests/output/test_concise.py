"""``inspect``'s default output (``output/concise.py``), through the CLI at 60, 80 and 120
columns: one line per distinct finding, the decision as the whole last line, nothing cut
inside a word, a key or a path (issue 27 points 1 and 2)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conformance import build_real, build_target
from conftest import FIXTURES, cli

PADDED = ["inspect", FIXTURES / "padded", "--target", FIXTURES / "targets/small"]
WIDTHS = [60, 80, 120]


@pytest.fixture(scope="module")
def specforge(tmp_path_factory) -> list:
    """SpecForge's published Qwen3-8B DSpark config (its tensors, sparse) against Qwen3-8B."""
    root = tmp_path_factory.mktemp("specforge")
    drafter = build_real("specforge-qwen3-8b-dspark", root / "drafter")
    return ["inspect", drafter, "--target", build_target("Qwen3-8B", root)]


def at(columns: int, *args) -> list[str]:
    r = cli(*args, env={"COLUMNS": str(columns)})
    assert r.exit_code in (0, 1), r.stderr
    return r.stdout.splitlines()


def test_specforge_dspark_fits_15_lines_at_80_columns(specforge):
    # TensorRT-LLM's earlier DSpark route adds two findings of its own; the verdict counts
    # the names that do not fit in their own verdict, and a 'not deciding' line too long
    # for its --profile keeps to one line without it
    lines = at(80, *specforge)
    assert len(lines) <= 15, "\n".join(lines)
    assert "trtllm-dspark-legacy fails (DSC107, DSC112), not deciding" in lines
    assert len([line for line in lines[:4] if line[:1] != " "]) == 4  # the header's 4 lines
    assert lines[3].startswith("verdict  FAIL vllm (decides), vllm-legacy")
    # three distinct problems, each once: DSC107 for markov_rank under every profile
    found = [line.split(" ", 1)[0] for line in lines if re.match(r"DSC\d{3}", line)]
    assert found == ["DSC107", "DSC501", "DSC107", "DSC112"]
    # every profile but TensorRT-LLM's standalone DSpark route, which reads it nested
    assert any(
        line.endswith("[all but trtllm-dspark]") and "dflash_config.markov_rank:" in line
        for line in lines
    )
    assert sum(line.startswith("  fix:") for line in lines) == 3  # the hint once per code


def pasted(lines: list[str]) -> list[str]:
    """The argv a shell gives ``dspark-ckpt`` for the fix command of ``lines``, pasted from
    its first word to its last line (`` \\`` continuations, a trailing ``# comment``)."""
    start = next(  # not a hint's command (cut at the line's end): the fixable one
        i
        for i, line in enumerate(lines)
        if line.startswith("dspark-ckpt fix") or "(*): dspark-ckpt fix" in line
    )
    block = [lines[start][lines[start].index("dspark-ckpt fix") :]]
    while block[-1].endswith("\\"):
        block.append(lines[start + len(block)])
    script = "dspark-ckpt() { printf '%s\\n' \"$@\"; }\n" + "\n".join(block)
    run = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


@pytest.mark.parametrize("columns", WIDTHS)
@pytest.mark.parametrize("paths", ["short", "long"])
def test_the_fix_command_runs_as_pasted_and_specforge_fits_15_lines_at_80(
    specforge, columns, paths, monkeypatch
):
    """The fixable line's command names the paths given (short: relative to the working
    folder; long: the absolute paths, too long for one line at 80 columns): pasted into a
    shell, whole or over `` \\`` lines, it runs ``fix`` on them; every line fits the width,
    no path broken, and SpecForge's Qwen3-8B DSpark output keeps to 15 lines at 80."""
    _, drafter, _, target = specforge
    if paths == "short":
        monkeypatch.chdir(drafter.parent)
        drafter, target = Path(drafter.name), Path(target.name)
    lines = at(columns, "inspect", drafter, "--target", target)
    assert all(len(line) <= columns for line in lines), lines
    assert pasted(lines) == ["fix", str(drafter), "--target", str(target), "--out", "DIR"]
    assert not [line for line in lines if line.endswith("/\\")]  # paths whole
    assert "DRAFTER" not in "\n".join(lines)
    if columns == 80:
        assert len(lines) <= 15, "\n".join(lines)
    if columns == 120 or paths == "short":  # the count with the command, or in its comment
        assert "1 of 1 fixable (*)" in "\n".join(lines)


def test_a_path_longer_than_a_line_breaks_after_a_slash_and_still_runs(tmp_path):
    """A path no line holds breaks after a ``/`` with ``\\`` (the shell joins the word);
    one whose folder name alone is longer than a line keeps its placeholder."""
    deep = tmp_path / ("drafters-of-the-qwen3-family-" * 2) / "trained-with-specforge"
    shutil.copytree(FIXTURES / "padded", deep / "drafter")
    target = FIXTURES / "targets/small"
    lines = at(80, "inspect", deep / "drafter", "--target", target)
    assert all(len(line) <= 80 for line in lines), lines
    assert pasted(lines) == ["fix", str(deep / "drafter"), "--target", str(target), "--out", "DIR"]
    deeper = tmp_path / ("x" * 70) / "drafter"
    shutil.copytree(FIXTURES / "padded", deeper)
    lines = at(60, "inspect", deeper, "--target", target)
    assert all(len(line) <= 60 for line in lines), lines
    assert pasted(lines)[:2] == ["fix", "DRAFTER"]


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_last_line_is_the_whole_decision(specforge, columns):
    lines = at(columns, *specforge)
    assert all(len(line) <= columns for line in lines), lines
    quiet = cli(*specforge, "-q").stdout.strip()
    assert quiet == "NOT deployable under vLLM 0.33.0 (vllm): 1 error(s), 1 info(s)"
    if len(quiet) <= columns:
        assert lines[-1] == quiet
    else:  # shortened: the profile names alone
        assert lines[-1] == "NOT deployable under vllm: 1 error(s), 1 info(s)"


def test_a_long_decision_is_shortened_never_wrapped(tmp_path):
    args = [*PADDED[:2], "--target", FIXTURES / "targets/small", "--profile", "all"]
    quiet = cli(*args, "-q").stdout.strip()
    assert len(quiet) > 80  # every DSpark profile named with its release
    for columns in WIDTHS:
        last = at(columns, *args)[-1]
        assert len(last) <= columns and last.startswith("NOT deployable")
        assert last == quiet or columns < len(quiet)


@pytest.mark.parametrize("columns", WIDTHS)
def test_no_token_is_cut_at_any_width(specforge, columns):
    """Each subject (a key, a tensor name) whole on its line, each message cut only after a
    word: every word shown is a word of the finding or of its hint."""
    obj = cli(*specforge, "--format", "json").json
    lines = at(columns, *specforge)
    words = {"the", "runtime", "runtime's", "it"}  # said in place of runtimes, of a subject
    words |= {str(specforge[1]), str(specforge[3])}  # filled into a hint's command
    for f in [*obj["findings"], *(f for fs in obj["other_findings"].values() for f in fs)]:
        words |= set(f["message"].split()) | set((f.get("hint") or "").split())
    for line in lines:
        line = line.rsplit(" [", 1)[0] if line.endswith("]") else line  # [profiles]
        if m := re.match(r"(DSC\d{3})( [*!?])? (\S+):(.*)$", line):
            subject, message = m.group(3), m.group(4)
            assert subject in {
                "dflash_config.markov_rank",
                "dflash_config.target_layer_ids",
                "confidence_head.proj.bias",
                "draft_vocab_size",
            }, line
            shown = message.removesuffix("…").split()
            assert set(shown) <= words, line
        elif line.startswith("  fix: "):
            assert set(line[7:].removesuffix("…").split()) <= words, line
    assert "_rank" not in [line.strip() for line in lines]


def test_a_finding_shared_by_several_profiles_is_shown_once_with_them():
    lines = at(120, *PADDED)
    dsc401 = [line for line in lines if line.startswith("DSC401")]
    assert len(dsc401) == 1 and dsc401[0].endswith("[all]")
    (dsc602,) = [line for line in lines if line.startswith("DSC602")]
    assert dsc602.endswith("[all but vllm, vllm-legacy]")  # shorter than the three
    # the full tables still give one row per profile
    full = cli(*PADDED, "--format", "full", env={"COLUMNS": "120"}).stdout
    assert full.count("DSC602") >= 2 and full == cli(*PADDED, "-v", env={"COLUMNS": "120"}).stdout


def test_not_deciding_only_where_the_failure_differs(specforge):
    """vllm-legacy and sglang-dspark fail on DSC107 as the deciding vllm does: no line;
    trtllm-dspark-legacy also fails on DSC112: a line saying so, with the --profile that
    decides by it where the line holds it (at 120 columns, not at 80)."""
    wide = [line for line in at(120, *specforge) if "not deciding" in line]
    assert wide == [
        "trtllm-dspark-legacy fails (DSC107, DSC112), not deciding: --profile trtllm-dspark-legacy"
    ]
    narrow = [line for line in at(80, *specforge) if "not deciding" in line]
    assert narrow == ["trtllm-dspark-legacy fails (DSC107, DSC112), not deciding"]
    padded = [line for line in at(80, *PADDED) if "not deciding" in line]
    assert padded == [
        "vllm-legacy fails (DSC103), not deciding: --profile vllm-legacy",
        "sglang-dspark fails (DSC208, DSC683), not deciding: --profile sglang-dspark",
    ]


def test_a_partial_verdict_says_how_many_checks_were_not_made_in_one_line():
    lines = at(60, "inspect", FIXTURES / "padded", "--target-vocab-size", "100")
    assert "not checked: 14 check(s), the verdict is partial (-v: why)" in lines
    assert lines[-1] == "deployable under vLLM 0.33.0 (vllm): 1 warning(s); partial"


def test_a_shared_finding_says_only_what_holds_for_every_profile_it_names(specforge):
    """Findings that differ only by their runtime's name are one line saying ``the
    runtime``: DSC602 (SGLang and TensorRT-LLM ignore the drafter's head), DSC107 (each
    runtime reads markov_rank at the top level). No runtime or profile is named on a line
    that names others too; -v keeps each profile's own words."""
    names = {"vLLM", "SGLang", "TensorRT-LLM", "sglang-dspark", "trtllm-dspark", "vllm"}
    for columns in WIDTHS:
        lines = at(columns, *PADDED)
        (dsc602,) = [line for line in lines if line.startswith("DSC602")]
        assert dsc602.endswith(" [all but vllm, vllm-legacy]")  # SGLang and both TRT routes
        said = dsc602.rsplit(" [", 1)[0]
        assert not names & set(said.replace(",", " ").split())
        assert "but the runtime always uses" in said or columns < 120
        hint = lines[lines.index(dsc602) + 1]
        assert hint.startswith("  fix: the runtime never")
    lines = at(200, *specforge)
    (markov,) = [line for line in lines if "dflash_config.markov_rank:" in line]
    # every profile but TensorRT-LLM's standalone route, which reads the nested key
    assert markov.endswith("[all but trtllm-dspark]")
    assert "the runtime reads config.markov_rank" in markov
    assert "copy it to the top level of config.json" in "\n".join(lines)  # each line's key
    full = cli(*PADDED, "-v").stdout
    assert "but sglang-dspark always uses" in full and "but trtllm-dspark always uses" in full


def test_lines_of_one_code_whose_messages_differ_otherwise_stay_apart(specforge):
    """DSC107 on another key, under one profile: a line of its own."""
    lines = at(120, *specforge)
    dsc107 = [line for line in lines if line.startswith("DSC107")]
    assert len(dsc107) == 2 and dsc107[1].endswith("[trtllm-dspark-legacy]")
    assert "dflash_config.target_layer_ids:" in dsc107[1]


@pytest.mark.parametrize("columns", WIDTHS)
def test_hints_name_the_drafter_and_target_the_user_gave(tmp_path, columns):
    """``DRAFTER`` and ``T`` filled with the paths as typed, shell-quoted; a bare vocab
    size as ``--target-vocab-size N``; the same in ``--format full`` and the CI formats."""
    drafter = tmp_path / "my drafter"
    shutil.copytree(FIXTURES / "padded", drafter)
    target = FIXTURES / "targets/small"
    quoted = f"'{drafter}'"
    command = f"dspark-ckpt fix {quoted} --target {target} --out DIR"
    lines = at(columns, "inspect", drafter, "--target", target)
    assert not [line for line in lines if "DRAFTER" in line and len(command) + 2 <= columns]
    if len(command) + 2 <= columns:
        assert any(line.strip() == command for line in lines), lines
    full = cli("inspect", drafter, "--target", target, "-v", env={"COLUMNS": str(columns)})
    assert "DRAFTER" not in full.stdout and "--target T " not in full.stdout
    github = cli("inspect", drafter, "--target", target, "--format", "github").stdout
    assert f"`{command}`" in github and "DRAFTER" not in github
    bare = at(200, "inspect", FIXTURES / "padded", "--target-vocab-size", "100")
    wanted = "dspark-ckpt fix " + str(FIXTURES / "padded") + " --target-vocab-size 100 --out DIR"
    assert any(wanted in line for line in bare) and not any("DRAFTER" in x for x in bare)


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_header_is_four_lines_at_any_width(tmp_path, columns):
    """Long paths are shortened in their middle (``…``), the details and the verdict's
    names counted, so that the header keeps four lines; nothing else is cut."""
    deep = tmp_path / ("a-rather-long-folder-name-for-drafters-" * 2) / "and-another-level"
    shutil.copytree(FIXTURES / "padded", deep / "drafter")
    shutil.copytree(FIXTURES / "targets/small", deep / "target-with-a-rather-long-name")
    for profile in ([], ["--profile", "all"]):
        args = ["inspect", deep / "drafter", "--target", deep / "target-with-a-rather-long-name"]
        lines = at(columns, *args, *profile)
        assert [line[:9] for line in lines[:4]] == [
            "drafter  ",
            "target   ",
            "vocab    ",
            "verdict  ",
        ]
        assert lines[4].startswith("DSC"), lines
        assert all(len(line) <= columns for line in lines)
        assert lines[0].endswith("/drafter (dspark)") or "/drafter (dspark," in lines[0]
        assert "…" in lines[0] and ": Vt 100" in lines[1]
        assert lines[2].startswith("vocab    V 128, Vd 128, Vt 100 -> padded")
        assert "(decides)" in lines[3] or profile


@pytest.mark.parametrize("target", ["small", "tight"])
@pytest.mark.parametrize("colour", [True, "attributes", False])
def test_drawn_without_rich_byte_for_byte_as_rich_draws_it(target, colour):
    """The concise output's own console (``styled.py``) against Rich's: the same bytes,
    ANSI escapes included (``attributes``: NO_COLOR's bold and dim without colours)."""
    import io

    from dspark_ckpt.commands.inspect import inspect_checkpoint
    from dspark_ckpt.facts.target import open_target
    from dspark_ckpt.output.concise import print_concise
    from dspark_ckpt.output.console import DataConsole
    from dspark_ckpt.output.styled import PlainConsole

    tgt = open_target(str(FIXTURES / "targets" / target))
    report = inspect_checkpoint(str(FIXTURES / "padded"), tgt, None)
    for width in WIDTHS:
        ours, rich = io.StringIO(), io.StringIO()
        print_concise(report, PlainConsole(ours, width, colour))
        options = {"color_system": "standard", "force_terminal": True} if colour else {}
        console = DataConsole(
            rich, width=width, soft_wrap=False, no_color=colour == "attributes", **options
        )
        print_concise(report, console)
        assert ours.getvalue() == rich.getvalue()
        assert ("\x1b[" in ours.getvalue()) == bool(colour)


def test_neutral_writes_the_runtime_where_the_word_pattern_would():
    """``neutral`` finds a runtime's names by hand (no pattern compiled at each start-up);
    it writes ``the runtime`` exactly where the regular expression it replaces matched: a
    name standing alone, not inside a longer name, a path, a profile or a version."""
    from dspark_ckpt.output.concise import NEUTRAL, neutral, runtime_names
    from dspark_ckpt.profiles.registry import PROFILES

    pieces = [" ", ".", ". ", "-", "@", "_", "x", "é", "٣", "/", ":", "(", ")", ",", ".a", ".9"]
    for profile in PROFILES:
        names = runtime_names(profile)
        alternatives = "|".join(map(re.escape, names))
        pattern = re.compile(rf"(?<![\w.@-])(?:{alternatives})(?![\w@-]|\.\w)")
        texts = [f"{a}{n}{b}" for n in names for a in ["", *pieces] for b in ["", *pieces]]
        texts += [
            " ".join(names) + ".",
            "".join(names),
            f"{names[-1]}{names[0]} {names[0]}.{names[-1]} {names[-1]}..",
            "no name here",
            "",
        ]
        for text in texts:
            assert neutral(text, profile) == pattern.sub(NEUTRAL, text), (profile, text)
    assert neutral("vLLM refuses it", None) == "vLLM refuses it"
