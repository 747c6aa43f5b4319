"""Silent failures rebuilt from public bug reports (DSC670-DSC679): a tied head the runtime
swaps for the embedding, aux layers the runtime picks itself. Firing rows and their clean
twins, judged by the engine in-process; each row's comment names the report or the source
line that decides it.

The drafter is synth.py's (hidden 8, Vt 100), made into what each profile loads (rules_harness
``EAGLE3``, ``DFLASH``; SGLang's full layer set where it matters)."""

from __future__ import annotations

import pytest
import synth
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
    head,
    ids,
    mapping,
    zeros,
)
from synth import VT, H

from dspark_ckpt.commands.inspect import inspect_checkpoint

TIED = {"tie_word_embeddings": True}
EAGLE3_TIED = {**EAGLE3, **TIED}
# a pruned EAGLE-3 drafter as SpecForge writes one: its own 32-row head, d2t and t2d
PRUNED = {"lm_head.weight": head(32), **mapping(32), **SG_EAGLE3_LAYERS}
FULL = {"lm_head.weight": head(VT), **SG_EAGLE3_LAYERS}
NO_HEAD = {k: v for k, v in PRUNED.items() if k != "lm_head.weight"}
# targets with depth: 80 layers is Llama 3.3 70B's (vLLM PR #50170), 8 a small one
N80 = Tgt.of(num_hidden_layers=80, hidden_size=H)
N8 = Tgt.of(num_hidden_layers=8, hidden_size=H)
N64 = Tgt.of(num_hidden_layers=64, hidden_size=H)
N24 = Tgt.of(num_hidden_layers=24, hidden_size=H)  # gpt-oss-20b's depth
N5, N6, N7 = (Tgt.of(num_hidden_layers=n, hidden_size=H) for n in (5, 6, 7))
# a P-EAGLE drafter named as speculators names one, in the config format TensorRT-LLM reads
PEAGLE = {
    **EAGLE3,
    "architectures": ["PEagleDraftModel"],
    "eagle_config": None,
}  # the depth sglang #37475 implies (span 60)
DFLASH5 = {**DFLASH, "num_hidden_layers": 5, "target_layer_ids": None}
NO_IDS = {"target_layer_ids": None, "eagle_config": None}


def fc(states: int):
    return {"fc.weight": zeros("F32", (H, states * H))}


# a target with weights, and embeddings of its shape: its own copy (the same values: seed 7,
# synth.target's) and another one (TorchSpec issue #38: an export wrote a random embedding)
WEIGHTED = Tgt.of(embed_rows=VT)
OWN_COPY = {"embed_tokens.weight": synth.head(VT, H, 7)}
OTHER_COPY = {"embed_tokens.weight": head(VT)}

