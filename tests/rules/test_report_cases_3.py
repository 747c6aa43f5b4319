"""Cases rebuilt from public bug reports, round 3: DFlash target layers, a sharded drafter's
index, speculators-format norms. Each row names its report and the runtime source line (vLLM
0.33.0, SGLang 0.5.23) that decides it today; firing rows have their clean twins. The drafter
is synth.py's (hidden 8, Vt 100) made into what each profile loads (rules_harness)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_harness import (
    DFLASH,
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_EAGLE3_LAYERS,
    Case,
    Tgt,
    check,
    clean,
    fires,
    ids,
    split_off,
    zeros,
)
from synth import VT, H

# --- https://github.com/vllm-project/vllm/pull/48113: z-lab/Qwen3-4B-DFlash-b16
# (dflash_config.target_layer_ids [1, 9, 17, 25, 33], fc over 5 states) paired with
# Qwen/Qwen3.5-4B (32 layers): "the aux hidden state for layer 34 is never produced ... `mat1
# and mat2 shapes cannot be multiplied`"; Qwen3-4B (36 layers), its real target, works.
# vLLM 0.33.0 adds 1 to each id (v1/worker/gpu_model_runner.py:5212-5216) and Qwen2Model
# captures boundaries 0..N only (models/qwen2.py:423-434): 34 > 32, four states for five
# (qwen3_dflash.py:838-844 now raises "DFlash drafter expects ... concatenated aux hidden
# features"). SGLang 0.5.23 refuses an id >= the target's layer count at start-up
# (speculative/dflash_utils.py:580-585 "out-of-range layer id")
ZLAB = {
    **DFLASH,
    "target_layer_ids": None,
    "dflash_config": {"target_layer_ids": [1, 9, 17, 25, 33]},
}
FC5 = {"fc.weight": zeros("F32", (H, 5 * H))}
QWEN3_4B = Tgt.of(num_hidden_layers=36, hidden_size=H)
QWEN35_4B = Tgt.of(num_hidden_layers=32, hidden_size=H)


# --- https://github.com/sgl-project/sglang/pull/32279 ("Fail fast when a safetensors index
# references missing shard files": on an interrupted download the shard the index names was
# dropped from the file list and its weights left uninitialised). SGLang 0.5.23 raises
# "references ... shard file(s) missing ... (incomplete download?)" (model_loader/
# weight_utils.py:797-804); vLLM 0.33.0 raises FileNotFoundError "Weight files referenced in
# index but missing" (model_loader/weight_utils.py:607-613). The drafter: fc.weight moved to a
# second shard that the index names, then the shard deleted
def shard_lost(folder: Path) -> None:
    split_off("fc.weight")(folder)
    (folder / "model-00002-of-00002.safetensors").unlink()


# --- https://github.com/vllm-project/vllm/pull/38111 ("Propagate norm_before_fc from Eagle3
# speculator": checkpoints trained with norm_before_fc: true "silently skipped the RMSNorm
# before the fc projection"). vLLM 0.33.0 copies the key from a speculators config
# (transformers_utils/configs/speculators/algos.py:36) and builds input_norm where it is true
# (models/llama_eagle3.py:184-188, 223-227): the trained norm loads
SPECULATORS = {**EAGLE3, "speculators_model_type": "eagle3"}
INPUT_NORM = {"input_norm.weight": zeros("F32", (2 * H,))}

# --- https://github.com/NVIDIA/Model-Optimizer/pull/1621 (DFlash for MiniMax-M2.7, "auto
# mask-token"): the draft embeds masked slots with the target's embed_tokens, so "the mask id
# must be a token that physically exists in the target embedding"; a row resized in past the
# vocab is neither trained nor exported, a reserved row of a padded embedding is. vLLM 0.33.0
# reads mask_token_id (models/qwen3_dflash.py:454-456) and looks it up in the shared
# embedding; SGLang 0.5.23 refuses an id past the target's vocab_size at start-up
# (speculative/dflash_worker_v2.py:1400-1404 "outside the target vocab size"). Here Vt 100:
# id 100 is the resized-in row, 99 the last row the target has
MASK_RESIZED = {**DFLASH, "mask_token_id": VT}
MASK_RESERVED = {**DFLASH, "mask_token_id": VT - 1}


CASES: list[Case] = [
    fires("DSC703", "zlab-dflash-b16-over-qwen3.5-4b", profile="vllm-dflash", target=QWEN35_4B,
          config=ZLAB, tensors=FC5, says="the target produces 4 of the 5 states",
          exactly=("DSC703",)),
    clean("DSC703", "zlab-dflash-b16-over-qwen3-4b", profile="vllm-dflash", target=QWEN3_4B,
          config=ZLAB, tensors=FC5, exactly=()),
    fires("DSC703", "zlab-dflash-b16-over-qwen3.5-4b-sglang", profile="sglang-dflash",
          target=QWEN35_4B, config=ZLAB, tensors={**SG_BLOCK_LAYERS, **FC5},
          says="SGLang refuses the config at start-up", exactly=("DSC703",)),
    clean("DSC703", "zlab-dflash-b16-over-qwen3-4b-sglang", profile="sglang-dflash",
          target=QWEN3_4B, config=ZLAB, tensors={**SG_BLOCK_LAYERS, **FC5}, exactly=()),
    fires("DSC001", "index-names-a-missing-shard-sglang", profile="sglang-eagle3", config=EAGLE3,
          tensors=SG_EAGLE3_LAYERS, mutate=shard_lost,
          says="missing shard(s): model-00002-of-00002.safetensors"),
    fires("DSC001", "index-names-a-missing-shard", profile="vllm-eagle3", config=EAGLE3,
          mutate=shard_lost, says="missing shard(s): model-00002-of-00002.safetensors"),
    clean("DSC001", "index-and-both-shards", profile="vllm-eagle3", config=EAGLE3,
          mutate=split_off("fc.weight"), exactly=()),
    clean("DSC652", "speculators-norm-before-fc-propagated", profile="vllm-eagle3",
          config={**SPECULATORS, "norm_before_fc": True}, tensors=INPUT_NORM, exactly=()),
    # the config says norm_before_fc and no input_norm is stored: vLLM builds the norm and
    # nothing fills it (no check of what load_weights did not fill)
    fires("DSC652", "speculators-norm-before-fc-without-the-norm", profile="vllm-eagle3",
          config={**SPECULATORS, "norm_before_fc": True}, says="(input_norm)",
          exactly=("DSC652",)),
    # the trained norm stored and the key left out: the translation defaults it to false, and
    # vLLM's loader drops every input_norm. name (models/llama_eagle3.py:464-465), no error
    fires("DSC674", "speculators-trained-norm-dropped", profile="vllm-eagle3",
          config=SPECULATORS, tensors=INPUT_NORM, says="is stored and norm_before_fc is not true",
          exactly=("DSC674",)),
    clean("DSC674", "speculators-trained-norm-built", profile="vllm-eagle3",
          config={**SPECULATORS, "norm_before_fc": True}, tensors=INPUT_NORM),
    # SGLang builds none either (models/llama_eagle3.py:173-182) and skips the name
    fires("DSC674", "sglang-trained-norm-skipped", profile="sglang-eagle3", config=EAGLE3,
          tensors={**SG_EAGLE3_LAYERS, **INPUT_NORM}, says="skips the trained one"),
    clean("DSC674", "sglang-trained-norm-built", profile="sglang-eagle3",
          config={**EAGLE3, "eagle_config": {**EAGLE3["eagle_config"], "norm_before_fc": True}},
          tensors={**SG_EAGLE3_LAYERS, **INPUT_NORM}),
    # a native config's eagle_config key wins over the top level's (llama_eagle3.py:184-188)
    fires("DSC674", "eagle-config-says-no-norm", profile="vllm-eagle3",
          config={**EAGLE3, "norm_before_fc": True,
                  "eagle_config": {**EAGLE3["eagle_config"], "norm_before_fc": False}},
          tensors=INPUT_NORM, says="eagle_config.norm_before_fc is not true"),
    fires("DSC208", "dflash-mask-id-resized-in", profile="vllm-dflash", config=MASK_RESIZED,
          says="outside the input vocab [0, 100)", exactly=("DSC208",)),
    clean("DSC208", "dflash-mask-id-reserved-row", profile="vllm-dflash", config=MASK_RESERVED,
          exactly=()),
    fires("DSC208", "dflash-mask-id-resized-in-sglang", profile="sglang-dflash",
          config=MASK_RESIZED, tensors=SG_BLOCK_LAYERS, says="refuses it at start-up",
          exactly=("DSC208",)),
    clean("DSC208", "dflash-mask-id-reserved-row-sglang", profile="sglang-dflash",
          config=MASK_RESERVED, tensors=SG_BLOCK_LAYERS, exactly=()),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)
