"""``dspark-ckpt check``: many pairs, severity overrides, one exit code, config errors."""

from __future__ import annotations

import json
import os
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conftest import FIXTURES, ROOT, cli

SARIF_SCHEMA = json.loads((ROOT / "tests/data/sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A project folder holding copies of the fixtures, as the current folder."""
    for name in ("padded", "equal", "pruned-eagle3", "targets"):
        shutil.copytree(FIXTURES / name, tmp_path / "ckpt" / name)
    shutil.copytree(FIXTURES / "vllm-table/v100-d40-none", tmp_path / "ckpt/no-head")
    (tmp_path / "ckpt/no-vocab").mkdir()
    (tmp_path / "ckpt/no-vocab/config.json").write_text('{"model_type": "qwen3"}')
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def small_repo(tmp_path, monkeypatch) -> Path:
    """A project folder holding the one drafter a configuration error's pair names."""
    shutil.copytree(FIXTURES / "equal", tmp_path / "ckpt" / "equal")
    monkeypatch.chdir(tmp_path)
    return tmp_path


MIX = """
[tool.other]
x = 1

[tool.dspark-ckpt]
profiles = ["vllm"]
{extra}

[[tool.dspark-ckpt.pairs]]
name = "padded"
drafter = "ckpt/padded"
target = "ckpt/targets/small"
{padded}

[[tool.dspark-ckpt.pairs]]
name = "equal"
drafter = "ckpt/equal"
target = "ckpt/targets/small"

[[tool.dspark-ckpt.pairs]]
name = "pruned"
drafter = "ckpt/pruned-eagle3"
target = "ckpt/targets/small"
profiles = ["vllm-eagle3", "vllm-eagle3-legacy"]
"""


def pyproject(repo: Path, extra: str = "", padded: str = "") -> Path:
    path = repo / "pyproject.toml"
    path.write_text(MIX.format(extra=extra, padded=padded))
    return path


def summary(r) -> dict[tuple[str, str], bool]:
    return {(run["name"], run["profile"]): run["ok"] for run in r.json["runs"]}


def test_mixed_pairs_all_pass_under_vllm(repo):
    pyproject(repo)
    r = cli("check", "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json["schema"] == "dspark-ckpt/check/v2"
    assert summary(r) == {
        ("padded", "vllm"): True,
        ("equal", "vllm"): True,
        ("pruned", "vllm-eagle3"): True,
        ("pruned", "vllm-eagle3-legacy"): True,
    }
    [padded] = [run for run in r.json["runs"] if run["name"] == "padded"]
    assert [f["code"] for f in padded["findings"]] == ["DSC401"]
    assert padded["findings"][0]["file"] == str(Path("ckpt/padded/model.safetensors"))


def test_without_profiles_each_pair_gets_its_family_default(repo):
    """As inspect and fix: an EAGLE-3 drafter is judged by vllm-eagle3, a DSpark one by
    vllm; also when the target cannot be read."""
    (repo / "ckpt/broken-target").mkdir()
    shutil.copy(repo / "ckpt/targets/small/config.json", repo / "ckpt/broken-target")
    (repo / "ckpt/broken-target/model.safetensors").write_bytes(b"garbage!")
    (repo / "dspark-ckpt.toml").write_text(
        '[[pairs]]\nname = "e3"\ndrafter = "ckpt/pruned-eagle3"\ntarget = "ckpt/targets/small"\n'
        '[[pairs]]\nname = "ds"\ndrafter = "ckpt/padded"\ntarget = "ckpt/targets/small"\n'
        '[[pairs]]\nname = "e3-bad"\ndrafter = "ckpt/pruned-eagle3"\ntarget = "ckpt/broken-target"\n'
    )
    r = cli("check", "--format", "json")
    assert summary(r) == {
        ("e3", "vllm-eagle3"): True,
        ("ds", "vllm"): True,
        ("e3-bad", "vllm-eagle3"): False,
    }


def test_a_target_with_a_broken_config_fails_its_pair_not_the_configuration(repo):
    """exit 2 is a wrong dspark-ckpt.toml; a target whose config.json is broken fails its
    runs (DSC001 on that file) and every other pair still runs."""
    (repo / "ckpt/bad-target").mkdir()
    (repo / "ckpt/bad-target/config.json").write_text('{"vocab_size": NaN}')
    (repo / "dspark-ckpt.toml").write_text(
        '[[pairs]]\nname = "bad"\ndrafter = "ckpt/padded"\ntarget = "ckpt/bad-target"\n'
        '[[pairs]]\nname = "good"\ndrafter = "ckpt/padded"\ntarget = "ckpt/targets/small"\n'
        '[[pairs]]\nname = "no-vocab"\ndrafter = "ckpt/padded"\ntarget = "ckpt/no-vocab"\n'
    )
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    assert summary(r) == {
        ("bad", "vllm"): False,
        ("good", "vllm"): True,
        ("no-vocab", "vllm"): False,
    }
    [bad] = [run for run in r.json["runs"] if run["name"] == "bad"]
    assert [(f["code"], f["file"]) for f in bad["findings"]] == [
        ("DSC001", str(Path("ckpt/bad-target/config.json")))
    ]
    assert r.stderr.startswith("dspark-ckpt: error: ckpt/bad-target/config.json: config is not")
    missing = repo / "dspark-ckpt.toml"
    missing.write_text('[[pairs]]\ndrafter = "ckpt/padded"\ntarget = "ckpt/nope"\n')
    assert cli("check").exit_code == 2  # a path that does not exist: the configuration


def test_a_failing_pair_fails_the_gate(repo):
    pyproject(repo, padded='profiles = ["vllm", "vllm-legacy"]')
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    assert summary(r)[("padded", "vllm-legacy")] is False
    assert summary(r)[("padded", "vllm")] is True
    assert r.json["ok"] is False


def test_a_pair_names_its_profiles_by_release(repo):
    """A release-qualified name, LINE@VERSION or a line name decide as the profile they
    stand for, under its short name."""
    pyproject(repo, padded='profiles = ["vllm-dspark", "vllm-dspark@0.29.0"]')
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    assert summary(r)[("padded", "vllm-legacy")] is False
    assert summary(r)[("padded", "vllm")] is True


def test_warnings_as_errors_then_a_reasoned_ignore(repo):
    pyproject(repo, extra="warnings-as-errors = true")
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    [padded] = [run for run in r.json["runs"] if run["name"] == "padded"]
    assert [(f["code"], f["severity"]) for f in padded["findings"]] == [("DSC401", "error")]

    pyproject(
        repo,
        extra="warnings-as-errors = true",
        padded='ignore = { DSC401 = "our sampler masks rows >= Vt" }',
    )
    r = cli("check", "--format", "json")
    assert r.exit_code == 0, r.stdout
    [padded] = [run for run in r.json["runs"] if run["name"] == "padded"]
    assert padded["findings"] == []
    assert [(f["code"], f["reason"]) for f in padded["ignored"]] == [
        ("DSC401", "our sampler masks rows >= Vt")
    ]


def test_warnings_as_errors_for_listed_codes_only(repo):
    pyproject(repo, extra='warnings-as-errors = ["DSC303"]')
    assert cli("check").exit_code == 0  # DSC401 stays a warning
    pyproject(repo, extra='warnings-as-errors = ["DSC401"]')
    assert cli("check").exit_code == 1


def test_failing_and_unreadable_drafters(repo):
    (repo / "ckpt/broken").mkdir()
    (repo / "ckpt/broken/config.json").write_text('{"vocab_size": 100}')
    (repo / "ckpt/broken/model.safetensors").write_bytes(b"\x00" * 3)
    (repo / "dspark-ckpt.toml").write_text(
        """
[[pairs]]
drafter = "ckpt/no-head"
target-vocab-size = 100
[[pairs]]
drafter = "ckpt/broken"
target-vocab-size = 100
ignore = { DSC102 = "irrelevant here" }
[[pairs]]
drafter = "ckpt/equal"
target = "ckpt/targets/small"
"""
    )
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    runs = {run["name"]: run for run in r.json["runs"]}
    assert [f["code"] for f in runs["ckpt/no-head"]["findings"]] == ["DSC102", "DSC103"]
    assert [f["code"] for f in runs["ckpt/broken"]["findings"]] == ["DSC001"]
    assert runs["ckpt/broken"]["findings"][0]["file"].endswith("model.safetensors")
    assert runs["ckpt/equal"]["ok"] is True


def test_summary_table(repo):
    pyproject(repo, padded='profiles = ["vllm", "vllm-legacy"]')
    r = cli("check")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    rows = [[c.strip() for c in ln.strip("│").split("│")] for ln in lines if ln.startswith("│")]
    assert rows == [
        ["padded", "vLLM 0.33.0 (vllm)", "PASS", "padded", "0", "1", "0", "DSC401"],
        ["padded", "vLLM 0.29 (vllm-legacy)", "FAIL", "padded", "1", "1", "0", "DSC103, DSC401"],
        ["equal", "vLLM 0.33.0 (vllm)", "PASS", "equal", "0", "0", "0", ""],
        ["pruned", "vLLM 0.33.0 (vllm-eagle3)", "PASS", "pruned", "0", "0", "0", ""],
        ["pruned", "vLLM 0.29 (vllm-eagle3-legacy)", "PASS", "pruned", "0", "0", "0", ""],
    ]
    assert lines[-1] == "1 of 5 check run(s) failed"
    assert cli("check", "--quiet").stdout.splitlines() == ["1 of 5 check run(s) failed"]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_each_run_is_named_by_the_release_it_judges_by(repo, columns):
    """As inspect's verdict names it: ``vLLM 0.33.0 (vllm-eagle3)``, in the table or,
    where the table does not fit, the run's own lines."""
    pyproject(repo, padded='profiles = ["vllm", "vllm-legacy"]')
    text = cli("check", env={"COLUMNS": str(columns)}).stdout
    assert all(len(line) <= columns for line in text.splitlines())
    flat = " ".join(text.split())  # a run's words, however its line folded
    for release in ("vLLM 0.33.0 (vllm)", "vLLM 0.29 (vllm-legacy)", "vLLM 0.33.0 (vllm-eagle3)"):
        assert release in flat, text


def test_check_ci_formats(repo, tmp_path):
    pyproject(
        repo,
        padded='profiles = ["vllm", "vllm-legacy"]\nignore = { DSC401 = "masked downstream" }',
    )
    junit = ET.fromstring(cli("check", "--format", "junit").stdout)
    cases = [
        (c.get("classname"), c.get("name"), c.find("failure") is not None)
        for c in junit.iter("testcase")
    ]
    assert cases == [
        ("dspark-ckpt.padded", "vllm", False),
        ("dspark-ckpt.padded", "vllm-legacy", True),
        ("dspark-ckpt.equal", "vllm", False),
        ("dspark-ckpt.pruned", "vllm-eagle3", False),
        ("dspark-ckpt.pruned", "vllm-eagle3-legacy", False),
    ]
    assert (junit.get("tests"), junit.get("failures")) == ("5", "1")

    sarif = json.loads(cli("check", "--format", "sarif").stdout)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    suppressed = [r for r in sarif["runs"][0]["results"] if r.get("suppressions")]
    assert {r["ruleId"] for r in suppressed} == {"DSC401"}
    assert suppressed[0]["suppressions"] == [
        {"kind": "external", "justification": "masked downstream"}
    ]

    gh = cli("check", "--format", "github").stdout.splitlines()
    assert all(line.startswith("::") for line in gh)
    assert not any("DSC401" in line for line in gh)  # ignored: no annotation
    assert any(line.startswith("::error file=ckpt/padded/") for line in gh)

    out = tmp_path / "out" / "check.xml"
    out.parent.mkdir()
    r = cli("check", "--format", "junit", "-o", out)
    assert (r.exit_code, r.stdout) == (1, "")
    assert ET.parse(out).getroot().get("failures") == "1"


def test_config_file_is_found_and_named(repo):
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (repo / "ci").mkdir()
    cfg = repo / "ci" / "dspark-ckpt.toml"
    cfg.write_text('[[pairs]]\ndrafter = "../ckpt/equal"\ntarget = "../ckpt/targets/small"\n')
    r = cli("check", "--config", cfg, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert r.json["config"] == str(cfg)
    # dspark-ckpt.toml wins over pyproject.toml in the current folder
    (repo / "dspark-ckpt.toml").write_text(
        '[[pairs]]\ndrafter = "ckpt/no-head"\ntarget-vocab-size = 100\n'
    )
    assert cli("check").exit_code == 1


BAD = [
    ("[[pairs]]\ndrafter = \n", "dspark-ckpt.toml: invalid TOML"),
    ("profile = 'vllm'\n[[pairs]]\n", "dspark-ckpt.toml: profile: unknown key"),
    ("pairs = []\n", "dspark-ckpt.toml: pairs: must be a non-empty array"),
    ("[[pairs]]\ntarget-vocab-size = 100\n", "pairs[0].drafter: missing"),
    (
        "[[pairs]]\ndrafter = 'ckpt/nope'\ntarget-vocab-size = 100\n",
        "pairs[0].drafter: ckpt/nope: no such file or directory",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\n",
        "pairs[0].target: give exactly one of target and target-vocab-size",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 0\n",
        "pairs[0].target-vocab-size: must be an integer in [1, 2147483647], got 0",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 100\nprofiles = ['vllm', 'trt']\n",
        "pairs[0].profiles[1]: unknown profile 'trt'",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 100\nprofiles = ['vllm-dspark@9.0']\n",
        "pairs[0].profiles[0]: no vllm-dspark profile covers 9.0; known: vllm-dspark@",
    ),
    (
        "ignore = ['DSC401']\n[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 100\n",
        "ignore: ignoring a code needs a written reason",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 100\nignore = { DSC401 = ' ' }\n",
        "pairs[0].ignore.DSC401: ignoring a code needs a written reason",
    ),
    (
        "ignore = { DSC999 = 'why' }\n[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\n",
        "ignore.DSC999: unknown finding code 'DSC999'",
    ),
    (
        "ignore = { DSC001 = 'why' }\n[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\n",
        "ignore.DSC001: DSC001 (unreadable or malformed checkpoint) cannot be ignored",
    ),
    (
        "warnings-as-errors = ['DSC102']\n[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\n",
        "warnings-as-errors[0]: DSC102 is not a warning (error)",
    ),
    (
        "warnings-as-errors = 'yes'\n[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\n",
        "warnings-as-errors: must be true, false or a list of finding codes, got 'yes'",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\nverify = 1\n",
        "pairs[0].verify: must be true or false, got 1",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\nfoo = 1\n",
        "pairs[0].foo: unknown key",
    ),
    (
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 1\n"
        "[[pairs]]\ndrafter = 'ckpt/padded'\nname = 'ckpt/equal'\ntarget-vocab-size = 1\n",
        "pairs[1].name: duplicate pair name 'ckpt/equal' (also pairs[0])",
    ),
]


@pytest.mark.parametrize(("toml", "expected"), BAD, ids=[e for _, e in BAD])
def test_config_errors_name_the_key_and_exit_2(repo, toml, expected):
    (repo / "dspark-ckpt.toml").write_text(toml)
    r = cli("check", "--format", "json")
    assert r.exit_code == 2, r.stdout
    error = r.json["error"]  # JSON asked for: the error object, naming its kind
    assert r.json["schema"] == "dspark-ckpt/error/v1" and error["kind"] == "usage"
    assert expected in error["message"]
    [line] = r.stderr.splitlines()
    assert line.startswith("dspark-ckpt: error: ")
    assert expected in line


def test_pyproject_keys_are_named_with_their_table(repo):
    pyproject(repo, extra="verify = 'no'")
    r = cli("check")
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        "dspark-ckpt: error: pyproject.toml: tool.dspark-ckpt.verify: "
        "must be true or false, got 'no'"
    )


def test_verify_runs_once_per_pair(repo):
    pyproject(repo, extra="verify = true")
    r = cli("check", "--format", "json")
    assert r.exit_code == 0, r.stdout
    runs = {run["name"]: run for run in r.json["runs"] if run["profile"] == "verify"}
    assert sorted(runs) == ["equal", "padded", "pruned"]
    assert all(run["ok"] and run["failure"] is None for run in runs.values())


def test_verify_fails_the_pair_whose_head_cannot_be_sampled(repo):
    # Vd 40 < Vt 100 with no lm_head: inspect fails it, and verify has no head to sample
    path = pyproject(repo, extra="verify = true")
    path.write_text(
        path.read_text()
        + '\n[[tool.dspark-ckpt.pairs]]\nname = "no-head"\ndrafter = "ckpt/no-head"\n'
        + "target-vocab-size = 100\n"
    )
    r = cli("check", "--format", "json")
    assert r.exit_code == 1
    (run,) = [x for x in r.json["runs"] if x["profile"] == "verify" and x["name"] == "no-head"]
    assert run["ok"] is False and "no lm_head.weight" in run["failure"]


def test_no_configuration(repo):
    r = cli("check")
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        "dspark-ckpt: error: no dspark-ckpt.toml and no [tool.dspark-ckpt] in pyproject.toml in ."
    )
    assert "Traceback" not in r.stderr


def test_profiles_all_expands_to_every_profile_of_the_family(repo):
    """'all' runs every profile of the drafter's family; another family's never judges it."""
    from dspark_ckpt.profiles.registry import applicable_profiles

    (repo / "dspark-ckpt.toml").write_text(
        "profiles = 'all'\n[[pairs]]\ndrafter = 'ckpt/padded'\ntarget = 'ckpt/targets/small'\n"
    )
    r = cli("check", "--format", "json")
    assert [run["profile"] for run in r.json["runs"]] == applicable_profiles("dspark")
    assert r.exit_code == 1  # the padded drafter fails vllm-legacy (no lm_head/d2t rule met)


# Every key, given values of the wrong type: one line naming the exact key, exit 2, nothing
# on stdout, no traceback (cli() runs with catch_exceptions=False: one would fail the test).
WRONG = [
    "5",
    "1.5",
    "true",
    "'x'",
    "1979-05-27",
    "[]",
    "[1]",
    "[['vllm']]",
    "[{ a = 1 }]",
    "{ a = 1 }",
    "{ DSC401 = 5 }",
    "{ DSC401 = ['why'] }",
    "99999999999",
]
RIGHT = {  # values among WRONG that are valid for the key
    "verify": {"true"},
    "warnings-as-errors": {"true", "[]"},
    "name": {"'x'"},
    "target-vocab-size": {"5"},
    "allow-partial": {"'x'"},
}
GLOBAL = ["profiles", "warnings-as-errors", "ignore", "verify", "allow-partial", "pairs"]
PAIR = ["name", "drafter", "target", "target-vocab-size", *GLOBAL[:-1]]
WRONG_TYPES = [
    (where, key, value)
    for where, keys in (("", GLOBAL), ("pairs[0].", PAIR))
    for key in keys
    for value in WRONG
    if value not in RIGHT.get(key, ())
]


@pytest.mark.parametrize("table", ["", "tool.dspark-ckpt."])
@pytest.mark.parametrize(("where", "key", "value"), WRONG_TYPES)
def test_wrong_types_name_the_key_and_exit_2(small_repo, table, where, key, value):
    pair = {"drafter": "'ckpt/equal'", "target-vocab-size": "100"}
    if key == "target":
        del pair["target-vocab-size"]
    pair[key] = value
    lines = [f"{key} = {value}"] if not where else []
    if key != "pairs" or where:
        lines += [
            f"[[{table}pairs]]",
            *(f"{k} = {v}" for k, v in pair.items() if where or k != key),
        ]
    if table:
        (small_repo / "pyproject.toml").write_text(f"[{table[:-1]}]\n" + "\n".join(lines) + "\n")
    else:
        (small_repo / "dspark-ckpt.toml").write_text("\n".join(lines) + "\n")
    r = cli("check")
    assert r.exit_code == 2, r.stdout
    assert r.stdout == ""
    [line] = r.stderr.splitlines()
    file = "pyproject.toml" if table else "dspark-ckpt.toml"
    assert line.startswith(f"dspark-ckpt: error: {file}: {table}{where}{key}"), line
    assert line[len(f"dspark-ckpt: error: {file}: {table}{where}{key}")] in ":[.", line


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        (
            "[tool.dspark-ckpt]\nprofiles = [['vllm']]\n",
            "tool.dspark-ckpt.profiles[0]: expected a string, got an array",
        ),
        (
            "[tool.dspark-ckpt]\nwarnings-as-errors = [['DSC401']]\n",
            "tool.dspark-ckpt.warnings-as-errors[0]: expected a string (a finding code), "
            "got an array",
        ),
        (
            "[tool.dspark-ckpt]\nignore = { DSC401 = 5 }\n",
            "tool.dspark-ckpt.ignore.DSC401: expected a string (the reason), got 5",
        ),
        (
            "[tool.dspark-ckpt]\n[[tool.dspark-ckpt.pairs]]\ndrafter = 'ckpt/equal'\n"
            "target-vocab-size = 100\nname = 1979-05-27\n",
            "tool.dspark-ckpt.pairs[0].name: expected a string, got a date (1979-05-27)",
        ),
        ("tool = 5\n", "tool: must be a table, got 5"),
        ("[tool]\ndspark-ckpt = [1]\n", "tool.dspark-ckpt: must be a table, got an array"),
    ],
)
def test_wrong_types_in_pyproject_exact_messages(repo, toml, expected):
    if toml.startswith("[tool.dspark-ckpt]") and "pairs" not in toml:  # with a valid pair
        toml += "[[tool.dspark-ckpt.pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 100\n"
    (repo / "pyproject.toml").write_text(toml)
    for args in ((), ("--config", "pyproject.toml")):  # found, and named
        r = cli("check", *args)
        assert (r.exit_code, r.stdout) == (2, ""), r.stderr
        assert "Traceback" not in r.stderr
        assert r.stderr == f"dspark-ckpt: error: pyproject.toml: {expected}\n"


