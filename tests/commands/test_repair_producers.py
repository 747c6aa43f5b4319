"""``fix``'s repairs on drafters written by the producers' own save code (fixtures/producers.py),
through the CLI: the SpecForge equal-vocab EAGLE-3 export (its all-zero d2t), a padded DSpark
drafter (trimmed, then verified on real logits), a speculators DSpark config for SGLang (the
native config vLLM translates it into). Each asserts the verdict after and the bytes that must
not change."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import cli
from rules.test_producers import build_drafters
from safetensors.numpy import load_file
from synth import T, write_json, write_safetensors

pytestmark = pytest.mark.slow
NAMES = ("specforge-eagle3-full", "specforge-dspark-padded", "speculators-dspark-pruned")


@pytest.fixture(scope="module")
def drafters(tmp_path_factory):
    return build_drafters(tmp_path_factory.mktemp("producers"), *NAMES)


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    """A Qwen3 target of 1000 ids, hidden 64, 8 layers, with (sparse) head weights: what the
    producers' drafters are made for, and what verify samples a shared head from."""
    root = tmp_path_factory.mktemp("target")
    cfg = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 1000}
    write_json(root / "config.json", {**cfg, "hidden_size": 64, "num_hidden_layers": 8})
    heads = {n: T("BF16", (1000, 64)) for n in ("model.embed_tokens.weight", "lm_head.weight")}
    write_safetensors(root / "model.safetensors", heads)
    return root


def weights(folder) -> dict[str, np.ndarray]:
    return load_file(folder / "model.safetensors")


def test_specforge_equal_vocab_export_loses_the_d2t_vllm_refuses(drafters, target, tmp_path):
    src = drafters / "specforge-eagle3-full"
    before = cli("inspect", src, "--target", target, "--format", "json").json
    assert not before["verdicts"]["vllm-eagle3"]
    assert "DSC105" in {f["code"] for f in before["findings"]}
    r = cli("fix", src, "--target", target, "--out", tmp_path / "o", "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.json["verdicts_after"]["vllm-eagle3"] is True
    dropped = {t["name"] for t in r.json["plan"]["tensors"] if t["action"] == "drop"}
    assert "d2t" in dropped
    old, new = weights(src), weights(tmp_path / "o")
    assert set(new) == set(old) - dropped
    assert all(new[k].tobytes() == old[k].tobytes() for k in new)


def test_a_padded_dspark_drafter_is_trimmed_and_verified(drafters, target, tmp_path):
    pytest.importorskip("torch")
    src = drafters / "specforge-dspark-padded"
    before = cli("inspect", src, "--target", target, "--format", "json").json
    assert before["classification"] == "padded" and not before["ok"]
    r = cli("fix", src, "--target", target, "--out", tmp_path / "o", "--verify", "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.json["verdicts_after"]["vllm"] is True
    verify = r.json["verify"]
    assert verify["ok"] and verify["drafter"]["draft_vocab_size"] == 1000
    # no padded row is left to sample: without any mask, no id leaves the target vocab
    assert all(m["unmasked_illegal"] == 0 for m in verify["modes"].values())
    old, new = weights(src), weights(tmp_path / "o")
    for name in ("markov_head.markov_w1.weight", "markov_head.markov_w2.weight"):
        assert np.array_equal(new[name], old[name][:1000])
    assert all(new[k].tobytes() == old[k].tobytes() for k in new if not k.startswith("markov"))
    cfg = json.loads((tmp_path / "o/config.json").read_text())
    assert (cfg["vocab_size"], cfg["draft_vocab_size"]) == (1000, 1000)


def test_a_speculators_dspark_config_becomes_the_native_one_for_sglang(drafters, target, tmp_path):
    src = drafters / "speculators-dspark-pruned"
    args = ["--target", target, "--profile", "sglang-dspark"]
    before = cli("inspect", src, *args, "--format", "json").json
    assert "DSC604" in {f["code"] for f in before["findings"]}
    r = cli("fix", src, *args, "--out", tmp_path / "o", "--format", "json")
    after = cli("inspect", tmp_path / "o", *args, "--format", "json").json
    assert "DSC604" not in {f["code"] for f in after["findings"]}, r.stdout + r.stderr
    cfg = json.loads((tmp_path / "o/config.json").read_text())
    assert cfg["architectures"] == ["Qwen3DSparkModel"] and "speculators_model_type" not in cfg
    assert cfg["target_layer_ids"] == [i - 1 for i in cfg["eagle_aux_hidden_state_layer_ids"]]
    # the weights are the producer's, linked where the filesystem allows
    assert (tmp_path / "o/model.safetensors").read_bytes() == (
        src / "model.safetensors"
    ).read_bytes()
