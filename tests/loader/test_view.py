"""dspark_ckpt/loader/view.py: the native config ``fix`` writes for a speculators-format
config, and the aux count read from a config as written, each limit on both sides."""

from __future__ import annotations

import pytest
import synth  # fixtures/, on sys.path through pyproject's pythonpath
from synth import VT, H

from dspark_ckpt.facts.config import drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.facts.target import target_from_vocab_size
from dspark_ckpt.loader.view import aux_count, gemma4_mtp, native_config
from dspark_ckpt.profiles.registry import get_profile
from dspark_ckpt.source.checkpoint import open_checkpoint

DSPARK = {
    "speculators_model_type": "dspark",
    "transformer_layer_config": {"model_type": "qwen3", "hidden_size": 8},
    "aux_hidden_state_layer_ids": [2, 3],
    "mask_token_id": 5,
}


@pytest.mark.parametrize(
    "archs,written",
    [
        (["Qwen3OmniDSparkModel"], ["Qwen3OmniDSparkModel"]),  # a DSpark architecture: kept
        (["Qwen3DSparkModel"], ["Qwen3DSparkModel"]),
        (["LlamaForCausalLM", "Qwen3OmniDSparkModel"], ["Qwen3OmniDSparkModel"]),
        (["LlamaForCausalLM"], ["Qwen3DSparkModel"]),  # none of DSpark's: the translation's
        ([], ["Qwen3DSparkModel"]),
        (None, ["Qwen3DSparkModel"]),
    ],
)
def test_a_dspark_native_config_keeps_its_own_dspark_architecture(archs, written):
    raw = {**DSPARK} if archs is None else {**DSPARK, "architectures": archs}
    assert native_config(raw)["architectures"] == written


@pytest.mark.parametrize("kind", ["eagle3", "dflash", "dspark"])
def test_each_algorithm_translated_is_written_with_its_architecture(kind):
    native = native_config({**DSPARK, "speculators_model_type": kind})
    assert native["architectures"] == [
        {"eagle3": "LlamaForCausalLMEagle3", "dflash": "DFlashDraftModel"}.get(
            kind, "Qwen3DSparkModel"
        )
    ]


EAGLE3 = {**DSPARK, "speculators_model_type": "eagle3"}


