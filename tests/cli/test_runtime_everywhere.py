"""``--runtime`` on every command that takes a profile, and what the verdict says of it
(issue 27 point 3); ``profiles`` at 80 columns (point 9)."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, cli

from dspark_ckpt.output.table import SOURCES_SHOWN
from dspark_ckpt.profiles.registry import PROFILES

SMALL = FIXTURES / "targets/small"
PADDED = FIXTURES / "padded"
EAGLE3 = FIXTURES / "pruned-eagle3"


def test_the_verdict_names_the_release_it_judged_by():
    r = cli("inspect", EAGLE3, "--target", SMALL, "--runtime", "vllm==0.32.1", "-q")
    assert r.exit_code == 0
    assert r.stdout == "deployable under vLLM 0.33.0 (vllm-eagle3): clean\n"
    legacy = cli("inspect", EAGLE3, "--target", SMALL, "--runtime", "vllm==0.29.1", "-q")
    assert legacy.stdout.startswith("deployable under vLLM 0.29 (vllm-eagle3-legacy)")
    # the concise output's last line says the same
    assert cli("inspect", PADDED, "--target", SMALL).stdout.splitlines()[-1] == (
        "deployable under vLLM 0.33.0 (vllm): 1 warning(s)"
    )


def test_a_profile_of_another_family_is_a_usage_error_naming_the_right_one():
    r = cli("inspect", EAGLE3, "--target", SMALL, "--profile", "vllm")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("dspark-ckpt: error: --profile vllm judges dspark drafters")
    assert "use --profile vllm-eagle3" in r.stderr and r.stderr.count("\n") == 1
    # 'all' is the family's: no error
    assert cli("inspect", EAGLE3, "--target", SMALL, "--profile", "all").exit_code == 0


def test_a_runtime_without_version_is_its_newest_release_and_says_so():
    r = cli("inspect", EAGLE3, "--target", SMALL, "--runtime", "vllm", "-q")
    assert r.exit_code == 0
    assert r.stderr == "dspark-ckpt: --runtime vllm: the newest release, vllm==0.33.0\n"
    assert r.stdout.startswith("deployable under vLLM 0.33.0 (vllm-eagle3)")
    bad = cli("inspect", EAGLE3, "--target", SMALL, "--runtime", "nope")
    assert bad.exit_code == 2 and "RUNTIME==VERSION" in bad.stderr


def test_fix_takes_runtime(tmp_path):
    args = ["fix", PADDED, "--target", SMALL, "--diff", "--format", "json"]
    assert cli(*args, "--runtime", "sglang==0.5.23").json["profiles"] == ["sglang-dspark"]
    assert cli(*args, "--runtime", "vllm==0.29.0").json["profiles"] == ["vllm-legacy"]
    side = cli(
        "fix", PADDED, "--target-vocab-size", "100", "--emit-mask", "--mask-path", tmp_path / "m.safetensors",
        "--runtime", "vllm==0.29.0", "--format", "json",
    )  # fmt: skip
    assert side.exit_code in (0, 1) and side.json["profile"] == "vllm-legacy"


def test_check_takes_runtimes_from_its_configuration(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dspark-ckpt.toml").write_text(
        'runtimes = ["vllm==0.29.1"]\n'
        f'[[pairs]]\ndrafter = "{PADDED}"\ntarget = "{SMALL}"\n'
        f'[[pairs]]\ndrafter = "{EAGLE3}"\ntarget = "{SMALL}"\nruntimes = "sglang"\n'
    )
    obj = cli("check", "--format", "json").json
    assert [run["profile"] for run in obj["runs"]] == ["vllm-legacy", "sglang-eagle3"]
    (tmp_path / "dspark-ckpt.toml").write_text(
        f'runtimes = ["vllm==9.0"]\n[[pairs]]\ndrafter = "{PADDED}"\ntarget = "{SMALL}"\n'
    )
    bad = cli("check")
    assert bad.exit_code == 2 and "runtimes[0]" in bad.stderr and "9.0" in bad.stderr


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_profiles_fit_80_columns_in_80_lines(columns):
    lines = cli("profiles", env={"COLUMNS": str(columns)}).stdout.splitlines()
    assert all(len(line) <= columns for line in lines)
    if columns == 80:
        assert len(lines) <= 80
    # every family profile's source path whole on its line, never cut; a variant
    # architecture's profile named on the closing lines
    obj = cli("profiles", "--format", "json").json
    closing = lines[next(i for i, x in enumerate(lines) if x.startswith("variant profiles")) :]
    for p in obj["profiles"]:
        if PROFILES[p["name"]].variant:
            named = p["qualified_name"]
            assert any(named in line.replace(",", " ").split() for line in closing)
            continue
        shown, left = p["sources"][:SOURCES_SHOWN], len(p["sources"]) - SOURCES_SHOWN
        for src in shown:
            path = src.split(" ")[0]
            if len(path) + 4 <= columns:  # a path wider than the line breaks at a /
                assert any(line.strip().startswith(f"- {path}") for line in lines), path
        if left > 0:  # the rest counted under the profile's own lines
            assert f"  + {left} more (--format json)" in lines
