"""What only the CLI does with a drafter routed by its architecture (issue 31): the exit code
and the JSON of a classic EAGLE drafter judged, of a registered architecture no profile
judges (exit 3, the reason in the report), and fix refusing the latter (exit 2, one line)."""

from __future__ import annotations

import json

import eagle1_layers
import synth
from conftest import ROOT, cli
from synth import VT, H, T

SCHEMA = json.loads((ROOT / "dspark_ckpt/schemas/inspect-v2.json").read_text())

EAGLE1 = {
    "architectures": ["EagleLlamaForCausalLM"],
    "model_type": "llama",
    "markov_rank": None,
    "target_layer_ids": None,
    "mask_token_id": None,
}
EMBED = {"embed_tokens.weight": T("F32", (VT, H))}


def follows(obj: dict) -> None:
    import jsonschema

    jsonschema.validate(obj, SCHEMA)


def _drafter(tmp_path, name, config, tensors):
    return synth.drafter(tmp_path / name, vocab=VT, draft=None, config=config, tensors=tensors)


def test_a_classic_eagle_drafter_is_judged_by_vllm_and_sglang(tmp_path):
    path = _drafter(tmp_path, "eagle1", EAGLE1, {**EMBED, "fc.bias": None})
    r = cli("inspect", path, "--target-vocab-size", VT, "--format", "json")
    follows(r.json)
    assert r.json["family"] == "eagle" and r.json["profiles"] == ["vllm-eagle"]
    assert r.json["verdicts"] == {"vllm-eagle": True, "sglang-eagle": False}
    assert r.exit_code == 0, r.stdout


def test_the_eagle_release_codes_fc_bias_fails_vllm(tmp_path):
    path = _drafter(tmp_path, "eagle1-bias", EAGLE1, EMBED)
    r = cli("inspect", path, "--target-vocab-size", VT)
    assert r.exit_code == 1
    assert "DSC672" in r.stdout and "fc.bias" in r.stdout


def test_a_registered_architecture_no_profile_judges_exits_3_naming_why(tmp_path):
    config = {"architectures": ["ExtractHiddenStatesModel"], "markov_rank": None}
    path = _drafter(tmp_path, "hidden", config, {})
    r = cli("inspect", path, "--target-vocab-size", VT, "--format", "json")
    follows(r.json)
    assert r.exit_code == 3 and r.json["verdicts"] == {}
    (finding,) = r.json["findings"]
    assert finding["code"] == "DSC108"
    assert "vLLM 0.33.0 builds ExtractHiddenStatesModel" in finding["message"]
    assert "not a drafter" in finding["message"]


def test_fix_refuses_an_architecture_no_profile_judges(tmp_path):
    config = {"architectures": ["ExtractHiddenStatesModel"], "markov_rank": None}
    path = _drafter(tmp_path, "hidden", config, {})
    r = cli("fix", path, "--target-vocab-size", VT, "--out", tmp_path / "out")
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1
    assert "not judged: vLLM 0.33.0 builds ExtractHiddenStatesModel" in r.stderr
    assert "nothing written" in r.stderr and not (tmp_path / "out").exists()


def test_a_mistral_native_eagle_drafter_is_judged_by_its_own_profile(tmp_path):
    """Mistral's own names (eagle_linear, layers.N.attention.wq, ...) under the name vLLM
    registers: its Mistral EAGLE profile passes it; the EAGLE release code's names in their
    place fail it (a bare fc names no module of vLLM's model)."""
    config = {**EAGLE1, "architectures": ["EagleMistralForCausalLM"], "model_type": "mistral"}
    path = _drafter(tmp_path, "mistral", config, {})
    r = cli("inspect", path, "--target-vocab-size", VT, "--format", "json")
    follows(r.json)
    assert r.json["profiles"] == ["vllm-eagle-mistral"]
    assert r.json["verdicts"] == {"vllm-eagle-mistral": True, "sglang-eagle": False}
    assert r.exit_code == 0, r.stdout
    native = {name: None for name in eagle1_layers.mistral_eagle_backbone(H)}
    path = _drafter(tmp_path, "as-eagle1", config, {**native, **synth.eagle1_backbone(H)})
    r = cli("inspect", path, "--target-vocab-size", VT)
    assert r.exit_code == 1
    assert "DSC112" in r.stdout and "fc.weight" in r.stdout
