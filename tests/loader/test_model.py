"""dspark_ckpt/loader/model.py: the module tree each release's loader builds for a drafter,
against the names a real safetensors drafter stores (written by the rule tables' harness),
each limit on both sides."""

from __future__ import annotations

import itertools

import pytest
import synth  # fixtures/, on sys.path through pyproject's pythonpath
from synth import VT, H, T

from dspark_ckpt.facts.config import drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.facts.target import target_from_vocab_size
from dspark_ckpt.loader.model import loader_model
from dspark_ckpt.profiles.registry import get_profile
from dspark_ckpt.source.checkpoint import open_checkpoint

# classic EAGLE (EAGLE-1) with two decoder layers: layer 0 has no input_layernorm, layer 1 has
V_EAGLE1 = {
    "model_type": "llama",
    "markov_rank": None,
    "target_layer_ids": None,
    "mask_token_id": None,
    "architectures": ["EagleLlamaForCausalLM"],
    "num_hidden_layers": 2,
}
S_EAGLE1 = {**V_EAGLE1, "architectures": ["LlamaForCausalLMEagle"]}
LAYER_1 = {k: v for k, v in synth.eagle1_backbone(H, layers=2).items() if k.startswith("layers.1.")}
EMBED = {"embed_tokens.weight": T("F32", (VT, H))}
NORM_1 = "layers.1.input_layernorm"


DROP = None  # a backbone tensor given as None is left out
_n = itertools.count()


def facts(tmp_path, config, tensors):
    """The facts of a drafter written as the rule tables' harness writes one: the family's
    backbone (synth.complete) with ``tensors`` over it, against a target of VT tokens."""
    folder = tmp_path / f"drafter-{next(_n)}"
    cfg = {**synth.drafter_config(VT, None, H), **config}
    synth.write_json(folder / "config.json", cfg)
    weights = {**synth.complete(cfg, H, tensors), **tensors}
    synth.write_safetensors(
        folder / "model.safetensors", {k: v for k, v in weights.items() if v is not DROP}
    )
    ckpt = open_checkpoint(str(folder))
    return gather(ckpt, drafter_config(ckpt), target_from_vocab_size(VT))


@pytest.mark.parametrize(
    "profile,config,tensors",
    [("vllm-eagle", V_EAGLE1, {"fc.bias": DROP}), ("sglang-eagle", S_EAGLE1, {})],
)
def test_a_classic_eagle_layer_past_the_first_builds_its_input_layernorm(
    tmp_path, profile, config, tensors
):
    """Only layer 0 lacks input_layernorm (first_input_norm false): layer 1's is built, so
    stored it is taken and missing it is missing."""
    p = get_profile(profile)
    f = facts(tmp_path, config, {**EMBED, **tensors, **LAYER_1})
    m = loader_model(f, p)
    assert m.missing(f).total == 0
    assert m.unexpected(f).other == () and m.unexpected(f).beyond == ()
    f = facts(tmp_path, config, {**EMBED, **tensors, **LAYER_1, f"{NORM_1}.weight": DROP})
    m = loader_model(f, p)
    missing = m.missing(f)
    assert missing.total == 1 and missing.shown[0].startswith(NORM_1), missing
