"""Two ways a drafter that loads is still not the one to serve, through the CLI as a new
user meets them: a drafter made for another target's vocab (DSC310), and the padded-row
mask `fix --emit-mask` writes, dropped into the drafter's folder (DSC620/DSC621)."""

from __future__ import annotations

import os
import shutil

import synth
from conftest import FIXTURES, cli
from synth import T

EAGLE3 = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}
EAGLE3_PROFILES = {"vllm-eagle3", "vllm-eagle3-legacy", "sglang-eagle3", "trtllm-eagle3"}


def test_a_llama3_eagle3_drafter_fails_every_runtime_against_a_qwen3_target(tmp_path):
    """The issue's case: V 128256 with a real d2t/t2d, against Qwen3-8B's Vt 151936."""
    offsets, mask = synth.sorted_mapping(128256, 32, seed=5)
    tensors = {
        **synth.backbone(8),
        "lm_head.weight": synth.head(32, 8, 1),
        "d2t": T("I64", (32,), offsets),
        "t2d": T("BOOL", (128256,), mask),
    }
    drafter = synth.drafter(
        tmp_path / "llama3-eagle3", vocab=128256, draft=32, tensors=tensors, config=EAGLE3
    )
    target = tmp_path / "qwen3-8b"
    synth.target(target, {"architectures": ["Qwen3ForCausalLM"], "vocab_size": 151936})
    r = cli("inspect", drafter, "--target", target, "--profile", "all", "--format", "json")
    assert r.exit_code == 1
    assert r.json["verdicts"] == dict.fromkeys(EAGLE3_PROFILES, False)
    [f] = [f for f in r.json["findings"] if f["code"] == "DSC310"]
    assert f["severity"] == "error" and f["tensor"] == "vocab_size"
    assert "the Llama 3.x vocab (128256 ids)" in f["message"]
    assert "(Vt 151936, the Qwen2.5 or Qwen3 vocab)" in f["message"]


def test_the_mask_fix_writes_left_in_the_drafter_folder_fails_vllm(tmp_path):
    drafter = tmp_path / "padded"
    shutil.copytree(FIXTURES / "padded", drafter)
    small = FIXTURES / "targets/small"
    here = os.getcwd()
    os.chdir(tmp_path)  # fix writes its side file in the current folder
    try:
        assert cli("fix", drafter, "--target", small, "--emit-mask").exit_code == 0
    finally:
        os.chdir(here)
    shutil.move(tmp_path / "draft_vocab_mask.safetensors", drafter)  # where it does not go
    r = cli("inspect", drafter, "--target", small, "--profile", "all", "--format", "json")
    assert r.exit_code == 1
    assert r.json["verdicts"]["vllm"] is False  # SGLang skips the names (DSC621, below)
    by_profile = {(f["code"], f["profile"]): f for f in r.json["findings"]}
    refused = by_profile["DSC620", "vllm"]
    assert refused["file"] == str(drafter / "draft_vocab_mask.safetensors")
    assert "There is no module or parameter named" in refused["message"]
    assert by_profile["DSC621", "sglang-dspark"]["severity"] == "info"
    table = cli("inspect", drafter, "--target", small)
    assert "draft_vocab_mask.safetensors holds no tensor of the drafter" in table.stdout
    assert table.stdout.splitlines()[-1].startswith("NOT deployable under vLLM 0.33.0 (vllm)")
    assert r.json["not_checked"] == []  # the target has weights: a whole verdict
