"""What was not checked is said where people and machines read the verdict: the table's
'not checked' block and its verdict line, --quiet's one line, the JSON's partial and
not_checked (valid inspect/v2)."""

from __future__ import annotations

import shutil

from conftest import FIXTURES, cli

PADDED = FIXTURES / "padded"


def weightless(tmp_path):
    """fixtures/targets/small without its weights: its config alone."""
    target = tmp_path / "target"
    target.mkdir()
    shutil.copy(FIXTURES / "targets/small/config.json", target / "config.json")
    return target


def test_table_lists_what_was_not_checked_and_calls_the_verdict_partial(tmp_path):
    r = cli("inspect", PADDED, "--target", weightless(tmp_path), "--format", "full")
    assert r.exit_code == 0, r.stdout
    lines = r.stdout.splitlines()
    at = lines.index("not checked: the verdict is partial")
    block = "\n".join(lines[at:])
    assert "the target folder holds no weights" in block
    assert "DSC207 draft vocab larger than the target's embedding" in block
    assert lines[-1] == (
        "deployable under vLLM 0.33.0 (vllm): 1 warning(s); partial: 2 check(s) not made (DSC207, DSC605)"
    )


def test_a_target_with_weights_gives_a_whole_verdict():
    r = cli("inspect", PADDED, "--target", FIXTURES / "targets/small")
    assert "not checked" not in r.stdout and "partial" not in r.stdout
    assert r.stdout.splitlines()[-1] == "deployable under vLLM 0.33.0 (vllm): 1 warning(s)"


def test_quiet_says_partial_on_its_one_line(tmp_path):
    r = cli("inspect", PADDED, "--target-vocab-size", "100", "--quiet")
    [line] = r.stdout.splitlines()
    assert line.startswith("deployable under vLLM 0.33.0 (vllm): 1 warning(s); partial: ")
    assert "DSC207" in line and "DSC710" in line


def test_json_says_partial_and_why(tmp_path):
    r = cli("inspect", PADDED, "--target", weightless(tmp_path), "--format", "json")
    out = r.json
    assert out["partial"] is True
    assert [(n["code"], n["profiles"]) for n in out["not_checked"]] == [
        ("DSC207", []),
        ("DSC605", ["sglang-dspark", "trtllm-dspark", "trtllm-dspark-legacy"]),
    ]
    assert all(
        n["reason"].startswith("the target folder holds no weights") for n in out["not_checked"]
    )
    whole = cli("inspect", PADDED, "--target", FIXTURES / "targets/small", "--format", "json")
    assert whole.json["partial"] is False and whole.json["not_checked"] == []
