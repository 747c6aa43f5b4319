"""What each runtime release does when it loads the drafter (DSC101-DSC112, DSC601-DSC605,
DSC620-DSC621):
firing rows and their clean twins, judged by the engine in-process.

Vt is 100 unless a row names another target; the drafter is synth.py's DSpark drafter
(hidden 8, fc [8, 16], markov_rank 4, mask id 0) with the row's changes."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import synth
from rules_harness import (
    DFLASH,
    EAGLE3,
    SG_BLOCK_LAYERS,
    SG_DSPARK,
    SG_EAGLE3_LAYERS,
    Case,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    mapping,
    zeros,
)
from synth import VT, H, T, markov

PRUNED_HEAD = {"lm_head.weight": head(40)}  # Vd 40 < Vt: a pruned drafter's own head
FC3 = {"fc.weight": zeros("F32", (H, 3 * H))}  # fc for 3 target states
PADDED = {"embed_tokens.weight": head(128), "lm_head.weight": head(128), **markov(128, 128)}
# SpecForge's full-vocab EAGLE-3: d2t all zeros and t2d all True, V = Vd = Vt
FULL_MAP = {
    "lm_head.weight": head(VT),
    "d2t": d2t(np.zeros(VT)),
    "t2d": T("BOOL", (VT,), np.ones(VT, bool)),
}
# SpecForge's DSpark training config: markov_rank and target_layer_ids only nested
NESTED = {
    "architectures": ["DSparkDraftModel"],
    "markov_rank": None,
    "target_layer_ids": None,
    "dflash_config": {
        "markov_rank": 4,
        "markov_head_type": "vanilla",
        "mask_token_id": 5,
        "target_layer_ids": [0, 1],
    },
}
# SGLang EAGLE-3 with draft_vocab_size null: the target's head, Vd = V
SG_NULL_VD = {**EAGLE3, "draft_vocab_size": None}
PREFIXED = {"model.lm_head.weight": head(40), "model.d2t": mapping(40)["d2t"]}
UNPREFIXED = {"lm_head.weight": head(40), "d2t": mapping(40)["d2t"]}
# TensorRT-LLM's strict load: names its Qwen3 DSpark model does not have
TRT_EXTRA = {
    **markov(VT, VT),
    "mask_embedding": zeros("F32", (H,)),
    "confidence_head.proj.weight": zeros("F32", (1, H)),
}
SPECULATORS = {**EAGLE3, "speculators_model_type": "eagle3"}
# EAGLE-3 over a Qwen2 target, named as its target (vLLM asks for Eagle3Qwen2ForCausalLM)
QWEN2 = {
    **EAGLE3,
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "markov_rank": None,
}
QK_NORMS = {f"layers.0.self_attn.{n}.weight": T("F32", (H,)) for n in ("q_norm", "k_norm")}
# a speculators-format config as speculators writes it: no model_type, the backbone apart
V_SPEC = {
    "model_type": None,
    "speculators_config": {"algorithm": "eagle3", "verifier": {"name_or_path": None}},
    "transformer_layer_config": {"model_type": "llama", "hidden_size": H, "vocab_size": VT},
    "target_layer_ids": None,
    "eagle_config": None,
}
# V = Vd = 90 < Vt: a pruned EAGLE-3 drafter with its own (smaller) embedding
OWN_EMBED_90 = {
    "embed_tokens.weight": head(90),
    "lm_head.weight": head(90),
    "d2t": d2t(np.zeros(90)),
}


# --- weight files beside the drafter's own (DSC620, DSC621): applied to its folder ------


def _write(name: str, tensors: dict[str, T]):
    def mutate(folder: Path) -> None:
        synth.write_safetensors(folder / name, tensors)

    return mutate


def _index(folder: Path) -> None:
    """A model.safetensors.index.json naming every *.safetensors of the folder, each for
    the tensors it holds."""
    wmap = {}
    for path in sorted(folder.glob("*.safetensors")):
        data = path.read_bytes()
        (n,) = struct.unpack("<Q", data[:8])
        wmap |= dict.fromkeys(
            (k for k in json.loads(data[8 : 8 + n]) if k != "__metadata__"), path.name
        )
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": wmap}))


def _both(*mutations):
    def mutate(folder: Path) -> None:
        for m in mutations:
            m(folder)

    return mutate


# the padded-row mask `fix --emit-mask` writes, left in the drafter's folder
MASK_BESIDE = _write(
    "draft_vocab_mask.safetensors", {"draft_vocab_mask": T("BOOL", (VT,), np.ones(VT, bool))}
)
TRAINING_STATE = _write(
    "training_state.safetensors",
    {"optimizer.state.0.exp_avg": zeros("F32", (H,)), "scheduler.step": zeros("I64", (1,))},
)
# the drafter's weights over two files, no index: both are its weights
SECOND_SHARD = _write("model-2.safetensors", {"embed_tokens.weight": zeros("F32", (VT, H))})
INDEXED_MASK = _both(_index, MASK_BESIDE)
# a sharded index beside an older single file holding drafter tensors
INDEXED_OLD_COPY = _both(_index, _write("old.safetensors", {"fc.weight": zeros("F32", (H, 2 * H))}))
# an index that names the training state too: vLLM loads what the index names
INDEXED_TRAINING_STATE = _both(TRAINING_STATE, _index)
INDEXED_BROKEN = _both(_index, lambda folder: (folder / "junk.safetensors").write_bytes(b"\0" * 5))


CASES: list[Case] = [
    # DSC101: an input vocab larger than the target's needs the drafter's own embedding
    fires("DSC101", "v101-no-embed", vocab=101, says="refuses to load it"),
    clean("DSC101", "v101-own-embed", vocab=101, tensors={"embed_tokens.weight": head(101)}),
    clean("DSC101", "v101-sglang-uses-target", vocab=101, profile="sglang-dspark"),
    # DSC102: a reduced vocab without lm_head
    fires("DSC102", "d40-no-head", draft=40, says="refuses to load it without lm_head",
          exactly=("DSC102", "DSC103")),
    clean("DSC102", "d40-own-head", draft=40, tensors=PRUNED_HEAD),
    fires("DSC102", "v99-d99-no-head", vocab=99, draft=99, says="Vd < Vt: 99 < 100"),
    clean("DSC102", "v100-d100-no-head", exactly=()),
    fires("DSC102", "d101-legacy-reduced", draft=101, profile="vllm-legacy", says="Vd != Vt"),
    clean("DSC102", "d101-vllm-not-reduced", draft=101),
    fires("DSC102", "eagle3-shares-target-head", profile="vllm-eagle3", by_default=True, draft=40,
          config=EAGLE3, tensors=mapping(40), says="draft id i is scored with target token i's row",
          exactly=("DSC102",)),
    # the target's head shared by a padded EAGLE-3 drafter (Vd != Vt): wider than Et, the
    # scatter of Et logits fails; at Et, the first Vd logits are kept (no error)
    fires("DSC102", "eagle3-padded-past-et", profile="vllm-eagle3", vocab=140, draft=140,
          config=EAGLE3, target="small", says="its 128 rows give 128 logits for a 140-wide"),
    fires("DSC102", "eagle3-padded-at-et", profile="vllm-eagle3", vocab=128, draft=128,
          config=EAGLE3, target="small", says="keeps its first 128 logits"),
    clean("DSC102", "eagle3-own-head", profile="vllm-eagle3", draft=40, config=EAGLE3,
          tensors={**mapping(40), **PRUNED_HEAD}),
    clean("DSC102", "sglang-dspark-head-from-target", profile="sglang-dspark", draft=40,
          config=SG_DSPARK, tensors={**markov(VT, VT), **SG_BLOCK_LAYERS}, exactly=(),
          verdicts={"sglang-dspark": True}),
    # DSC103: a reduced vocab without d2t
    fires("DSC103", "d40-no-d2t", draft=40, tensors=PRUNED_HEAD,
          says="no d2t mapping (pruned drafter, Vd < Vt: 40 < 100)", exactly=("DSC103",)),
    clean("DSC103", "d40-d2t", draft=40, tensors={**PRUNED_HEAD, **mapping(40)}, exactly=()),
    fires("DSC103", "padded-legacy-identity-hint", profile="vllm-legacy", vocab=128, draft=128,
          tensors=PADDED, hint="trim the padding: `dspark-ckpt fix DRAFTER --target T --out DIR` cuts Vd to Vt first"),
    # an equal drafter TensorRT-LLM's EAGLE-3 holds against vocab_size (100 != 128)
    fires("DSC103", "equal-trtllm-eagle3-identity-hint", profile="trtllm-eagle3", vocab=128,
          draft=VT, config=EAGLE3, tensors={"lm_head.weight": head(VT), "embed_tokens.weight":
          head(128)}, hint="`dspark-ckpt fix DRAFTER --target T --emit-d2t` writes the identity d2t"),
    clean("DSC103", "padded-vllm-no-parameter", vocab=128, draft=128, tensors=PADDED),
    fires("DSC103", "t2d-derivable-hint", draft=32,
          tensors={"lm_head.weight": head(32), "t2d": mapping(32)["t2d"]},
          hint="derives d2t from the t2d this checkpoint has"),
    # TensorRT-LLM makes d2t with torch.empty and its weight loader requires every parameter of
    # the module it loads (modeling_utils.py `assert n in module_weights`): refused at load; the
    # fc of 3 states is what it builds without eagle3_layers_to_capture
    fires("DSC103", "trtllm-eagle3-refused", profile="trtllm-eagle3", draft=40, config=EAGLE3,
          tensors={**PRUNED_HEAD, **FC3}, says="'assert n in module_weights'): the load fails",
          exactly=("DSC103",)),
    clean("DSC103", "trtllm-eagle3-d2t", profile="trtllm-eagle3", draft=40, config=EAGLE3,
          tensors={**PRUNED_HEAD, **mapping(40)}),
    # TensorRT-LLM's EAGLE-3 compares Vd with the drafter's vocab_size, not with Vt: Vd 128 of
    # V 128 on Vt 100 is no reduced vocab (no d2t), Vd 100 of V 128 is one
    clean("DSC103", "trtllm-eagle3-vd-equal-to-v-not-vt", profile="trtllm-eagle3", vocab=128,
          draft=128, config=EAGLE3, tensors={"lm_head.weight": head(128)}),
    fires("DSC103", "trtllm-eagle3-vd-below-v", profile="trtllm-eagle3", vocab=128, draft=VT,
          config=EAGLE3, tensors={"lm_head.weight": head(VT)}, says="Vd != V: 100 != 128"),
    clean("DSC103", "sglang-dspark-d2t-unused", profile="sglang-dspark", draft=40,
          tensors=markov(VT, VT)),
    # DSC104: a padded drafter without lm_head
    fires("DSC104", "padded-no-head", vocab=128, draft=128,
          tensors={"embed_tokens.weight": head(128)}, says="the draft head stays uninitialised"),
    clean("DSC104", "padded-own-head", vocab=128, draft=128, tensors=PADDED),
    clean("DSC104", "padded-trtllm-target-head", profile="trtllm-dspark-legacy", vocab=128, draft=128,
          tensors={"embed_tokens.weight": head(128)}),
    # DSC105: a d2t the runtime has no parameter for
    fires("DSC105", "equal-with-d2t", tensors={"d2t": d2t(np.zeros(VT))},
          says="There is no module or parameter named"),
    clean("DSC105", "equal-without-d2t"),
    fires("DSC105", "eagle3-full-vocab-map", profile="vllm-eagle3", config=EAGLE3, tensors=FULL_MAP,
          says="There is no module or parameter named", exactly=("DSC105",),
          verdicts={"vllm-eagle3": False, "vllm-eagle3-legacy": True}),
    clean("DSC105", "eagle3-full-vocab-map-legacy", profile="vllm-eagle3-legacy", config=EAGLE3,
          tensors=FULL_MAP, exactly=()),
    fires("DSC105", "trtllm-strict-d2t", profile="trtllm-dspark-legacy",
          tensors={"d2t": d2t(np.zeros(VT))}, says="strict state dict"),
    clean("DSC105", "trtllm-no-d2t", profile="trtllm-dspark-legacy"),
    # DSC106: Qwen3-Omni targets check Vd <= Vt at config time
    fires("DSC106", "padded-on-omni", vocab=128, draft=128, tensors=PADDED, target="omni",
          says="refuses it at config time"),
    clean("DSC106", "padded-on-vl", vocab=128, draft=128, tensors=PADDED, target="vl"),
    # DSC107: keys read only at the top level of config.json
    fires("DSC107", "markov-rank-nested", config=NESTED, tensors=markov(VT, VT),
          says="only nested as dflash_config.markov_rank",
          hint="copy dflash_config.markov_rank to the top level", exactly=("DSC107",)),
    fires("DSC107", "markov-rank-nested-sglang", profile="sglang-dspark", config=NESTED,
          tensors={**markov(VT, VT), **SG_BLOCK_LAYERS}, exactly=("DSC107",)),
    fires("DSC107", "markov-rank-and-layer-ids-nested-trtllm", profile="trtllm-dspark-legacy",
          config=NESTED, tensors=markov(VT, VT), says="target_layer_ids is only nested",
          exactly=("DSC107", "DSC107", "DSC112")),
    clean("DSC107", "markov-rank-top-level",
          config={**NESTED, "markov_rank": 4, "target_layer_ids": [0, 1]}, tensors=markov(VT, VT)),
    clean("DSC107", "trtllm-top-level", profile="trtllm-dspark-legacy",
          config={**NESTED, "markov_rank": 4, "target_layer_ids": [0, 1]}, tensors=markov(VT, VT)),
    # DSC108: a family no profile covers is not judged
    fires("DSC108", "mtp", config={"architectures": ["DeepSeekMTPModel"], "markov_rank": None},
          says="this is an MTP drafter (architectures/model_type: DeepSeekMTPModel), not "
          "judged: vLLM 0.33.0 builds DeepSeekMTP: MTP: the draft layers "
          "are read from the target checkpoint"),
    # every classic EAGLE architecture is judged (the last: vllm-eagle-deepseek)
    clean("DSC108", "eagle1-deepseek", profile="vllm-eagle-deepseek", by_default=True,
          config={"architectures": ["EagleDeepSeekMTPModel"], "markov_rank": None}),
    # (a release named, no profile: a profile named gives the method, hence the family)
    fires("DSC108", "no-family", draft=None, profile="vllm==0.33.0",
          config={"architectures": [], "markov_rank": None}),
    clean("DSC108", "dspark-by-architecture", config={"markov_rank": None}),
    clean("DSC108", "p-eagle-is-eagle3", profile="vllm-eagle3", by_default=True,
          config={"architectures": ["PEagleDraftModel"]}),
    # DSC109: DFlash/DSpark need a mask token id
    fires("DSC109", "dflash-no-mask", profile="vllm-dflash", by_default=True,
          config={**DFLASH, "mask_token_id": None},
          says="refuses a DFlash/DSpark drafter without one", exactly=("DSC109",)),
    clean("DSC109", "dflash-mask", profile="vllm-dflash", config=DFLASH, exactly=()),
    clean("DSC109", "sglang-dflash-from-tokenizer", profile="sglang-dflash",
          config={**DFLASH, "mask_token_id": None}),
    # DSC110: an own embedding smaller than the target vocab is kept and overrun
    fires("DSC110", "eagle3-v90-own-embed", profile="vllm-eagle3", vocab=90, draft=90,
          config=EAGLE3, tensors=OWN_EMBED_90,
          says="is an index error", exactly=("DSC110",)),
    clean("DSC110", "eagle3-v90-sglang-replaces-it", profile="sglang-eagle3", vocab=90, draft=90,
          config=EAGLE3, tensors=OWN_EMBED_90),
    clean("DSC110", "eagle3-v90-no-embed", profile="vllm-eagle3", vocab=90, draft=90, config=EAGLE3,
          tensors={"lm_head.weight": head(90), "d2t": d2t(np.zeros(90))}),
    # DSC111: names under a wrapper prefix
    fires("DSC111", "model-prefix", draft=40, tensors=PREFIXED,
          says="There is no module or parameter named"),
    fires("DSC111", "model-prefix-trtllm", profile="trtllm-dspark-legacy", draft=40, tensors=PREFIXED),
    clean("DSC111", "model-prefix-sglang-strips", profile="sglang-dspark", draft=40,
          tensors=PREFIXED),
    clean("DSC111", "no-prefix", draft=40, tensors=UNPREFIXED),
    # the message quotes the first 3 names and counts the rest
    fires("DSC111", "four-prefixed-names", draft=40, tensors={**PREFIXED, "norm.weight": None,
          "model.norm.weight": zeros("F32", (H,)), "fc.weight": None,
          "model.fc.weight": zeros("F32", (H, 2 * H))},
          says="4 tensor name(s) carry a wrapper prefix (model.d2t, model.fc.weight, "
          "model.lm_head.weight and 1 more)"),
    # DSC112: TensorRT-LLM's strict state-dict load
    fires("DSC112", "trtllm-extra-names", profile="trtllm-dspark-legacy", tensors=TRT_EXTRA,
          target="small", says="(confidence_head.proj.weight, mask_embedding)",
          exactly=("DSC112", "DSC605")),
    clean("DSC112", "trtllm-confidence-head-enabled", profile="trtllm-dspark-legacy",
          config={"enable_confidence_head": True},
          tensors={**markov(VT, VT), "confidence_head.proj.weight": zeros("F32", (1, H))}),
    clean("DSC112", "vllm-not-strict", tensors=TRT_EXTRA),
    # DSC601: SGLang EAGLE-3 builds a head nothing loads
    fires("DSC601", "sglang-eagle3-draft-vocab-no-head", profile="sglang-eagle3", config=EAGLE3,
          says="creates a [100, H] head that nothing loads"),
    clean("DSC601", "sglang-eagle3-null-draft-vocab", profile="sglang-eagle3", draft=None,
          config=SG_NULL_VD),
    clean("DSC601", "sglang-eagle3-tied", profile="sglang-eagle3",
          config={**EAGLE3, "tie_word_embeddings": True}),
    # DSC602: a shipped head replaced by the target's
    fires("DSC602", "sglang-eagle3-null-draft-vocab", profile="sglang-eagle3", draft=None,
          config=SG_NULL_VD, tensors={"lm_head.weight": head(VT), **SG_EAGLE3_LAYERS},
          exactly=("DSC501", "DSC602"),
          says="because the config has no draft_vocab_size",
          hint="write draft_vocab_size: 100 (the shipped head's rows)"),
    clean("DSC602", "sglang-eagle3-draft-vocab", profile="sglang-eagle3", config=EAGLE3,
          tensors={"lm_head.weight": head(VT)}),
    fires("DSC602", "trtllm-pruned-head", profile="trtllm-dspark-legacy", draft=40,
          tensors={**PRUNED_HEAD, **markov(VT, VT)}, says="always uses the target's lm_head",
          hint="trtllm-dspark-legacy never loads a drafter's own head"),
    # the DSpark loader of SGLang skips lm_head.*: no draft_vocab_size to write (it has one)
    fires("DSC602", "sglang-dspark-pruned-head", profile="sglang-dspark", draft=40,
          tensors={**PRUNED_HEAD, **markov(VT, VT)},
          hint="sglang-dspark never loads a drafter's own head"),
    clean("DSC602", "trtllm-equal-head", profile="trtllm-dspark-legacy",
          tensors={"lm_head.weight": head(VT), **markov(VT, VT)}),
    # DSC603: Vd > V breaks the drafter itself
    fires("DSC603", "dspark-d101", draft=101, tensors={"lm_head.weight": head(101)},
          says="into markov_w1 (100 rows)"),
    clean("DSC603", "dspark-d100", tensors={"lm_head.weight": head(100)}),
    fires("DSC603", "eagle3-d128", profile="vllm-eagle3", by_default=True, draft=128, config=EAGLE3,
          tensors={"lm_head.weight": head(128)},
          says="into a 100-wide row at arange(Vd) + d2t: an index error",
          exactly=("DSC401", "DSC603")),
    clean("DSC603", "eagle3-d128-sglang", profile="sglang-eagle3", draft=128, config=EAGLE3,
          tensors={"lm_head.weight": head(128)}),
    # Vd == Vt > V: no d2t parameter (not reduced), the logits asserted V wide
    fires("DSC603", "eagle3-v90-d100-not-reduced", profile="vllm-eagle3", vocab=90, config=EAGLE3,
          tensors={"lm_head.weight": head(VT), "embed_tokens.weight": head(90)},
          says="asserts the 100 draft logits are vocab_size (90) wide"),
    clean("DSC603", "eagle3-v100-d100", profile="vllm-eagle3", config=EAGLE3,
          tensors={"lm_head.weight": head(VT)}),
    # DSC604: SGLang reads no speculators-format config
    fires("DSC604", "sglang-speculators-config", profile="sglang-eagle3", config=SPECULATORS,
          says="speculators-format config", verdicts={"vllm-eagle3": True, "sglang-eagle3": False}),
    clean("DSC604", "sglang-eagle3-config", profile="sglang-eagle3", config=EAGLE3),
    clean("DSC604", "vllm-reads-speculators", profile="vllm-eagle3", config=SPECULATORS),
    # DSC605: TensorRT-LLM adds a Markov bias of V columns to the target head's logits
    fires("DSC605", "trtllm-v100-head-128", profile="trtllm-dspark-legacy", tensors=markov(VT, VT),
          target="small",
          says="vocab_size 100 differs from the target's lm_head.weight rows (128)"),
    clean("DSC605", "trtllm-v128-head-128", profile="trtllm-dspark-legacy", vocab=128,
          tensors=markov(128, 128), target="small"),
    clean("DSC605", "trtllm-head-unknown", profile="trtllm-dspark-legacy", tensors=markov(VT, VT)),
    # DSC620: a stray *.safetensors is loaded with the weights, and refused
    fires("DSC620", "emit-mask-output-beside", mutate=MASK_BESIDE,
          says="draft_vocab_mask.safetensors holds no tensor of the drafter (draft_vocab_mask) "
          "(the padded-row mask `dspark-ckpt fix DRAFTER --target T --emit-mask` writes",
          hint="move draft_vocab_mask.safetensors out of the drafter's folder",
          exactly=("DSC620",), verdicts={"vllm": False}),
    fires("DSC620", "training-state-beside-eagle3", profile="vllm-eagle3", config=EAGLE3,
          mutate=TRAINING_STATE, says="its weight loader raises 'There is no module or "
          "parameter named ...'", hint="names only the weight files"),
    fires("DSC620", "mask-beside-trtllm-strict", profile="trtllm-dspark-legacy", tensors=markov(VT, VT),
          mutate=MASK_BESIDE, says="load_state_dict(strict=True) raises 'Unexpected key(s)'",
          exactly=("DSC620",)),
    fires("DSC620", "indexed-mask-beside-trtllm", profile="trtllm-dspark-legacy",
          tensors=markov(VT, VT), mutate=INDEXED_MASK,
          says="model.safetensors.index.json does not name it, but TensorRT-LLM loads every"),
    fires("DSC620", "indexed-old-copy-trtllm-eagle3", profile="trtllm-eagle3", config=EAGLE3,
          mutate=INDEXED_OLD_COPY, says="holds drafter tensors (fc.weight)"),
    fires("DSC620", "indexed-unreadable-trtllm", profile="trtllm-dspark-legacy", tensors=markov(VT, VT),
          mutate=INDEXED_BROKEN, says="junk.safetensors cannot be read as safetensors"),
    fires("DSC620", "index-names-training-state", mutate=INDEXED_TRAINING_STATE,
          says="model.safetensors.index.json names it, so vLLM loads it",
          hint="drop training_state.safetensors from model.safetensors.index.json"),
    clean("DSC620", "indexed-mask-beside-vllm", mutate=INDEXED_MASK, exactly=()),
    clean("DSC620", "indexed-unreadable-vllm", mutate=INDEXED_BROKEN, exactly=()),
    clean("DSC620", "weights-in-two-files", mutate=SECOND_SHARD, exactly=()),
    clean("DSC620", "mask-beside-sglang-skips", profile="sglang-dspark", mutate=MASK_BESIDE),
    # DSC621: loaded, and its names skipped
    fires("DSC621", "mask-beside-sglang", profile="sglang-dspark", mutate=MASK_BESIDE,
          says="read for nothing (vLLM refuses the load)"),
    fires("DSC621", "training-state-trtllm-eagle3", profile="trtllm-eagle3", config=EAGLE3,
          mutate=TRAINING_STATE, says="TensorRT-LLM loads every *.safetensors of the folder"),
    clean("DSC621", "mask-beside-vllm-refuses", mutate=MASK_BESIDE),
    clean("DSC621", "indexed-mask-beside-sglang", profile="sglang-dspark", mutate=INDEXED_MASK),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


# DSC680 under vLLM: the config's class as the method renames it (EAGLEConfig,
# transformers_utils/configs/eagle.py:46-76) against what registry.py:655-745 registers
REGISTRY: list[Case] = [
    fires("DSC680", "eagle3-qwen2-renamed", profile="vllm-eagle3", config=QWEN2,
          says="[Qwen2ForCausalLM, looked up as Eagle3Qwen2ForCausalLM]: vLLM 0.33.0 registers",
          hint="export this one as Eagle3LlamaForCausalLM"),
    fires("DSC680", "eagle3-qwen2-renamed-legacy", profile="vllm-eagle3-legacy", config=QWEN2,
          says="looked up as Eagle3Qwen2ForCausalLM"),
    clean("DSC680", "eagle3-llama-renamed", profile="vllm-eagle3",
          config={**QWEN2, "architectures": ["LlamaForCausalLM"], "model_type": "llama"}),
    clean("DSC680", "eagle3-llama-renamed-legacy", profile="vllm-eagle3-legacy",
          config={**QWEN2, "architectures": ["LlamaForCausalLM"], "model_type": "llama"}),
    clean("DSC680", "eagle3-qwen3-renamed", profile="vllm-eagle3", tensors=QK_NORMS,
          config={**QWEN2, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3"}),
    clean("DSC680", "eagle3-sglang-name-kept", profile="vllm-eagle3", config=EAGLE3),
    # P-EAGLE: its native name is renamed Eagle3PEagleDraftModel; the speculators translation
    # names the class itself (speculators/algos.py:77-82), and is not renamed
    fires("DSC680", "native-peagle-renamed", profile="vllm-eagle3",
          config={**EAGLE3, "architectures": ["PEagleDraftModel"]},
          says="[PEagleDraftModel, looked up as Eagle3PEagleDraftModel]"),
    clean("DSC680", "speculators-peagle-translated", profile="vllm-eagle3",
          config={**V_SPEC, "architectures": ["PEagleDraftModel"],
                  "speculators_model_type": "peagle", "mask_token_id": 5}),
    clean("DSC680", "speculators-eagle3-translated", profile="vllm-eagle3",
          config={**V_SPEC, "architectures": ["Eagle3DraftModel"],
                  "speculators_model_type": "eagle3"}),
    # vLLM's own EAGLE format (model_type eagle) is not renamed by the method: its class is
    # named by its nested model and method key (test_report_cases has the renamed twin)
    clean("DSC680", "eagle-format-not-renamed", profile="vllm-eagle", draft=None,
          config={**QWEN2, "model_type": "eagle"}),
    # DFlash: SGLang's MiniMax DFlash2 name and vLLM's class name are not registry names
    fires("DSC680", "dflash-sglang-only-name", profile="vllm-dflash",
          config={**DFLASH, "architectures": ["MiniMaxDFlash2DraftModel"]},
          says="looked up as DFlashMiniMaxDFlash2DraftModel", hint="as DFlashDraftModel"),
    fires("DSC680", "dflash-class-name-legacy", profile="vllm-dflash-legacy",
          config={**DFLASH, "architectures": ["DFlashQwen3ForCausalLM"]},
          says="refuses the drafter at start-up ('Model architectures [...] are not supported "
          "for now')", says_not="drafts garbage"),
    clean("DSC680", "dflash-draft-model", profile="vllm-dflash", config=DFLASH),
    clean("DSC680", "dflash-draft-model-legacy", profile="vllm-dflash-legacy", config=DFLASH),
    clean("DSC680", "muse-glimmer-renamed", profile="vllm-dflash",
          config={**DFLASH, "architectures": ["MuseGlimmerAssistantModel"]}),
    clean("DSC680", "speculators-dflash-translated", profile="vllm-dflash",
          config={**V_SPEC, "architectures": ["DFlashSpeculator"],
                  "speculators_model_type": "dflash", "mask_token_id": 5,
                  "aux_hidden_state_layer_ids": [1, 2]}),
    # each DFlash variant's own name, as the method renames it
    *(clean("DSC680", f"variant-{arch}", profile=profile,
            config={**DFLASH, "architectures": [arch]})
      for profile, arch in (("vllm-xpress", "Qwen3XPressModel"),
                            ("vllm-dflash2", "DFlash2DraftModel"),
                            ("vllm-dflash2-beam", "DFlash2BeamDraftModel"),
                            ("vllm-lilicorr", "LiLiCorrDraftModel"),
                            ("vllm-laguna", "DFlashLagunaForCausalLM"))),
]  # fmt: skip


@pytest.mark.parametrize("c", REGISTRY, ids=ids(REGISTRY))
def test_the_class_vllm_looks_up(bench, c):
    # judged by the row's profile (its other findings are other rows' business)
    assert c.profile in check(bench, c).verdicts