def test_unreadable_drafter_says_why_in_the_table_and_on_stderr(repo):
    from dspark_ckpt.source.safetensors import SHORT_HINT

    (repo / "ckpt/broken").mkdir()
    (repo / "ckpt/broken/config.json").write_text('{"vocab_size": 100}')
    (repo / "ckpt/broken/model.safetensors").write_bytes(b"\x00" * 3)
    (repo / "dspark-ckpt.toml").write_text(
        "profiles = ['vllm', 'vllm-legacy']\n"
        "[[pairs]]\nname = 'broken'\ndrafter = 'ckpt/broken'\ntarget-vocab-size = 100\n"
    )
    problem = (
        f"{Path('ckpt/broken/model.safetensors')}: file is 3 bytes; "
        "a safetensors file starts with an 8-byte header length"
    )
    for fmt in ("table", "json", "junit"):
        r = cli("check", "--format", fmt)
        assert r.exit_code == 1
        # once, not once per profile; a file cut short says to download it again
        assert r.stderr == f"dspark-ckpt: error: {problem}; {SHORT_HINT}\n"
    r = cli("check", env={"COLUMNS": "400"})
    rows = [[c.strip() for c in ln.strip("│").split("│")] for ln in r.stdout.splitlines()]
    details = [row[-1] for row in rows if row[0] == "broken"]
    assert details == [f"DSC001 {problem}"] * 2


