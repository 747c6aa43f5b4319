"""dspark_ckpt/loader/model.py: the module tree each release's loader builds for a drafter,
against the names a real safetensors drafter stores (written by the rule tables' harness),
each limit on both sides."""

from __future__ import annotations

import itertools

import pytest
import synth  # fixtures/, on sys.path through pyproject's pythonpath
from synth import VT, H, T

from dspark_ckpt.commands.inspect import inspect_checkpoint
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


def write(tmp_path, config, tensors):
    """A drafter written as the rule tables' harness writes one: the family's backbone
    (synth.complete) with ``tensors`` over it (None: left out)."""
    folder = tmp_path / f"drafter-{next(_n)}"
    cfg = {**synth.drafter_config(VT, None, H), **config}
    synth.write_json(folder / "config.json", cfg)
    weights = {**synth.complete(cfg, H, tensors), **tensors}
    synth.write_safetensors(
        folder / "model.safetensors", {k: v for k, v in weights.items() if v is not DROP}
    )
    return folder


def facts(tmp_path, config, tensors):
    """The facts of ``write``'s drafter against a target of VT tokens."""
    ckpt = open_checkpoint(str(write(tmp_path, config, tensors)))
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


FC = {"fc.weight": T("F32", (H, 2 * H))}
WRONG_FC = {"fc.weight": T("F32", (H, H))}


@pytest.mark.parametrize(
    "profile,config,tensors",
    [("vllm-eagle", V_EAGLE1, {"fc.bias": DROP}), ("sglang-eagle", S_EAGLE1, {})],
)
def test_a_classic_eagle_fc_of_another_shape_fails_the_load_with_its_bias_or_not(
    tmp_path, profile, config, tensors
):
    """fc is Linear(2 * hidden_size, hidden_size): vLLM's without a bias, SGLang's with one
    (llama_eagle.py:91); each weight loader asserts the size (SGLang's default_weight_loader,
    model_loader/weight_utils.py:1582), so a [H, H] fc fails both loads (DSC113)."""
    p = get_profile(profile)
    config = {**config, "num_hidden_layers": 1}
    f = facts(tmp_path, config, {**EMBED, **tensors, **FC})
    assert loader_model(f, p).misshapen(f) == []
    f = facts(tmp_path, config, {**EMBED, **tensors, **WRONG_FC})
    assert loader_model(f, p).misshapen(f) == [("fc.weight", (H, H), (H, 2 * H))]
    folder = write(tmp_path, config, {**EMBED, **tensors, **WRONG_FC})
    found = inspect_checkpoint(str(folder), target_from_vocab_size(VT), profile).findings
    assert [x.message for x in found if x.code == "DSC113"] == [
        f"fc.weight is [{H}, {H}]; {profile} builds it [{H}, {2 * H}] from the config: the "
        "load fails on the shape"
    ]


def paths(m):
    """The top-level module paths of a loader model."""
    return {part.path for part in m.parts if hasattr(part, "stored_as")}


@pytest.mark.parametrize(("rank", "built"), [(1, True), (0, False), (-1, False), (True, False)])
def test_sglang_builds_the_markov_head_for_a_markov_rank_from_1_up(tmp_path, rank, built):
    """SGLang's DSpark Markov head needs markov_rank > 0 (deepseek_v4_dspark.py:421); 0, a
    negative and a bool build none. The config reader refuses a top-level markov_rank below
    1, so the MiniMax M3.1 route brings the others: its normalisation writes markov_rank
    from dspark_markov_rank, which it does not check."""
    config, tensors = synth.minimax_dspark(VT, H, 16)
    f = facts(tmp_path, {**config, "dspark_markov_rank": rank}, tensors)
    m = loader_model(f, get_profile("sglang-dspark-minimax"))
    assert any(path.endswith("markov_head.markov_w1") for path in paths(m)) == built


EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "mask_token_id": None,
    "markov_rank": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}


NEST = EAGLE3["eagle_config"]


@pytest.mark.parametrize(
    ("config", "built"),
    [
        ({}, False),
        ({"norm_before_fc": True}, True),
        ({"norm_before_fc": False}, False),
        ({"eagle_config": {**NEST, "norm_before_fc": True}}, True),
        # eagle_config's key wins where present: false, or null (bool(None)), over the top level
        ({"eagle_config": {**NEST, "norm_before_fc": False}, "norm_before_fc": True}, False),
        ({"eagle_config": {**NEST, "norm_before_fc": None}, "norm_before_fc": True}, False),
    ],
    ids=["unset", "top-true", "top-false", "nested-true", "nested-false-wins", "nested-null-wins"],
)
@pytest.mark.parametrize("profile", ["vllm-eagle3", "sglang-eagle3"])
def test_eagle3_builds_input_norm_on_the_first_norm_before_fc_present(
    tmp_path, profile, config, built
):
    """bool(eagle_config.get("norm_before_fc", getattr(config, "norm_before_fc", False))):
    vLLM llama_eagle3.py:184-188, SGLang llama_eagle3.py:169-175."""
    f = facts(tmp_path, {**EAGLE3, **config}, {})
    assert ("input_norm" in paths(loader_model(f, get_profile(profile)))) == built
