"""Cross-command CLI behaviour: formats each command accepts, JSON on refused input."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, cli, cli_subprocess

from dspark_ckpt.profiles.registry import applicable_profiles

PRUNED_NO_MAP = FIXTURES / "vllm-table/v100-d40-none"


@pytest.mark.parametrize(
    "args",
    [
        ["fix", FIXTURES / "padded", "--target-vocab-size", "100", "--emit-mask"],
        ["verify", FIXTURES / "padded", "--target-vocab-size", "100"],
        ["profiles"],
        ["explain", "DSC401"],
    ],
)
@pytest.mark.parametrize("fmt", ["github", "junit", "sarif"])
def test_ci_formats_are_refused_where_there_are_no_findings(tmp_path, monkeypatch, args, fmt):
    monkeypatch.chdir(tmp_path)
    r = cli(*args, "--format", fmt)
    assert r.exit_code == 2 and r.stdout == ""
    assert "'sarif' is not one of" in r.stderr.replace(fmt, "sarif")
    assert list(tmp_path.iterdir()) == []


def test_fix_refusal_is_one_json_object(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = cli("fix", PRUNED_NO_MAP, "--target-vocab-size", "100", "--emit-d2t", "--format", "json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["schema"] == "dspark-ckpt/fix/v1" and out["ok"] is False
    assert out["error"]["file"] == str(PRUNED_NO_MAP)
    assert "no correct mapping can be invented" in out["error"]["message"]
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("dspark-ckpt: error: ")
    assert list(tmp_path.iterdir()) == []


def test_verify_unreadable_is_one_json_object(tmp_path):
    bad = tmp_path / "d"
    bad.mkdir()
    (bad / "config.json").write_text("{")
    r = cli("verify", bad, "--target-vocab-size", "100", "--format", "json")
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["schema"] == "dspark-ckpt/verify/v1" and out["ok"] is False
    assert out["error"]["file"] == str(bad / "config.json")


def test_target_vocab_size_is_bounded_like_configs():
    r = cli("inspect", FIXTURES / "padded", "--target-vocab-size", "99999999999999")
    assert r.exit_code == 2 and r.stdout == ""
    assert "--target-vocab-size must be an integer in [1, 2147483647]" in r.stderr


def test_unreadable_file_is_named_in_the_table(tmp_path):
    from synth import drafter

    d = drafter(tmp_path / "d", vocab=100, draft=100)
    weights = d / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-3])
    r = cli("inspect", d, "--target-vocab-size", "100", "--format", "full")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "DSC001" in line and "│" in line)
    row = [lines[at].split("│")]  # the row and its continuation lines (no code of their own)
    row += [cells for cells in (line.split("│") for line in lines[at + 1 :])]
    row = row[: next((i for i, c in enumerate(row[1:], 1) if len(c) < 5 or c[2].strip()), None)]
    where = "".join(cells[3].strip() for cells in row)  # a long path breaks at its "/"
    assert where == str(weights) and "truncated" in row[0][4]
    assert r.stderr.startswith(f"dspark-ckpt: error: {weights}: truncated: ")
    assert r.stderr.count("\n") == 1


def test_header_progress_hears_every_shard():
    from dspark_ckpt.source.base import on_header
    from dspark_ckpt.source.checkpoint import open_checkpoint

    seen = []
    token = on_header.set(seen.append)
    try:
        ckpt = open_checkpoint(FIXTURES / "sharded")
    finally:
        on_header.reset(token)
    assert seen == ckpt.files and len(seen) == 3
    open_checkpoint(FIXTURES / "sharded")  # outside the block: nobody is told
    assert len(seen) == 3


def test_summary_names_the_failing_profiles():
    r = cli("inspect", FIXTURES / "padded", "--target-vocab-size", "100", "--profile", "all", "-q")
    assert r.exit_code == 1
    fails = ["vllm-legacy", "sglang-dspark"]  # Vd != Vt wants lm_head and d2t; SGLang's class
    passes = [n for n in applicable_profiles("dspark") if n not in fails]  # the others, in order
    assert r.stdout.startswith(
        "NOT deployable under vLLM 0.29 (vllm-legacy), SGLang 0.5.23 (sglang-dspark) "
        f"(passes {', '.join(passes)})"
    )


def test_a_git_lfs_pointer_says_git_lfs_pull():
    # a clone without `git lfs pull` holds pointer files where the shards should be
    pointer = FIXTURES / "lfs-pointer/model.safetensors"
    assert pointer.read_text().startswith("version https://git-lfs.github.com/spec/v1\n")
    r = cli("inspect", FIXTURES / "lfs-pointer", "--target-vocab-size", "100", "--format", "json")
    assert r.exit_code == 1
    (f,) = r.json["findings"]
    assert f["code"] == "DSC001" and f["file"] == str(pointer)
    assert "Git LFS pointer" in f["message"] and "git lfs pull" in f["hint"]
    assert "header length" not in f["message"] and "re-export" not in r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and "run `git lfs pull`" in r.stderr
    # fix and verify read the same header: the same line
    fixed = cli("fix", FIXTURES / "lfs-pointer", "--target-vocab-size", "100", "--emit-mask")
    assert fixed.exit_code == 1 and "git lfs pull" in fixed.stderr


def test_a_truncated_file_says_download_it_again(tmp_path):
    from synth import drafter

    d = drafter(tmp_path / "d", vocab=100, draft=100)
    weights = d / "model.safetensors"
    for cut in (weights.read_bytes()[:-3], weights.read_bytes()[:20]):  # data, then header
        weights.write_bytes(cut)
        r = cli("inspect", d, "--target-vocab-size", "100", "--format", "json")
        assert r.exit_code == 1
        (f,) = r.json["findings"]
        assert f["message"].startswith("truncated: ") and "download or copy it again" in f["hint"]
        assert "download or copy it again" in r.stderr and "re-export" not in r.stderr


def test_no_arguments_print_the_help_on_its_lines_exit_2():
    """`dspark-ckpt` alone: the help as -h gives it (real lines, not escaped ones) on
    stderr, exit 2 (no command was given)."""
    r = cli_subprocess()
    assert r.returncode == 2
    assert r.stdout == ""
    assert "\\n" not in r.stderr and "\nCommands:\n" in r.stderr
    assert r.stderr.splitlines()[0].startswith("Usage: ")
    for command in ("inspect", "profiles", "explain", "check", "verify", "fix"):
        assert f"\n  {command} " in r.stderr


def test_help_states_every_exit_code_and_what_q_prints():
    """inspect exits 3 for a family no profile covers: its help says so; profiles and
    explain have no verdict, so their -q is no "verdict" line."""
    assert "3  not judged" in cli("inspect", "-h").stdout
    for command in ("profiles", "explain"):
        text = " ".join(cli(command, "-h").stdout.split())
        assert "the verdict" not in text and "prints one line: the names" in text