def test_an_eagle3_native_config_writes_the_aux_ids_as_vllm_and_as_sglang_count_them():
    """vLLM reads the speculators ids as written; SGLang captures layer id + 1
    (python/sglang/srt/models/llama.py:939-941), so its copy is one lower; a non-integer id
    is left as written (DSC651 / the load rules judge it)."""
    native = native_config({**EAGLE3, "aux_hidden_state_layer_ids": [2, 5, "x"]})
    assert native["eagle_aux_hidden_state_layer_ids"] == [2, 5, "x"]
    assert native["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == [1, 4, "x"]
    # a null list falls back to eagle_aux_hidden_state_layer_ids where one is written
    fallback = {
        **EAGLE3,
        "aux_hidden_state_layer_ids": None,
        "eagle_aux_hidden_state_layer_ids": [3],
    }
    assert native_config(fallback)["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == [2]


def test_the_dspark_translation_shifts_the_aux_ids_by_one():
    native = native_config({**DSPARK, "aux_hidden_state_layer_ids": [2, 5]})
    assert native["eagle_aux_hidden_state_layer_ids"] == [2, 5]
    assert native["target_layer_ids"] == [1, 4]


@pytest.mark.parametrize("kind", ["dflash", "dspark"])
@pytest.mark.parametrize("key", ["mask_token_id", "aux_hidden_state_layer_ids"])
def test_a_key_the_translation_requires_is_named_where_it_is_missing(kind, key):
    raw = {k: v for k, v in {**DSPARK, "speculators_model_type": kind}.items() if k != key}
    assert native_config(raw) == (
        key,
        f"vLLM's {kind} translation requires it (a KeyError without it)",
    )


def test_eagle3_requires_neither_and_an_unknown_or_layerless_config_has_no_translation():
    raw = {
        k: v for k, v in EAGLE3.items() if k not in ("mask_token_id", "aux_hidden_state_layer_ids")
    }
    assert isinstance(native_config(raw), dict)
    assert native_config({**DSPARK, "speculators_model_type": "peagle"}) is None
    assert native_config({**DSPARK, "transformer_layer_config": None}) is None
    assert native_config({**EAGLE3, "transformer_layer_config": "qwen3"}) is None


@pytest.mark.parametrize(("given", "read"), [({}, False), ({"sample_from_anchor": True}, True)])
def test_the_dflash_translation_samples_from_the_anchor_only_where_the_config_says(given, read):
    from dspark_ckpt.loader.view import translation

    raw = {**DSPARK, "speculators_model_type": "dflash", **given}
    assert translation(raw, ())["dflash_config"]["sample_from_anchor"] is read


WRITTEN = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "mask_token_id": None,
    "markov_rank": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}
IDS = "len(eagle_config.eagle_aux_hidden_state_layer_ids)"


@pytest.mark.parametrize("profile", ["vllm-eagle3", "sglang-eagle3"])
@pytest.mark.parametrize(
    ("config", "counted"),
    [
        ({"num_aux_hidden_states": 4}, (4, "num_aux_hidden_states")),
        # getattr(config, "num_aux_hidden_states") reads the top level of the config as
        # loaded: a count only under text_config or transformer_layer_config is not seen
        ({"text_config": {"num_aux_hidden_states": 4}}, (2, IDS)),
        ({"transformer_layer_config": {"num_aux_hidden_states": 4}}, (2, IDS)),
    ],
    ids=["top-level", "text_config-only", "transformer_layer_config-only"],
)
def test_an_undotted_aux_count_key_is_read_at_the_top_level_only(
    tmp_path, profile, config, counted
):
    folder = tmp_path / "drafter"
    cfg = {**synth.drafter_config(VT, None, H), **WRITTEN, **config}
    synth.write_json(folder / "config.json", cfg)
    synth.write_safetensors(folder / "model.safetensors", synth.complete(cfg, H, {}))
    ckpt = open_checkpoint(str(folder))
    f = gather(ckpt, drafter_config(ckpt), target_from_vocab_size(VT))
    assert aux_count(f, get_profile(profile)) == counted


@pytest.mark.parametrize(
    ("config", "counted"),
    [
        ({"num_hidden_layers": 3}, (3, "num_hidden_layers")),
        # config.num_hidden_layers (vLLM qwen3_dflash.py:89): a text_config's is not read
        ({"num_hidden_layers": None, "text_config": {"num_hidden_layers": 3}}, None),
    ],
    ids=["top-level", "text_config-only"],
)
def test_the_aux_count_defaults_to_the_top_level_num_hidden_layers(tmp_path, config, counted):
    folder = tmp_path / "drafter"
    cfg = {**synth.drafter_config(VT, None, H), "target_layer_ids": None, **config}
    cfg["eagle_config"] = None
    synth.write_json(folder / "config.json", cfg)
    synth.write_safetensors(folder / "model.safetensors", synth.complete(cfg, H, {}))
    ckpt = open_checkpoint(str(folder))
    f = gather(ckpt, drafter_config(ckpt), target_from_vocab_size(VT))
    assert aux_count(f, get_profile("vllm-dflash")) == counted


@pytest.mark.parametrize(
    "config,read",
    [
        # text_config's sizes; the assistant's own keys at the top level, the tie true unless set
        ({"text_config": {"hidden_size": 8, "tie_word_embeddings": False}},
         {"hidden_size": 8, "tie_word_embeddings": True, "num_centroids": 2048}),
        ({"tie_word_embeddings": False, "text_config": {"hidden_size": 8}},
         {"hidden_size": 8, "tie_word_embeddings": False, "num_centroids": 2048}),
        # a top-level hidden_size is not the model's: text_config's is
        ({"hidden_size": None, "num_centroids": 4, "text_config": {"hidden_size": 8}},
         {"hidden_size": 8, "tie_word_embeddings": True, "num_centroids": 4}),
        # no text_config: the config itself (_get_text_config's fallback)
        ({"hidden_size": 8, "backbone_hidden_size": 12},
         {"hidden_size": 8, "backbone_hidden_size": 12, "tie_word_embeddings": True,
          "num_centroids": 2048}),
    ],
)  # fmt: skip
def test_gemma4_mtp_reads_text_config_and_the_assistant_keys_at_the_top(config, read):
    """vLLM's Gemma4MTP: its model from text_config (gemma4.py:244-253), tie_word_embeddings,
    use_ordered_embeddings, num_centroids and backbone_hidden_size from the assistant's own
    config (gemma4_mtp.py:349-350, 487, 496-498); a backbone width it does not give is left
    out (not judged), not defaulted."""
    assert gemma4_mtp(config) == read