def test_target_vocab_size_is_bounded_where_it_is_configured(repo):
    (repo / "dspark-ckpt.toml").write_text(
        "[[pairs]]\ndrafter = 'ckpt/equal'\ntarget = 'ckpt/targets/small'\n"
        "[[pairs]]\ndrafter = 'ckpt/padded'\ntarget-vocab-size = 99999999999\n"
    )
    r = cli("check")
    assert (r.exit_code, r.stdout) == (2, "")  # refused before the first pair runs
    assert r.stderr == (
        "dspark-ckpt: error: dspark-ckpt.toml: pairs[1].target-vocab-size: "
        "must be an integer in [1, 2147483647], got 99999999999\n"
    )


def test_config_that_is_a_directory(repo):
    (repo / "ci").mkdir()
    r = cli("check", "--config", "ci")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "dspark-ckpt: error: ci: is a directory; --config takes a dspark-ckpt.toml or "
        "pyproject.toml\n"
    )


@pytest.mark.parametrize("name", ["dspark-ckpt.toml", "ci.toml"])
def test_tool_table_outside_pyproject_gets_a_hint(repo, name):
    (repo / name).write_text(
        "[tool.dspark-ckpt]\nprofiles = ['vllm']\n"
        "[[tool.dspark-ckpt.pairs]]\ndrafter = 'ckpt/equal'\ntarget-vocab-size = 100\n"
    )
    r = cli("check", "--config", name)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"dspark-ckpt: error: {name}: tool: unknown key; {name} takes the keys at top "
        "level (without the [tool.dspark-ckpt] table, which is for pyproject.toml)\n"
    )


