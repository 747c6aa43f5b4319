"""The CI output formats (github, junit, sarif), -o/--output, --quiet, colour and progress."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conftest import FIXTURES, ROOT, cli
from rich.console import Console

from dspark_ckpt.cli.progress import DelayedProgress
from dspark_ckpt.rules.codes import CODES

SARIF_SCHEMA = json.loads((ROOT / "tests/data/sarif-schema-2.1.0.json").read_text())
PADDED, EQUAL = FIXTURES / "padded", FIXTURES / "equal"
TIGHT, SMALL = FIXTURES / "targets/tight", FIXTURES / "targets/small"


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def inspect(*args, cwd=ROOT, env=None):
    """``inspect`` run from ``cwd`` (paths in the output are relative to it)."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return cli("inspect", *args, env=env)
    finally:
        os.chdir(here)


def validate_sarif(obj: dict) -> None:
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(obj)


# ------------------------------------------------------------------- github


def test_github_one_annotation_per_finding_on_its_file():
    r = inspect("fixtures/padded", "--target", "fixtures/targets/tight", "--format", "github")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "::error file=fixtures/padded/config.json,title=DSC207::draft_vocab_size 128 exceeds "
        "the target's 112 embedding rows (lm_head.weight): sampled ids in [112, 128) index out "
        "of bounds (fix: trim the padding: `dspark-ckpt fix fixtures/padded --target "
        "fixtures/targets/tight --out DIR` cuts "
        "lm_head and draft_vocab_size to Vt rows (a padded-row mask, `--emit-mask`, keeps "
        "sampling in bounds meanwhile, but the checkpoint still fails))",
        "::warning file=fixtures/padded/model.safetensors,title=DSC401::28 padded rows "
        "[100, 128) can be sampled (no runtime masks them): each becomes an illegal target "
        "token, or an out-of-bounds index at or above Et 112 (fix: trim the padding: "
        "`dspark-ckpt fix fixtures/padded --target fixtures/targets/tight --out DIR` cuts the "
        "head to Vt rows (or apply a "
        "padded-row mask in the serving code: `--emit-mask`))",
    ]
    assert r.stderr == ""


def test_github_info_is_a_notice_and_clean_prints_nothing():
    r = inspect("fixtures/equal", "--target", "fixtures/targets/small", "--format", "github")
    assert r.exit_code == 0
    assert r.stdout.splitlines() == [
        "::notice file=fixtures/equal/config.json,title=DSC501::draft_vocab_size is missing: "
        "vLLM and TensorRT-LLM use vocab_size 100 (SGLang does not read the key); the "
        "speculators library would default to 32000 (fix: write "
        "draft_vocab_size explicitly in config.json)"
    ]
    clean = inspect(
        "fixtures/pruned-eagle3", "--target", "fixtures/targets/small", "--format", "github"
    )
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_github_escapes_properties_and_data(tmp_path):
    bad = tmp_path / "a,b:c"
    bad.mkdir()
    (bad / "config.json").write_text('{"vocab_size": 100}')
    (bad / "model.safetensors").write_bytes(b"\xff" * 4)
    r = cli("inspect", bad, "--target-vocab-size", "100", "--format", "github")
    assert r.exit_code == 1
    [line] = r.stdout.splitlines()
    path = str(bad / "model.safetensors").replace(":", "%3A").replace(",", "%2C")
    assert line.startswith(f"::error file={path},title=DSC001::")
    assert "\n" not in line and "\r" not in line


# -------------------------------------------------------------------- junit


def test_junit_failure_for_errors_and_warnings_in_system_out():
    r = cli("inspect", PADDED, "--target", TIGHT, "--format", "junit")
    assert r.exit_code == 1
    root = ET.fromstring(r.stdout)
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures")) == ("1", "1")
    [case] = root.iter("testcase")
    assert case.get("name") == "vllm"
    [failure] = case.findall("failure")
    assert failure.get("type") == "DSC207"
    assert failure.get("message") == "1 error(s): DSC207"
    assert "DSC207" in failure.text and "config.json" in failure.text
    assert "DSC401" in case.find("system-out").text


def test_junit_passing_run_has_no_failure():
    r = cli("inspect", PADDED, "--target", SMALL, "--format", "junit")
    assert r.exit_code == 0
    root = ET.fromstring(r.stdout)
    assert root.get("failures") == "0"
    [case] = root.iter("testcase")
    assert case.find("failure") is None


# -------------------------------------------------------------------- sarif


