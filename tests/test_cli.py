"""Cross-command CLI behaviour: formats each command accepts, JSON on refused input."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, cli

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
    r = cli("inspect", d, "--target-vocab-size", "100")
    assert r.exit_code == 1
    row = next(line for line in r.stdout.splitlines() if "DSC001" in line)
    assert str(weights) in row and "truncated" in row
    assert r.stderr.startswith(f"dspark-ckpt: error: {weights}: truncated: ")
    assert r.stderr.count("\n") == 1


def test_header_progress_hears_every_shard():
    from dspark_ckpt.checkpoint import on_header, open_checkpoint

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
    assert r.stdout.startswith("NOT deployable under profile vllm-legacy (passes vllm, ")