CASES: list[Case] = [
    # DSC673: vLLM keeps a shipped embedding whose values differ (spec_decode/eagle/utils.py:
    # 18-34, torch.equal); https://github.com/torchspec-project/TorchSpec/issues/38
    fires("DSC673", "own-embedding-other-values", target=WEIGHTED, tensors=OTHER_COPY,
          says="but other values (of 16 rows read from each)"),
    clean("DSC673", "own-embedding-the-targets-copy", target=WEIGHTED, tensors=OWN_COPY),
    # SGLang replaces a shipped embedding with the target's, whatever it holds
    clean("DSC673", "sglang-replaces-it", profile="sglang-dspark", target=WEIGHTED,
          tensors=OTHER_COPY),
    # no target weights to read rows from: not told, no finding
    clean("DSC673", "no-target-weights", tensors=OTHER_COPY),
    # DSC670: tie_word_embeddings. https://github.com/sgl-project/SpecForge/issues/139 (and PR
    # #140): SpecForge's configs/qwen3-4b-eagle3.json set it true on a 32000-of-151936 drafter;
    # https://github.com/NVIDIA-NeMo/Automodel/pull/2319: a draft config copied from a tied
    # target (Llama 3.2 1B) kept it. SGLang (llama_eagle3.py:300-304) makes lm_head the embedding.
    fires("DSC670", "sglang-pruned-head-shipped", profile="sglang-eagle3", draft=32,
          config=EAGLE3_TIED, tensors=PRUNED, says="never loads the shipped lm_head [32, 8]",
          hint="set tie_word_embeddings false"),
    clean("DSC670", "sglang-pruned-untied", profile="sglang-eagle3", draft=32,
          config={**EAGLE3, "tie_word_embeddings": False}, tensors=PRUNED),
    fires("DSC670", "sglang-pruned-no-head", profile="sglang-eagle3", draft=32,
          config=EAGLE3_TIED, tensors=NO_HEAD, says="cut to its first 32 logits"),
    # the embedding is the head, as the config says, at the full vocab: nothing swapped
    clean("DSC670", "sglang-full-vocab-no-head", profile="sglang-eagle3", config=EAGLE3_TIED,
          tensors=SG_EAGLE3_LAYERS),
    fires("DSC670", "sglang-full-vocab-head-shipped", profile="sglang-eagle3", config=EAGLE3_TIED,
          tensors=FULL, says="makes lm_head the target's embedding"),
    # an embedding of its own (target_hidden_size differs: llama.py:910-916 keeps it)
    fires("DSC670", "sglang-own-embedding", profile="sglang-eagle3", draft=32,
          config={**EAGLE3_TIED, "target_hidden_size": 2 * H},
          tensors={**PRUNED, "fc.weight": zeros("F32", (H, 4 * H))},
          says="makes lm_head its own embed_tokens"),
    # vLLM's drafter classes never read the key (llama_eagle3.py:329: its own head)
    clean("DSC670", "vllm-never-reads-it", profile="vllm-eagle3", draft=32, config=EAGLE3_TIED,
          tensors=PRUNED),
    clean("DSC670", "vllm-dspark-never-reads-it", profile="vllm", config=TIED),
    # TensorRT-LLM: the tie reads the embedding the target shares (None at build)
    fires("DSC670", "trtllm-shared-embedding", profile="trtllm-eagle3", draft=32,
          config=EAGLE3_TIED, tensors=PRUNED, says="fails building the drafter"),
    clean("DSC670", "trtllm-untied", profile="trtllm-eagle3", draft=32, config=EAGLE3,
          tensors=PRUNED),
    fires("DSC670", "trtllm-own-embedding", profile="trtllm-eagle3", draft=32,
          config={**EAGLE3_TIED, "target_hidden_size": 2 * H}, tensors=PRUNED,
          says="never loads the shipped lm_head"),
    # SGLang's and TensorRT-LLM's block drafters always take the target's head
    clean("DSC670", "sglang-dflash-never-reads-it", profile="sglang-dflash",
          config={**DFLASH, **TIED}, tensors=SG_BLOCK_LAYERS),
    clean("DSC670", "trtllm-dspark-never-reads-it", profile="trtllm-dspark-legacy", config=TIED),
    # DSC671: no aux layer ids, the runtime's default fed. https://github.com/vllm-project/vllm/
    # pull/50170: nvidia/Llama-3.3-70B-Instruct-Eagle3 names none, vLLM fed (2, 40, 77) of
    # Llama 3.3 70B and measured 1.21% acceptance against 58.9% with the trained layers
    fires("DSC671", "vllm-eagle3-llama-70b", profile="vllm-eagle3", target=N80,
          config={**EAGLE3, **NO_IDS}, tensors=fc(3),
          says="the states entering layers [2, 40, 77]",
          hint="--set 'eagle_aux_hidden_state_layer_ids=[2,40,77]'`", exactly=("DSC671",)),
    clean("DSC671", "vllm-eagle3-ids-pinned", profile="vllm-eagle3", target=N80,
          config={**EAGLE3, **NO_IDS, "eagle_aux_hidden_state_layer_ids": [2, 40, 77]},
          tensors=fc(3), exactly=()),
    # SGLang captures eagle_config's id + 1: the same states are written one lower
    fires("DSC671", "sglang-eagle3-llama-70b", profile="sglang-eagle3", target=N80,
          config={**EAGLE3, **NO_IDS}, tensors={**FULL, **fc(3)},
          says="the states entering layers [2, 40, 77]",
          hint="--set 'eagle_config.eagle_aux_hidden_state_layer_ids=[1,39,76]'`"),
    clean("DSC671", "sglang-eagle3-ids-pinned", profile="sglang-eagle3", target=N80,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 39, 76]}},
          tensors={**FULL, **fc(3)}),
    # SGLang DFlash: one layer per drafter layer (dflash_utils.py:348-385)
    fires("DSC671", "sglang-dflash-one-layer", profile="sglang-dflash", target=N8,
          config={**DFLASH, "target_layer_ids": None}, tensors={**SG_BLOCK_LAYERS, **fc(1)},
          says="the states entering layers [5]",
          hint="--set 'dflash_config.target_layer_ids=[4]'`", exactly=("DSC671",)),
    # https://github.com/sgl-project/sglang/issues/37475: without dflash_config.target_layer_ids
    # SGLang guesses [1, 16, 31, 46, 61] for z-lab/Qwen3.8-27B-DFlash2 (5 layers, 64-layer
    # target), trained on [5, 19, 33, 47, 61]: as many states as fc takes, no error
    fires("DSC671", "sglang-dflash2-five-layers", profile="sglang-dflash", target=N64,
          config=DFLASH5, tensors=fc(5), says="the states entering layers [2, 17, 32, 47, 62]",
          hint="--set 'dflash_config.target_layer_ids=[1,16,31,46,61]'`"),
    clean("DSC671", "sglang-dflash2-trained-ids", profile="sglang-dflash", target=N64,
          config={**DFLASH5, "dflash_config": {"target_layer_ids": [5, 19, 33, 47, 61]}},
          tensors=fc(5)),
    # one finding per root cause: another count fed than fc takes is DSC650's error
    clean("DSC671", "vllm-dflash-count-differs", profile="vllm-dflash", target=N8,
          config={**DFLASH, **NO_IDS}, tensors=fc(1), exactly=("DSC650",)),
    fires("DSC671", "vllm-dflash-count-matches", profile="vllm-dflash", target=N8,
          config={**DFLASH, **NO_IDS, "num_hidden_layers": 3}, tensors=fc(3),
          says="the states entering layers [2, 4, 5]"),
    # trained ids under a key vLLM does not read: DSC651 says whether they differ
    clean("DSC671", "vllm-eagle3-unread-trained-ids", profile="vllm-eagle3", target=N8,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 5]}},
          tensors=fc(3), exactly=("DSC651",)),
    # no fc fed at all (use_aux_hidden_state false): no layer is picked
    clean("DSC671", "vllm-eagle3-no-aux", profile="vllm-eagle3", target=N80,
          config={**EAGLE3, "target_layer_ids": None,
                  "eagle_config": {"use_aux_hidden_state": False}}),
    # TensorRT-LLM reads no aux ids from the drafter: without the serving config's
    # eagle3_layers_to_capture it captures the outputs of layers (1, N // 2 - 1, N - 4)
    # (speculative/eagle3.py Eagle3OneModelSpecMetadata), the states entering (2, 40, 77) here
    fires("DSC671", "trtllm-eagle3-llama-70b", profile="trtllm-eagle3", target=N80,
          config={**EAGLE3, **NO_IDS}, tensors={**PRUNED, **fc(3)}, draft=32,
          says="the states entering layers [2, 40, 77]",
          hint="eagle3_layers_to_capture: [1, 39, 76]", exactly=("DSC671",)),
    # trained ids it does not read but that are the layers it feeds: nothing to say
    clean("DSC671", "trtllm-eagle3-trained-ids-are-its-default", profile="trtllm-eagle3",
          target=N80, config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids":
                                                         [1, 39, 76]}},
          tensors={**PRUNED, **fc(3)}, draft=32, exactly=()),
    # DSC651 under TensorRT-LLM: SpecForge's gpt-oss-20b ids [1, 11, 21] (SGLang captures id + 1:
    # layers 2, 12, 22 of 24); TensorRT-LLM feeds the outputs of (1, 11, 20): the serving config
    # pins them, the same numbers (the output of layer id is the state entering id + 1)
    fires("DSC651", "trtllm-eagle3-gpt-oss-20b", profile="trtllm-eagle3", target=N24,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 11, 21]}},
          tensors={**PRUNED, **fc(3)}, draft=32, says="the states entering layers [2, 12, 21]",
          hint="serve with speculative_config.eagle3_layers_to_capture: [1, 11, 21]",
          exactly=("DSC651",)),
    clean("DSC651", "trtllm-eagle3-trained-on-its-default", profile="trtllm-eagle3", target=N24,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 11, 20]}},
          tensors={**PRUNED, **fc(3)}, draft=32, exactly=()),
    # DSC693: a shallow target. eagle3.py: 'num_layers <= 5' raises 'Not enough hidden layers for
    # default EAGLE3 capture'; 6 layers give (1, 2, 2), three slots of which two are written
    fires("DSC693", "trtllm-eagle3-five-layers", profile="trtllm-eagle3", target=N5,
          config={**EAGLE3, **NO_IDS}, tensors={**PRUNED, **fc(3)}, draft=32,
          says="'Not enough hidden layers for default EAGLE3 capture' at start-up",
          hint="eagle3_layers_to_capture", exactly=("DSC693",)),
    fires("DSC693", "trtllm-eagle3-six-layers", profile="trtllm-eagle3", target=N6,
          config={**EAGLE3, **NO_IDS}, tensors={**PRUNED, **fc(3)}, draft=32,
          says="(1, 2, 2) for this 6-layer target", exactly=("DSC693",)),
    clean("DSC693", "trtllm-eagle3-seven-layers", profile="trtllm-eagle3", target=N7,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 2, 3]}},
          tensors={**PRUNED, **fc(3)}, draft=32, exactly=()),
    # vLLM reads the drafter's ids and its own default is deduplicated: no such refusal
    clean("DSC693", "vllm-eagle3-five-layers", profile="vllm-eagle3", target=N5,
          config={**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 2, 3]}, tensors=fc(3)),
    # DSC694: modeling_speculative.py _build_eagle3_one_model_draft builds Eagle3ForCausalLM
    # whatever architectures says; no mask_hidden parameter; the worker drafts one token a step
    fires("DSC694", "trtllm-eagle3-peagle", profile="trtllm-eagle3", config=PEAGLE,
          tensors={**PRUNED, **fc(3), "mask_hidden": zeros("F32", (1, 3 * H))}, draft=32,
          says="builds it as the plain EAGLE-3 model", exactly=("DSC694",)),
    clean("DSC694", "trtllm-eagle3-plain", profile="trtllm-eagle3", config=EAGLE3,
          tensors={**PRUNED, **fc(3)}, draft=32, exactly=()),
    # a silent mis-load of the same kind, already judged (DSC601): https://github.com/
    # sgl-project/sglang/pull/27908, nvidia/Kimi-K2.6-Eagle3 sets draft_vocab_size and ships
    # no lm_head: SGLang builds a head nothing loads ("accept rate: 0.00"); Kimi's class reads
    # it as llama_eagle3.py:305-308 does
    fires("DSC601", "sglang-draft-vocab-set-no-head", profile="sglang-eagle3", config=EAGLE3,
          tensors=SG_EAGLE3_LAYERS, says="nothing loads"),
    clean("DSC601", "sglang-draft-vocab-set-head-shipped", profile="sglang-eagle3",
          config=EAGLE3, tensors=FULL),
    # the tie is read as Python truthiness (llama_eagle3.py:303 `if
    # self.config.tie_word_embeddings:`): with 1 the head is the embedding, not a head nothing
    # loads (DSC601) nor the target's (DSC602); DSC670 says it, once (loader/heads.py)
    clean("DSC601", "sglang-tie-1-head-is-embedding", profile="sglang-eagle3", draft=32,
          config={**EAGLE3, "tie_word_embeddings": 1}, tensors=NO_HEAD),
    fires("DSC670", "sglang-tie-1-no-head", profile="sglang-eagle3", draft=32,
          config={**EAGLE3, "tie_word_embeddings": 1}, tensors=NO_HEAD,
          says="cut to its first 32 logits"),
    clean("DSC602", "sglang-tie-1-no-draft-vocab", profile="sglang-eagle3", draft=None,
          config={**EAGLE3, "tie_word_embeddings": 1}, tensors=PRUNED),
    fires("DSC670", "sglang-tie-1-head-shipped", profile="sglang-eagle3", draft=None,
          config={**EAGLE3, "tie_word_embeddings": 1}, tensors=PRUNED,
          says="never loads the shipped lm_head"),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_case(bench, case):
    check(bench, case)


def test_aux_default_is_not_made_without_the_target_depth(bench):
    """Against a bare vocab size the target's depth is unknown: DSC671 is listed as a check
    not made, not passed."""
    folder = bench.drafter({**EAGLE3, **NO_IDS}, fc(3))
    report = inspect_checkpoint(str(folder), bench.target(VT), "vllm-eagle3")
    assert "DSC671" in {n.code for n in report.not_checked}
    assert "DSC671" not in {f.code for f in report.findings}


@pytest.mark.parametrize(
    ("profile", "tensors", "end"),
    [
        ("vllm-eagle3", fc(3), "put the trained ids in their place"),
        ("sglang-eagle3", {**FULL, **fc(3)}, "their place (each id + 1 is the layer fed)"),
    ],
)
def test_dsc671_says_the_shift_only_where_the_runtime_shifts_the_ids(bench, profile, tensors, end):
    r = bench.case(config={**EAGLE3, **NO_IDS}, tensors=tensors, target=N80, profile=profile)
    (found,) = [f for f in r.findings if f.code == "DSC671"]
    assert found.hint.endswith(end), found.hint