@pytest.mark.parametrize(
    ("drafter", "target", "codes"),
    [
        (PADDED, TIGHT, ["DSC207", "DSC401"]),
        (PADDED, SMALL, ["DSC401"]),
        (FIXTURES / "pruned-eagle3", SMALL, []),
    ],
)
def test_sarif_validates_against_the_2_1_0_schema(drafter, target, codes):
    r = cli("inspect", drafter, "--target", target, "--format", "sarif")
    obj = json.loads(r.stdout)
    validate_sarif(obj)
    [run] = obj["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == list(CODES)  # one rule per finding code
    assert [res["ruleId"] for res in run["results"]] == codes
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        [loc] = res["locations"]
        assert loc["physicalLocation"]["artifactLocation"]["uri"].startswith("file://")


def test_sarif_levels_and_relative_uris():
    r = inspect("fixtures/padded", "--target", "fixtures/targets/tight", "--format", "sarif")
    obj = json.loads(r.stdout)
    validate_sarif(obj)
    results = obj["runs"][0]["results"]
    assert [
        (x["level"], x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for x in results
    ] == [
        ("error", "fixtures/padded/config.json"),
        ("warning", "fixtures/padded/model.safetensors"),
    ]
    assert results[1]["locations"][0]["logicalLocations"] == [
        {"name": "lm_head.weight", "kind": "member"}
    ]


def test_sarif_schema_rejects_a_broken_log():
    """The shipped schema really validates: a result without a message is refused."""
    obj = json.loads(cli("inspect", PADDED, "--target", TIGHT, "--format", "sarif").stdout)
    del obj["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(obj)


# ------------------------------------------------------------- -o, --quiet


@pytest.mark.parametrize("fmt", ["table", "json", "github", "junit", "sarif"])
def test_output_file_gets_what_stdout_would(tmp_path, fmt):
    out = tmp_path / f"report.{fmt}"
    out.write_text("old contents")  # like ruff's --output-file: replaced
    r = cli("inspect", PADDED, "--target", TIGHT, "--format", fmt, "-o", out)
    assert r.exit_code == 1
    assert r.stdout == ""
    direct = cli("inspect", PADDED, "--target", TIGHT, "--format", fmt)
    if fmt == "table":
        assert "NOT deployable under vLLM 0.33.0 (vllm)" in out.read_text(encoding="utf-8")
        assert "\x1b[" not in out.read_text(encoding="utf-8")
    else:
        assert out.read_text(encoding="utf-8") == direct.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]  # no temp file left


def test_a_pipe_gets_wide_tables():
    """A CI log is a pipe: 120 columns, not Rich's 80, unless COLUMNS says otherwise."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(ROOT)
    args = [sys.executable, "-m", "dspark_ckpt", "inspect", str(PADDED), "--target", str(TIGHT)]
    out = subprocess.run(args, capture_output=True, text=True, env=env).stdout
    assert max(map(len, out.splitlines())) == 120


def test_output_dash_is_stdout(tmp_path):
    r = inspect(PADDED, "--target", TIGHT, "--format", "json", "-o", "-", cwd=tmp_path)
    assert r.exit_code == 1 and json.loads(r.stdout)["schema"] == "dspark-ckpt/inspect/v2"
    assert list(tmp_path.iterdir()) == []


def test_output_file_is_plain_text_even_when_colour_is_forced(tmp_path):
    out = tmp_path / "report.txt"
    r = cli("inspect", PADDED, "--target", TIGHT, "-o", out, env={"FORCE_COLOR": "1"})
    assert r.exit_code == 1 and "NOT deployable" in out.read_text(encoding="utf-8")
    assert "\x1b[" not in out.read_text(encoding="utf-8")


def test_output_into_a_missing_folder_is_a_usage_error(tmp_path):
    out = tmp_path / "nope" / "report.sarif"
    r = cli("inspect", PADDED, "--target", TIGHT, "--format", "sarif", "-o", out)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.startswith(f"dspark-ckpt: error: {out}: cannot write")
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
    assert not out.parent.exists()


def test_quiet_table_prints_only_the_verdict():
    r = cli("inspect", PADDED, "--target", TIGHT, "--quiet")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "NOT deployable under vLLM 0.33.0 (vllm): 1 error(s), 1 warning(s)"
    ]
    assert r.stderr == ""


def test_quiet_does_not_change_machine_output():
    loud = cli("inspect", PADDED, "--target", TIGHT, "--format", "sarif")
    assert (
        cli("inspect", PADDED, "--target", TIGHT, "--format", "sarif", "-q").stdout == loud.stdout
    )


# ------------------------------------------------------------------- colour

COLOUR = re.compile(r"\x1b\[[0-9;]*3[0-7][;m]")


def test_colour_only_on_a_terminal_and_never_with_no_color():
    args = ("fixtures/padded", "--target", "fixtures/targets/tight")
    plain = inspect(*args)  # stdout is not a terminal
    assert "\x1b[" not in plain.stdout
    forced = inspect(*args, env={"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"})
    assert COLOUR.search(forced.stdout)
    no_color = inspect(*args, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert not COLOUR.search(no_color.stdout)
    assert "NOT deployable" in no_color.stdout
    machine = inspect(*args, "--format", "json", env={"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"})
    assert "\x1b[" not in machine.stdout and json.loads(machine.stdout)["schema"]


# ----------------------------------------------------------------- progress


def _terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=80), buf


def test_progress_appears_for_slow_work():
    console, buf = _terminal()
    with DelayedProgress("checking", 2, console, enabled=True, delay=0.05) as bar:
        time.sleep(0.3)
        bar.advance("first")
        time.sleep(0.2)
        bar.advance("[bold]second[/bold]")  # a file name is data, not markup
        time.sleep(0.2)
    assert "checking" in buf.getvalue() and "[bold]second[/bold]" in buf.getvalue()


def test_progress_silent_for_quick_work_and_when_disabled():
    console, buf = _terminal()
    with DelayedProgress("checking", 2, console, enabled=True, delay=5) as bar:
        bar.advance("a")
    with DelayedProgress("checking", 1, console, enabled=False, delay=0) as bar:
        time.sleep(0.1)
        bar.advance("b")
    assert buf.getvalue() == ""


def test_sarif_uris_are_percent_encoded_and_rules_in_code_order(tmp_path):
    shutil.copytree(PADDED, tmp_path / "my dir,a:b%c")
    r = inspect("my dir,a:b%c", "--target-vocab-size", "100", "--format", "sarif", cwd=tmp_path)
    sarif = json.loads(r.stdout)
    validate_sarif(sarif)
    (run,) = sarif["runs"]
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for res in run["results"]
        for loc in res["locations"]
    }
    # the finding on the weights; the partial verdict (a bare vocab size) on the config
    assert uris == {"my%20dir%2Ca%3Ab%25c/model.safetensors", "my%20dir%2Ca%3Ab%25c/config.json"}
    ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    # the codes in order, then the rule of a partial run's result (only where one is)
    assert ids == [*CODES, "not-checked"]


def test_several_profiles_each_get_their_own_run():
    """JUnit, SARIF and annotations blame a profile's error on that profile alone."""
    args = (PADDED, "--target", FIXTURES / "targets/small", "--profile", "vllm,vllm-legacy")
    junit = ET.fromstring(cli("inspect", *args, "--format", "junit").stdout)
    failed = {case.get("name"): case.find("failure") is not None for case in junit.iter("testcase")}
    assert failed == {"vllm": False, "vllm-legacy": True}
    sarif = cli("inspect", *args, "--format", "sarif").json
    blamed = [(r["ruleId"], r["properties"]["profiles"]) for r in sarif["runs"][0]["results"]]
    assert blamed == [("DSC401", ["vllm", "vllm-legacy"]), ("DSC103", ["vllm-legacy"])]
    (dsc103,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "DSC103"]
    assert dsc103["message"]["text"].startswith("[vllm-legacy] no d2t mapping")
    gh = cli("inspect", *args, "--format", "github").stdout.splitlines()
    assert [line.split("::")[1] for line in gh] == [
        f"warning file={PADDED / 'model.safetensors'},title=DSC401",
        f"error file={PADDED / 'config.json'},title=DSC103",
    ]  # a finding common to both profiles is annotated once
    assert gh[1].split("::")[2].startswith("[vllm-legacy] no d2t mapping")  # whose rule


def test_github_paths_are_relative_to_the_workspace():
    """The action run in a subfolder: GitHub reads annotation paths from the repo root."""
    args = ("padded", "--target", "targets/small", "--profile", "vllm-legacy")
    env = {"GITHUB_WORKSPACE": str(ROOT)}
    gh = inspect(*args, "--format", "github", cwd=FIXTURES, env=env).stdout
    assert "::error file=fixtures/padded/config.json,title=DSC103::" in gh
    sarif = json.loads(inspect(*args, "--format", "sarif", cwd=FIXTURES, env=env).stdout)
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for res in sarif["runs"][0]["results"]
        for loc in res["locations"]
    }
    assert uris == {"fixtures/padded/config.json", "fixtures/padded/model.safetensors"}
    assert "file=padded/config.json" in inspect(*args, "--format", "github", cwd=FIXTURES).stdout


def test_sarif_keeps_hub_file_uris():
    from dspark_ckpt.output.sarif import file_uri

    uri = "hf://org/padded@0123abcd/model.safetensors"
    assert file_uri(uri) == uri
    assert file_uri("fixtures/padded/config.json") == "fixtures/padded/config.json"