def test_each_header_is_read_once_per_run(repo):
    """A target shared by pairs and a drafter checked against two targets: one read of
    each file's header in a run."""
    from collections import Counter

    from dspark_ckpt.commands.check import run_check
    from dspark_ckpt.commands.check_config import load_config
    from dspark_ckpt.source.base import on_header

    (repo / "dspark-ckpt.toml").write_text(
        "".join(
            f'[[pairs]]\nname = "{d}-{t}"\ndrafter = "ckpt/{d}"\ntarget = "ckpt/targets/{t}"\n'
            for d in ("padded", "equal", "pruned-eagle3")
            for t in ("small", "tight")
        )
    )
    reads: Counter[str] = Counter()
    token = on_header.set(lambda path: reads.update([str(path)]))
    try:
        assert len(run_check(load_config()).runs) == 6
    finally:
        on_header.reset(token)
    assert len(reads) == 5 and set(reads.values()) == {1}, reads  # 3 drafters, 2 targets


def test_a_cached_header_is_read_again_once_its_file_changed(repo):
    from dspark_ckpt.source.base import header_cache, on_header
    from dspark_ckpt.source.checkpoint import load_checkpoint

    reads = []
    tokens = on_header.set(reads.append), header_cache.set({})
    try:
        load_checkpoint("ckpt/padded")
        load_checkpoint("ckpt/padded")
        assert len(reads) == 1
        weights = repo / "ckpt/padded/model.safetensors"
        os.utime(weights, ns=(1, 1))  # as a rewrite of the same size would
        assert load_checkpoint("ckpt/padded").tensors
        assert len(reads) == 2
    finally:
        on_header.reset(tokens[0])
        header_cache.reset(tokens[1])


