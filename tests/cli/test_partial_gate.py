"""``check`` says partial in every format and fails a partial run unless allowed: the
exit codes, each format naming the checks not made, ``--allow-partial``, ``check -h``;
and a Hub target (config and headers only) makes the verdict whole (docs/ci.md,
"Partial verdicts"). The gate's logic is tests/commands/test_check_partial.py's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conftest import FIXTURES, ROOT, cli, cli_subprocess

SARIF_SCHEMA = json.loads((ROOT / "tests/data/sarif-schema-2.1.0.json").read_text())
EAGLE, PADDED, SMALL = FIXTURES / "pruned-eagle3", FIXTURES / "padded", FIXTURES / "targets/small"
CODES = "DSC650, DSC651, DSC671, DSC687, DSC693, DSC701, DSC702, DSC703, DSC705, DSC710, DSC711"
REASON = "the target's weights live on the serving cluster only"


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """Three pairs: a whole verdict, a partial one, and a partial one allowed."""
    (tmp_path / "dspark-ckpt.toml").write_text(
        f'[[pairs]]\nname = "whole"\ndrafter = "{EAGLE}"\ntarget = "{SMALL}"\n'
        f'[[pairs]]\nname = "vocab"\ndrafter = "{EAGLE}"\ntarget-vocab-size = 100\n'
        f'[[pairs]]\nname = "allowed"\ndrafter = "{EAGLE}"\ntarget-vocab-size = 100\n'
        f'allow-partial = "{REASON}"\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_exit_codes(project):
    assert cli("check").exit_code == 1  # "vocab" is partial, without a reason
    assert cli("check", "--allow-partial").exit_code == 0
    (project / "dspark-ckpt.toml").write_text(
        f'allow-partial = "{REASON}"\n'
        f'[[pairs]]\nname = "vocab"\ndrafter = "{EAGLE}"\ntarget-vocab-size = 100\n'
    )
    assert cli("check").exit_code == 0
    (project / "dspark-ckpt.toml").write_text(
        f'allow-partial = ""\n[[pairs]]\ndrafter = "{EAGLE}"\ntarget-vocab-size = 100\n'
    )
    r = cli("check")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "dspark-ckpt: error: dspark-ckpt.toml: allow-partial: a partial verdict passes only "
        'with a written reason: allow-partial = "why"\n'
    )


def test_check_help_gives_the_exit_codes():
    r = cli("check", "-h", env={"COLUMNS": "200"})
    assert r.exit_code == 0
    assert "a run is partial (a check not made) and not allowed" in r.stdout
    assert "--allow-partial" in r.stdout


def test_table(project):
    r = cli("check", env={"COLUMNS": "200"})
    lines = r.stdout.splitlines()
    rows = [[c.strip() for c in ln.strip("│").split("│")] for ln in lines if ln.startswith("│")]
    assert [(row[0], row[2], row[-1]) for row in rows] == [
        ("whole", "PASS", ""),
        ("vocab", "FAIL", "partial"),
        ("allowed", "PASS", "partial (allowed)"),
    ]
    block = "\n".join(lines[lines.index("not checked: partial verdicts") :])
    assert "  vocab [vllm-eagle3]: fails the gate (no allow-partial reason)" in block
    assert f"  allowed [vllm-eagle3]: allowed: {REASON}" in block
    assert "    --target-vocab-size gives Vt alone: no tokenizer files to compare" in block
    for code in CODES.split(", "):
        assert block.count(f"      {code} ") == 2, code
    assert "allow-partial" in lines[-2]  # what to do
    assert lines[-1] == "1 of 3 check run(s) failed; partial: 1 not allowed, 1 allowed"
    assert cli("check", "-q").stdout == lines[-1] + "\n"


def test_table_lists_runs_that_skipped_the_same_checks_once(project):
    (project / "dspark-ckpt.toml").write_text(
        "".join(
            f'[[pairs]]\nname = "{n}"\ndrafter = "{EAGLE}"\ntarget-vocab-size = 100\n'
            for n in ("a", "b")
        )
    )
    lines = cli("check", env={"COLUMNS": "200"}).stdout.splitlines()
    at = lines.index("not checked: partial verdicts")
    assert (
        lines[at + 1]
        == "  a [vllm-eagle3], b [vllm-eagle3]: fails the gate (no allow-partial reason)"
    )
    assert sum(line.strip().startswith("DSC651 ") for line in lines) == 1


def test_json(project):
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    runs = {run["name"]: run for run in r.json["runs"]}
    assert [(n, run["ok"], run["partial"]) for n, run in runs.items()] == [
        ("whole", True, False),
        ("vocab", False, True),
        ("allowed", True, True),
    ]
    assert ", ".join(n["code"] for n in runs["vocab"]["not_checked"]) == CODES
    assert runs["vocab"]["not_checked"][0]["reason"].startswith("--target-vocab-size gives")
    assert (runs["vocab"]["allow_partial"], runs["allowed"]["allow_partial"]) == (None, REASON)
    assert r.json["partial"] is True and r.json["ok"] is False


def test_junit(project):
    suite = ET.fromstring(cli("check", "--format", "junit").stdout)
    cases = {c.get("classname"): c for c in suite.iter("testcase")}
    assert suite.get("failures") == "1"
    assert cases["dspark-ckpt.whole"].find("failure") is None
    failure = cases["dspark-ckpt.vocab"].find("failure")
    assert failure.get("type") == "partial"
    assert failure.get("message") == f"partial: 11 check(s) not made ({CODES})"
    assert "no tokenizer files to compare (DSC710, DSC711)" in failure.text
    allowed = cases["dspark-ckpt.allowed"]
    assert allowed.find("failure") is None
    out = allowed.find("system-out").text
    assert out.startswith(f"partial: 11 check(s) not made (allowed: {REASON}): ")
    assert "(DSC650, DSC651, DSC671, DSC687, DSC693, DSC701, DSC702, DSC703, DSC705)" in out


def test_sarif(project):
    sarif = json.loads(cli("check", "--format", "sarif").stdout)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    [run] = sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    partial = [r for r in run["results"] if r["ruleId"] == "not-checked"]
    assert [(r["level"], r["message"]["text"].split(":")[0]) for r in partial] == [
        ("error", "vocab"),
        ("note", "allowed"),
    ]
    for r in partial:
        assert rules[r["ruleIndex"]]["id"] == "not-checked"
        assert ", ".join(n["code"] for n in r["properties"]["not_checked"]) == CODES
        [loc] = r["locations"]
        assert loc["physicalLocation"]["artifactLocation"]["uri"].endswith("/config.json")
    assert [r["properties"]["allow_partial"] for r in partial] == [None, REASON]
    assert "DSC651" in partial[0]["message"]["text"]


def test_github(project):
    lines = cli("check", "--format", "github").stdout.splitlines()
    config = EAGLE / "config.json"
    assert [line.split("::")[1] for line in lines] == [
        f"error file={config},title=partial",
        f"notice file={config},title=partial",
    ]
    assert (
        lines[0]
        .split("::")[2]
        .startswith(
            "vocab [vllm-eagle3]: partial: 11 check(s) not made (fails the gate: allow it with "
            'allow-partial = "why", or --allow-partial): --target-vocab-size gives Vt alone: '
        )
    )
    assert "(DSC650, DSC651, DSC671, DSC687, DSC693, DSC701, DSC702, DSC703, DSC705)" in lines[0]
    assert f"allowed [vllm-eagle3]: partial: 11 check(s) not made (allowed: {REASON}): " in lines[1]
    assert "(DSC710, DSC711)" in lines[1]


def test_allow_partial_flag_shows_in_every_format(project):
    r = cli("check", "--allow-partial", "--format", "json")
    assert r.exit_code == 0
    reasons = {run["name"]: run["allow_partial"] for run in r.json["runs"]}
    # a pair's own reason wins; the flag gives the others theirs
    assert reasons == {"whole": "--allow-partial", "vocab": "--allow-partial", "allowed": REASON}
    gh = cli("check", "--allow-partial", "--format", "github").stdout
    assert "vocab [vllm-eagle3]: partial: 11 check(s) not made (allowed: --allow-partial)" in gh
    assert "::error" not in gh


def test_inspect_says_partial_in_its_ci_formats_and_keeps_its_exit_code():
    """docs/inspect.md: inspect is no gate; its CI formats say partial all the same."""
    args = ("inspect", EAGLE, "--target-vocab-size", "100", "--format")
    gh = cli(*args, "github")
    assert gh.exit_code == 0
    [line] = gh.stdout.splitlines()
    assert line.startswith(f"::notice file={EAGLE / 'config.json'},title=partial::")
    assert "partial: 11 check(s) not made: " in line and "(DSC710, DSC711)" in line
    junit = ET.fromstring(cli(*args, "junit").stdout)
    [case] = junit.iter("testcase")
    assert case.find("failure") is None
    assert case.find("system-out").text.startswith("partial: 11 check(s) not made: ")
    sarif = json.loads(cli(*args, "sarif").stdout)
    [result] = sarif["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("not-checked", "note")


@pytest.mark.slow
def test_a_hub_target_makes_the_verdict_whole(tmp_path):
    """docs/ci.md: target = "hf://org/name" gives the checks a bare vocab size cannot
    (the target's config, its embedding rows from the weights' header), reading only the
    listing, the JSON files and the safetensors headers: no weight byte leaves the server.
    Offline, from a Hub cache that holds the target, the same."""
    from hubserver import HubServer, build_cache, closed_port, hub_env, repo_from_dir

    repos = {"org/small": repo_from_dir(SMALL)}
    (tmp_path / "dspark-ckpt.toml").write_text(
        f'[[pairs]]\nname = "hub"\ndrafter = "{EAGLE}"\ntarget = "hf://org/small"\n'
        f'[[pairs]]\nname = "vocab"\ndrafter = "{EAGLE}"\ntarget-vocab-size = 100\n'
    )
    with HubServer(repos) as hub:
        env = hub_env(tmp_path, hub.url)
        r = cli_subprocess("check", "--format", "json", env=env, cwd=tmp_path)
    out = json.loads(r.stdout)
    runs = {run["name"]: run for run in out["runs"]}
    assert (runs["hub"]["ok"], runs["hub"]["partial"], runs["hub"]["not_checked"]) == (
        True,
        False,
        [],
    )
    assert runs["hub"]["target"] == "hf://org/small"
    assert (runs["vocab"]["ok"], runs["vocab"]["partial"]) == (False, True)
    assert r.returncode == 1, r.stderr  # the vocab-only pair alone fails
    weights = repos["org/small"].files["model.safetensors"]
    header = 8 + int.from_bytes(weights[:8], "little")
    # its length, then its header: not a byte of the weights
    assert hub.data_reads("org/small", "model.safetensors") == [(0, 8), (8, header)]

    offline = tmp_path / "offline"
    build_cache(offline / "hf-cache", "org/small", repos["org/small"])
    env = hub_env(offline, closed_port(), HF_HUB_OFFLINE="1")
    r = cli_subprocess("check", "--format", "json", env=env, cwd=tmp_path)
    runs = {run["name"]: run for run in json.loads(r.stdout)["runs"]}
    assert (runs["hub"]["ok"], runs["hub"]["partial"]) == (True, False), r.stderr
