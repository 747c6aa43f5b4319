"""dspark_ckpt/loader/view.py: the native config ``fix`` writes for a speculators-format
config, each limit on both sides."""

from __future__ import annotations

import pytest

from dspark_ckpt.loader.view import native_config

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
