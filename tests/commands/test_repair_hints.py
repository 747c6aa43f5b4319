"""Hints that repair: a finding whose repair needs a value only the user can give is marked
``?`` (table, JSON, the "fix repairs" line), and its hint is the ``fix`` command that
gives it, which, run as written (DRAFTER, T and DIR filled in), repairs the drafter."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import cli
from output.test_schemas import follows
from synth import VT, H, T

EAGLE3_ARCH = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _unread_ids(cwd: Path) -> tuple[Path, Path]:
    """DSC651's case: an EAGLE-3 drafter whose config names its trained ids (1, 3, 5: the
    states entering layers 2, 4, 6) only under eagle_config, which vLLM's runner does not
    read: it feeds its default (2, 4, 5) for this 8-layer target."""
    target = cwd / "t8"
    synth.write_json(
        target / "config.json",
        {"architectures": ["Qwen3ForCausalLM"], "vocab_size": VT, "hidden_size": H,
         "num_hidden_layers": 8},
    )  # fmt: skip
    config = {**EAGLE3_ARCH, "target_layer_ids": None,
              "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 5]}}  # fmt: skip
    fc3 = {"fc.weight": T("F32", (H, 3 * H), np.zeros((H, 3 * H), np.float32))}
    return synth.drafter(cwd / "d", vocab=VT, draft=VT, config=config, tensors=fc3), target


def _run_hint(hint: str, drafter: Path, target: Path, out: str) -> list[str]:
    """The command a hint gives (its first backquoted part), as a shell splits it, with its
    placeholders filled in; the arguments after ``dspark-ckpt``."""
    words = shlex.split(hint.split("`")[1])
    assert words[:2] == ["dspark-ckpt", "fix"], hint
    fill = {"DRAFTER": str(drafter), "T": str(target), "DIR": out}
    return [fill.get(w, w) for w in words[1:]]


def test_a_value_the_user_gives_is_marked_and_its_hint_repairs(cwd):
    src, target = _unread_ids(cwd)
    table = cli("inspect", src, "--target", target, "--profile", "vllm-eagle3")
    assert table.exit_code == 1
    assert "DSC651 ?" in table.stdout
    assert "1 with a value you give (?)" in " ".join(table.stdout.split())  # the concise line
    full = cli("inspect", src, "--target", target, "--profile", "vllm-eagle3", "--format", "full")
    assert "DSC651 ?" in full.stdout
    assert "fix repairs 1 of 1 error(s) under vllm-eagle3 with a value you give (?)" in " ".join(
        full.stdout.split()
    )
    report = cli("inspect", src, "--target", target, "--profile", "vllm-eagle3", "--format", "json")
    follows("inspect-v2", report.json)
    (finding,) = [f for f in report.json["findings"] if f["code"] == "DSC651"]
    assert finding["repair"] == "asks"
    args = _run_hint(finding["hint"], src, target, "o")
    assert args[-2:] == ["--set", "eagle_aux_hidden_state_layer_ids=[2,4,6]"]
    # the plan without the value asks for it; with it, writes it and re-judges the drafter
    asked = cli("fix", src, "--target", target, "--profile", "vllm-eagle3", "--diff")
    assert "DSC651 needs eagle_aux_hidden_state_layer_ids" in asked.stdout + asked.stderr
    fixed = cli(*args, "--profile", "vllm-eagle3")
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
    after = cli("inspect", cwd / "o", "--target", target, "--profile", "vllm-eagle3")
    found = [line for line in after.stdout.splitlines() if line.startswith("DSC651")]
    assert after.exit_code == 0 and all(line.endswith("[trtllm-eagle3]") for line in found)
    # TensorRT-LLM reads no drafter key for them: still DSC651 there, pinned by its serving config
    assert "trtllm-eagle3 fails (DSC651), not deciding" in after.stdout


def test_an_unsafe_repair_hint_gives_the_unsafe_fixes_command(cwd):
    """DSC313 (an arange d2t, whose repair is a guess): its hint runs ``--unsafe-fixes``."""
    d2t = {"d2t": T("I64", (VT,), np.arange(VT, dtype=np.int64))}
    src = synth.drafter(cwd / "d", vocab=VT, draft=VT, tensors=d2t)
    report = cli("inspect", src, "--target-vocab-size", VT, "--format", "json").json
    (finding,) = [f for f in report["findings"] if f["code"] == "DSC313"]
    assert finding["repair"] == "unsafe"
    assert _run_hint(finding["hint"], src, cwd, "o")[-1] == "--unsafe-fixes"


def test_a_count_the_runner_feeds_otherwise_asks_for_the_ids(cwd):
    """DSC650: fc is built for the 2 ids eagle_config names, which vLLM's runner does not
    read: it feeds its default 3. The ids are the drafter's training choice: asked (``?``),
    the hint's command with VALUE given repairs it."""
    _, target = _unread_ids(cwd)
    config = {**EAGLE3_ARCH, "target_layer_ids": None,
              "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]}}  # fmt: skip
    fc2 = {"fc.weight": T("F32", (H, 2 * H), np.zeros((H, 2 * H), np.float32))}
    src = synth.drafter(cwd / "d2", vocab=VT, draft=VT, config=config, tensors=fc2)
    report = cli("inspect", src, "--target", target, "--profile", "vllm-eagle3", "--format", "json")
    (finding,) = [f for f in report.json["findings"] if f["code"] == "DSC650"]
    assert finding["repair"] == "asks"
    args = _run_hint(finding["hint"], src, target, "o")
    assert args[-2:] == ["--set", "eagle_aux_hidden_state_layer_ids=VALUE"]
    fixed = cli(*args[:-1], "eagle_aux_hidden_state_layer_ids=[1,2]", "--profile", "vllm-eagle3")
    assert fixed.exit_code == 0, fixed.stdout + fixed.stderr