def test_also_writes_every_report_from_one_run(repo):
    """--also: the reports another --format would print, from the same run, each byte for
    byte what that format gives; `-` appends to stdout after the main output."""
    (repo / "pyproject.toml").write_text(MIX.format(extra="", padded=""))
    (repo / "out").mkdir()
    r = cli(
        "check",
        "--format",
        "github",
        "--also",
        "sarif:out/r.sarif",
        "--also",
        "junit:r.xml",
        "--also",
        "json:r.json",
        "--also",
        "table:-",
    )
    alone = {fmt: cli("check", "--format", fmt) for fmt in ("github", "sarif", "junit", "json")}
    assert r.exit_code == alone["github"].exit_code
    assert r.stdout.startswith(alone["github"].stdout)
    assert r.stdout[len(alone["github"].stdout) :] == cli("check").stdout
    assert (repo / "out/r.sarif").read_text() == alone["sarif"].stdout
    assert (repo / "r.xml").read_text() == alone["junit"].stdout
    assert json.loads((repo / "r.json").read_text()) == alone["json"].json


@pytest.mark.parametrize("spec", ["sarif", "pdf:x", "sarif:", ":x"])
def test_also_needs_a_format_and_a_path(repo, spec):
    (repo / "pyproject.toml").write_text(MIX.format(extra="", padded=""))
    before = sorted(p.name for p in repo.iterdir())
    r = cli("check", "--also", spec)
    assert r.exit_code == 2 and "FORMAT:PATH" in r.stderr
    assert sorted(p.name for p in repo.iterdir()) == before


def test_an_also_file_that_cannot_be_written_stops_before_any_output(repo):
    (repo / "pyproject.toml").write_text(MIX.format(extra="", padded=""))
    r = cli("check", "--also", "sarif:missing/r.sarif")
    assert r.exit_code == 2 and r.stdout == ""
    assert "missing/r.sarif: cannot write" in r.stderr
