"""Findings that point the right way (issue 27), each case through the CLI: a DSpark
drafter's DSC501 does not talk of SGLang's EAGLE-3 loader; Inkling's DSC401 names the
tensor that is padded (it has no lm_head: markov_w2); DSC604 under TensorRT-LLM does not
send the user to an SGLang config; ``explain DSC401`` says nothing of one runtime that is
every runtime's. tests/rules/test_runtime_named.py walks every code x profile."""

from __future__ import annotations

from pathlib import Path

import pytest
import synth
from conformance import build_real, build_target
from conftest import cli
from synth import VT

EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _findings(*args) -> list[dict]:
    return cli("inspect", *args, "--format", "json").json["findings"]


def test_dsc501_on_a_dspark_drafter_says_what_its_loaders_do(cwd):
    dspark = synth.drafter(cwd / "dspark", vocab=VT, draft=None)
    (f,) = [f for f in _findings(dspark, "--target-vocab-size", VT) if f["code"] == "DSC501"]
    assert "EAGLE-3" not in f["message"]
    assert "(SGLang does not read the key)" in f["message"]
    eagle = synth.drafter(cwd / "eagle", vocab=VT, draft=None, config=EAGLE3)
    found = _findings(eagle, "--target-vocab-size", VT, "--profile", "vllm-eagle3")
    (f,) = [f for f in found if f["code"] == "DSC501"]
    assert "(SGLang's EAGLE-3 loader fails without the key: DSC681)" in f["message"]


def test_inklings_dsc401_names_the_padded_markov_head_not_a_missing_lm_head(cwd):
    """SpecForge's Inkling DSpark drafter ships no lm_head: its padded rows are markov_w2's,
    the tensor the trim cuts."""
    drafter = build_real("specforge-inkling-dspark", cwd / "inkling", serving=True)
    target = build_target("Inkling", cwd / "targets")
    (f,) = [f for f in _findings(drafter, "--target", target) if f["code"] == "DSC401"]
    assert f["tensor"] == "markov_head.markov_w2.weight"
    plan = cli("fix", drafter, "--target", target, "--diff", "--format", "json").json["plan"]
    cut = [t["name"] for t in plan["tensors"] if t["action"] == "cut"]
    assert f["tensor"] in cut and "lm_head.weight" not in cut


def test_dsc604_under_trtllm_does_not_send_to_an_sglang_config(cwd):
    spec = {**EAGLE3, "speculators_model_type": "eagle3"}
    src = synth.drafter(cwd / "spec", vocab=VT, draft=VT, config=spec)
    for profile, runtime in (("trtllm-eagle3", "TensorRT-LLM"), ("sglang-eagle3", "SGLang")):
        found = _findings(src, "--target-vocab-size", VT, "--profile", profile)
        (f,) = [f for f in found if f["code"] == "DSC604" and f["profile"] == profile]
        others = {"SGLang", "vLLM", "TensorRT-LLM"} - {runtime}
        assert not any(name in f["hint"] for name in others), f["hint"]
        assert not any(name in f["message"] for name in others), f["message"]
        assert "`dspark-ckpt fix DRAFTER --target T --out DIR`" in f["hint"]
    explained = cli("explain", "DSC604").stdout
    assert "TensorRT-LLM" in explained and "SGLang" in explained


def test_explain_dsc401_says_no_runtime_masks_them_not_no_vllm_version(cwd):
    r = cli("explain", "DSC401")
    assert r.exit_code == 0
    text = " ".join(r.stdout.split())
    assert "no vLLM version" not in text and "no runtime masks them" in text
