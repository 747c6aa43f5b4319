"""What the runtime's model builds from the config and needs from the checkpoint
(DSC650-DSC664): the aux layers its runner feeds, the tensors its load never checks, the
keys it reads as given. Firing rows and their clean twins, judged by the engine in-process.

Vt is 100 unless a row names another target; the drafter is synth.py's complete DSpark
drafter (Qwen3DSparkModel, hidden 8, one layer, fc [8, 16], Markov head [V, 4] / [Vd, 4],
mask id 0, target_layer_ids [0, 1]) with the row's changes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from rules_harness import (
    DFLASH,
    DROP,
    EAGLE3,
    SG_DSPARK,
    Case,
    Tgt,
    check,
    clean,
    d2t,
    fires,
    head,
    ids,
    zeros,
)
from synth import EAGLE3_LAYER, VT, H, backbone, markov

from dspark_ckpt.facts.config import drafter_config
from dspark_ckpt.facts.gather import gather
from dspark_ckpt.loader.view import model_config, native_config
from dspark_ckpt.profiles.registry import get_profile
from dspark_ckpt.source.checkpoint import open_checkpoint

T8 = Tgt.of(hidden_size=H, num_hidden_layers=8)  # vLLM's default aux ids: (2, 4, 5)
FC3 = {"fc.weight": zeros("F32", (H, 3 * H))}
FC4 = {"fc.weight": zeros("F32", (H, 4 * H))}
QK_NORMS = {f"layers.0.self_attn.{n}.weight": zeros("F32", (H,)) for n in ("q_norm", "k_norm")}
NO_IDS = {"target_layer_ids": None, "eagle_config": None}
# a DFlash drafter as TensorRT-LLM serves it: no DSpark head declared, none shipped
TRT_DFLASH = {**DFLASH, "markov_rank": None}
NO_MARKOV = {"markov_head.markov_w1.weight": DROP, "markov_head.markov_w2.weight": DROP}
# SpecForge names the EAGLE-3 layer midlayer.* (its shapes: q/k/v [H, 2H]): vLLM maps it onto
# layers.0
MIDLAYER = {
    **{f"layers.0.{n}": DROP for n in EAGLE3_LAYER},
    **{
        n.replace("layers.0.", "midlayer."): t
        for n, t in backbone(H, "eagle3").items()
        if n.startswith("layers.0.")
    },
}
# a speculators-format config, as speculators writes it: no model_type, the backbone in
# transformer_layer_config (vLLM translates it: transformers_utils/configs/speculators/)
TLC = {"model_type": "llama", "hidden_size": H, "num_hidden_layers": 1, "vocab_size": VT}
SPEC = {
    "model_type": None,
    "architectures": ["Eagle3DraftModel"],
    "speculators_config": {"algorithm": "eagle3", "verifier": {"name_or_path": None}},
    "transformer_layer_config": TLC,
    "target_layer_ids": None,
    "eagle_config": None,
}
PEAGLE = {
    **SPEC,
    "architectures": ["PEagleDraftModel"],
    "speculators_model_type": "peagle",
    "mask_token_id": 5,
}
MASK_HIDDEN = {"mask_hidden": zeros("F32", (1, 2 * H))}
MASK_HIDDEN_3 = {"mask_hidden": zeros("F32", (1, 3 * H))}  # [1, n_aux * Ht] for fc of 3
CONFIDENCE = {"enable_confidence_head": True, "confidence_head_with_markov": True}
OMNI = Tgt(
    json.dumps(
        {
            "architectures": ["Qwen3OmniMoeForConditionalGeneration"],
            "thinker_config": {
                "text_config": {
                    "vocab_size": VT,
                    "hidden_size": H,
                    "num_hidden_layers": 4,
                    "num_attention_heads": 2,
                    "num_key_value_heads": 1,
                    "head_dim": 4,
                }
            },
        },
        sort_keys=True,
    )
)
OMNI_DRAFTER = {
    "architectures": ["Qwen3OmniDSparkModel"],
    "target_hidden_size": H,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "head_dim": 4,
    "use_aux_hidden_state": True,
    "markov_head_type": "vanilla",
}
PRUNED_90 = {"lm_head.weight": head(90), "d2t": d2t(np.zeros(90))}
# the Omni drafter in speculators format: vLLM's dspark translation (algos.py:178-180) writes
# sample_from_anchor false unless the config says otherwise, and the Omni contract wants it true
OMNI_SPECULATORS = {
    **SPEC,
    "architectures": ["Qwen3OmniDSparkModel"],
    "speculators_model_type": "dspark",
    "transformer_layer_config": {
        **TLC,
        "model_type": "qwen3",
        **{k: OMNI_DRAFTER[k] for k in ("num_attention_heads", "num_key_value_heads", "head_dim")},
    },
    **{k: OMNI_DRAFTER[k] for k in ("target_hidden_size", "use_aux_hidden_state")},
    "markov_head_type": "vanilla",
    "aux_hidden_state_layer_ids": [2, 3],
    "mask_token_id": 5,
}


def omni_layer(heads: int) -> dict:
    """Layer 0's attention as OMNI_DRAFTER's sizes build it (head_dim 4, one KV head)."""
    attn = {"q_proj": (heads * 4, H), "k_proj": (4, H), "v_proj": (4, H), "o_proj": (H, heads * 4)}
    out = {f"layers.0.self_attn.{k}.weight": zeros("F32", v) for k, v in attn.items()}
    return out | {
        f"layers.0.self_attn.{n}.weight": zeros("F32", (4,)) for n in ("q_norm", "k_norm")
    }


CASES: list[Case] = [
    # DSC650: the runner's count of aux states against fc's
    fires("DSC650", "dflash-no-ids-default-3", profile="vllm-dflash", target=T8,
          config={**DFLASH, **NO_IDS}, tensors={"fc.weight": zeros("F32", (H, H))},
          says="feeds 3 target hidden states (the runner's default (2, N // 2, N - 3) for this "
          "8-layer target: the states entering layers [2, 4, 5]) but vllm-dflash builds fc for "
          "1 (num_hidden_layers)", exactly=("DSC650",)),
    clean("DSC650", "dflash-three-ids", profile="vllm-dflash", target=T8,
          config={**DFLASH, "target_layer_ids": [1, 3, 4]}, tensors=FC3, exactly=()),
    # capture point 0 (the state entering layer 0) is one the target gives: 3 fed, 3 built
    clean("DSC650", "dflash-capture-point-0", profile="vllm-dflash", target=T8,
          config={**DFLASH, "eagle_aux_hidden_state_layer_ids": [0, 2, 4]}, tensors=FC3),
    fires("DSC650", "eagle3-top-level-ids-llama-class", profile="vllm-eagle3", target=T8,
          config={**EAGLE3, "eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]},
          says="feeds 4 target hidden states (eagle_aux_hidden_state_layer_ids [1, 2, 3, 4]"),
    clean("DSC650", "eagle3-top-level-ids-qwen3-class", profile="vllm-eagle3", target=T8,
          config={**EAGLE3, "architectures": ["Eagle3Qwen3ForCausalLM"],
                  "eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]}, tensors={**FC4, **QK_NORMS},
          exactly=()),
    # a Qwen3 EAGLE-3 class builds a Qwen3 decoder layer: its q/k norms are the model's
    fires("DSC652", "eagle3-qwen3-class-without-qk-norms", profile="vllm-eagle3", target=T8,
          config={**EAGLE3, "architectures": ["Eagle3Qwen3ForCausalLM"],
                  "eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4]}, tensors=FC4,
          says="(layers.0.self_attn.q_norm, layers.0.self_attn.k_norm)"),
    fires("DSC112", "eagle3-llama-class-with-qk-norms", profile="vllm-eagle3", config=EAGLE3,
          tensors=QK_NORMS, says="(layers.0.self_attn.k_norm.weight, "
          "layers.0.self_attn.q_norm.weight)"),
    clean("DSC650", "sglang-not-judged", profile="sglang-dflash", target=T8,
          config={**DFLASH, **NO_IDS}, tensors={"fc.weight": zeros("F32", (H, H))}),
    # DSC651: the layers fed against the layers the config says the drafter was trained on
    fires("DSC651", "eagle3-eagle-config-ids-unread", profile="vllm-eagle3", target=T8,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 5]}},
          tensors=FC3, says="trained on eagle_config.eagle_aux_hidden_state_layer_ids [1, 3, 5] "
          "(the states entering layers [2, 4, 6])", hint="`dspark-ckpt fix DRAFTER --target T --out "
          "DIR --set 'eagle_aux_hidden_state_layer_ids=[2,4,6]'`", exactly=("DSC651",)),
    clean("DSC651", "eagle3-ids-are-the-default", profile="vllm-eagle3", target=T8,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 4]}},
          tensors=FC3, exactly=()),
    clean("DSC651", "eagle3-top-level-ids-read", profile="vllm-eagle3", target=T8,
          config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 5]},
                  "eagle_aux_hidden_state_layer_ids": [2, 4, 6]}, tensors=FC3, exactly=()),
    # DSC652: a tensor the model has and the checkpoint lacks
    fires("DSC652", "dspark-layer-missing", tensors={"layers.0.mlp.down_proj.weight": DROP},
          says="(layers.0.mlp.down_proj): vLLM never checks for weights its load_weights did "
          "not fill", exactly=("DSC652",)),
    fires("DSC652", "dspark-markov-missing",
          tensors={"markov_head.markov_w1.weight": DROP, "markov_head.markov_w2.weight": DROP},
          says="2 module(s)"),
    fires("DSC652", "trtllm-strict-missing", profile="trtllm-dspark-legacy",
          tensors={**markov(VT, VT), "hidden_norm.weight": DROP}, says="Missing key(s)",
          exactly=("DSC652",)),
    fires("DSC652", "trtllm-confidence-head-enabled", profile="trtllm-dspark-legacy",
          config={"enable_confidence_head": True}, tensors=markov(VT, VT),
          says="(confidence_head.proj)"),
    clean("DSC652", "complete-dspark", exactly=()),
    clean("DSC652", "eagle3-midlayer-names", profile="vllm-eagle3", config=EAGLE3,
          tensors=MIDLAYER, exactly=()),
    fires("DSC652", "sglang-keeps-initial-values", profile="sglang-dspark",
          tensors={**markov(VT, VT), "layers.0.mlp.down_proj.weight": DROP},
          says="keep their initial values"),
    # TensorRT-LLM's DFlash (modeling_dflash.py @009d8fa4): the backbone loads partially (a
    # missing weight keeps its allocation), but fc and hidden_norm exist only when shipped:
    # project_target_hidden reads self.fc at the first forward, an AttributeError
    fires("DSC652", "trtllm-dflash-no-fc", profile="trtllm-dflash", config=TRT_DFLASH,
          tensors={**NO_MARKOV, "fc.weight": DROP}, says="the first forward raises "
          "AttributeError", exactly=("DSC652",)),
    fires("DSC652", "trtllm-dflash-no-hidden-norm", profile="trtllm-dflash", config=TRT_DFLASH,
          tensors={**NO_MARKOV, "hidden_norm.weight": DROP}, says="no hidden_norm: the first "
          "forward raises AttributeError", exactly=("DSC652",)),
    fires("DSC652", "trtllm-dflash-layer-missing", profile="trtllm-dflash", config=TRT_DFLASH,
          tensors={**NO_MARKOV, "layers.0.mlp.down_proj.weight": DROP},
          says="stay as allocated", exactly=("DSC652",)),
    clean("DSC652", "trtllm-dflash-fc-shipped", profile="trtllm-dflash", config=TRT_DFLASH,
          tensors=NO_MARKOV, exactly=()),
    # DSC697: vLLM checks a DSpark config's dspark_draft_topk against the draft vocab
    # (config/speculative.py:1643-1659); here Vd is VT
    fires("DSC697", "vllm-topk-past-the-draft-vocab", config={"dspark_draft_topk": VT + 1},
          says=f"dspark_draft_topk is {VT + 1}, not between 1 and the draft vocab size {VT}"),
    fires("DSC697", "vllm-topk-zero", config={"dspark_draft_topk": 0}, says="is 0, not between"),
    fires("DSC697", "vllm-topk-a-string", config={"dspark_draft_topk": "8"},
          says='is "8", not a number'),
    clean("DSC697", "vllm-topk-within", config={"dspark_draft_topk": VT}),
    clean("DSC697", "vllm-topk-unset-or-null", config={"dspark_draft_topk": None}),
    # SGLang reads no dspark_draft_topk
    clean("DSC697", "sglang-reads-no-topk", profile="sglang-dspark",
          config={**SG_DSPARK, "dspark_draft_topk": VT + 1}),
    # DSC696: its builder refuses a config declaring a DSpark head (_build_dflash_draft), each
    # switch looked up in dspark_config, dflash_config, dspark_<key>, then the top level
    fires("DSC696", "trtllm-dflash-markov-rank", profile="trtllm-dflash",
          config={**TRT_DFLASH, "markov_rank": 4}, tensors=NO_MARKOV,
          says="markov_rank is 4", exactly=("DSC696",)),
    fires("DSC696", "trtllm-dflash-nested-projector", profile="trtllm-dflash",
          config={**TRT_DFLASH, "dflash_config": {"projector_type": "DSpark"}},
          tensors=NO_MARKOV, says="dflash_config.projector_type is", exactly=("DSC696",)),
    fires("DSC696", "trtllm-dflash-confidence-alias", profile="trtllm-dflash",
          config={**TRT_DFLASH, "dspark_enable_confidence_head": True}, tensors=NO_MARKOV,
          says="dspark_enable_confidence_head is true", exactly=("DSC696",)),
    clean("DSC696", "trtllm-dflash-no-heads", profile="trtllm-dflash",
          config={**TRT_DFLASH, "shift_label": False,
                  "dflash_config": {"projector_type": "mlp"}}, tensors=NO_MARKOV, exactly=()),
    # the first spelling found wins, a false one included (resolve_dspark_head_config)
    clean("DSC696", "trtllm-dflash-confidence-off-first", profile="trtllm-dflash",
          config={**TRT_DFLASH, "use_confidence_head": False, "enable_confidence_head": True},
          tensors=NO_MARKOV, exactly=()),
    clean("DSC696", "vllm-dflash-reads-no-heads", profile="vllm-dflash",
          config={**DFLASH, "markov_rank": 4}, tensors=NO_MARKOV),
    # DSC653: has_own_lm_head without an lm_head
    fires("DSC653", "dflash-own-head-not-shipped", profile="vllm-dflash",
          config={**DFLASH, "has_own_lm_head": True}, says="the head stays uninitialised",
          exactly=("DSC653",)),
    clean("DSC653", "dflash-own-head-shipped", profile="vllm-dflash",
          config={**DFLASH, "has_own_lm_head": True}, tensors={"lm_head.weight": head(VT)},
          exactly=()),
    clean("DSC653", "dflash-own-head-false", profile="vllm-dflash",
          config={**DFLASH, "has_own_lm_head": False}, exactly=()),
    clean("DSC653", "dflash-own-head-null", profile="vllm-dflash",
          config={**DFLASH, "has_own_lm_head": None}, exactly=()),
    clean("DSC653", "dspark-does-not-read-it", config={"has_own_lm_head": True}, exactly=()),
    clean("DSC653", "dflash-0.30-does-not-read-it", profile="vllm-dflash-legacy",
          config={**DFLASH, "has_own_lm_head": True}, exactly=()),
    # DSC654: a present null mask token id
    fires("DSC654", "dflash-config-null-wins", profile="vllm-dflash",
          config={**DFLASH, "dflash_config": {"mask_token_id": None}, "mask_token_id": 5},
          says="dflash_config.mask_token_id is null", exactly=("DSC654",)),
    fires("DSC654", "noise-token-null", config={"mask_token_id": None,
          "dspark_noise_token_id": None}, says="dspark_noise_token_id is null"),
    clean("DSC654", "top-level-null-falls-through",
          config={"mask_token_id": None, "dspark_noise_token_id": 3}, exactly=()),
    fires("DSC654", "trtllm-top-level-null", profile="trtllm-dspark-legacy",
          config={"mask_token_id": None}, tensors=markov(VT, VT), exactly=("DSC654",)),
    clean("DSC654", "trtllm-mask-set", profile="trtllm-dspark-legacy", tensors=markov(VT, VT),
          exactly=()),
    # DSC655: mask_hidden
    fires("DSC655", "dflash-refuses-it", profile="vllm-dflash", config=DFLASH,
          tensors=MASK_HIDDEN, says="an AssertionError at load", exactly=("DSC655",)),
    fires("DSC655", "dspark-has-no-parameter", tensors=MASK_HIDDEN,
          says="There is no module or parameter named"),
    # (a translated speculators EAGLE-3 of model_type llama: fc for the default 3 states)
    fires("DSC655", "peagle-without-it", profile="vllm-eagle3", config=PEAGLE, tensors=FC3,
          says="turns on parallel drafting", exactly=("DSC655",)),
    clean("DSC655", "peagle-with-it", profile="vllm-eagle3", config=PEAGLE,
          tensors={**FC3, **MASK_HIDDEN_3}, exactly=()),
    fires("DSC655", "peagle-of-another-width", profile="vllm-eagle3", config=PEAGLE,
          tensors={**FC3, **MASK_HIDDEN}, says="into a [1, 24] buffer"),
    clean("DSC655", "eagle3-skips-it-with-a-warning", profile="vllm-eagle3", config=EAGLE3,
          tensors=MASK_HIDDEN, exactly=()),
    # DSC656: fc_norm tensors the model does not build
    fires("DSC656", "fc-norm-unset", profile="vllm-eagle3", config=EAGLE3,
          tensors={"fc_norm.0.weight": zeros("F32", (H,))}, says="does not set fc_norm",
          exactly=("DSC656",)),
    clean("DSC656", "fc-norm-set", profile="vllm-eagle3", config={**EAGLE3, "fc_norm": True},
          tensors={f"fc_norm.{i}.weight": zeros("F32", (H,)) for i in (0, 1)}, exactly=()),
    # DSC657: target_hidden_size null
    fires("DSC657", "eagle3-null", profile="vllm-eagle3",
          config={**EAGLE3, "target_hidden_size": None}, says="a TypeError", exactly=("DSC657",)),
    fires("DSC657", "trtllm-eagle3-null", profile="trtllm-eagle3",
          config={**EAGLE3, "target_hidden_size": None}),
    # SGLang 0.5.23's llama_eagle3.py: `if hasattr(config, "target_hidden_size")`, fc built
    # always (aux states or not); vLLM builds no fc without aux states
    fires("DSC657", "sglang-eagle3-null", profile="sglang-eagle3",
          config={**EAGLE3, "target_hidden_size": None}, says="a TypeError"),
    fires("DSC657", "sglang-eagle3-null-without-aux-states", profile="sglang-eagle3",
          config={**EAGLE3, "target_hidden_size": None,
                  "eagle_config": {"use_aux_hidden_state": False}}),
    clean("DSC657", "vllm-eagle3-null-without-aux-states", profile="vllm-eagle3",
          config={**EAGLE3, "target_hidden_size": None,
                  "eagle_config": {"use_aux_hidden_state": False}}),
    clean("DSC657", "sglang-eagle3-missing", profile="sglang-eagle3", config=EAGLE3),
    clean("DSC657", "dflash-falls-back", profile="vllm-dflash",
          config={**DFLASH, "target_hidden_size": None}, exactly=()),
    clean("DSC657", "speculators-translation-drops-it", profile="vllm-eagle3",
          config={**SPEC, "speculators_model_type": "eagle3", "target_hidden_size": None}),
    # DSC113 on a speculators-format config: judged where the runtime translates it (vLLM
    # builds the layer from transformer_layer_config), not where it reads no such config
    fires("DSC113", "speculators-heads-past-the-tensors", profile="vllm-eagle3",
          config={**SPEC, "transformer_layer_config": {**TLC, "num_attention_heads": 2,
                  "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8}},
          says="vllm-eagle3 builds it [16, 16] from the config"),
    clean("DSC113", "speculators-not-read-by-sglang", profile="sglang-eagle3",
          config={**SPEC, "transformer_layer_config": {**TLC, "num_attention_heads": 2,
                  "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8}}),
    # DSC658: the Markov head type
    fires("DSC658", "vllm-gated-named", config={"markov_head_type": "gated"},
          says="runs as vanilla", exactly=("DSC658",)),
    fires("DSC658", "vllm-gated-tensors",
          tensors={"markov_head.gate_proj.weight": zeros("F32", (4, H + 4))},
          says="There is no module or parameter named"),
    fires("DSC658", "trtllm-unknown-type", profile="trtllm-dspark-legacy",
          config={"markov_head_type": "lstm"}, tensors=markov(VT, VT),
          says="Unsupported markov_head_type"),
    clean("DSC658", "trtllm-gated", profile="trtllm-dspark-legacy", config={"markov_head_type": "gated"},
          tensors={**markov(VT, VT), "markov_head.gate_proj.weight": zeros("F32", (4, H + 4)),
                   "markov_head.gate_proj.bias": zeros("F32", (4,))}, exactly=()),
    clean("DSC658", "vllm-vanilla", config={"markov_head_type": "vanilla"}, exactly=()),
    # the later main's standalone route (modeling_dspark.py @008b54fe, GQADSparkForCausalLM):
    # _init_dspark_heads raises for any head type but vanilla, the same drafter as above
    fires("DSC658", "trtllm-standalone-route-gated", profile="trtllm-dspark",
          config={"markov_head_type": "gated"},
          tensors={**markov(VT, VT), "markov_head.gate_proj.weight": zeros("F32", (4, H + 4)),
                   "markov_head.gate_proj.bias": zeros("F32", (4,))},
          says="builds only the vanilla Markov head", exactly=("DSC658",)),
    clean("DSC658", "trtllm-standalone-route-vanilla", profile="trtllm-dspark",
          config={"markov_head_type": "vanilla"}, tensors=markov(VT, VT), exactly=()),
    # DSC695: that route takes markov_rank from dspark_config, dflash_config, dspark_markov_rank
    # or the top level, requires the head for a rank above 0 and refuses one without
    fires("DSC695", "trtllm-standalone-rank-without-head", profile="trtllm-dspark",
          tensors={"markov_head.markov_w1.weight": DROP, "markov_head.markov_w2.weight": DROP},
          says="the checkpoint has no markov_w1.weight", exactly=("DSC695",)),
    fires("DSC695", "trtllm-standalone-head-without-rank", profile="trtllm-dspark",
          config={"markov_rank": None}, tensors=markov(VT, VT),
          says="markov_rank resolves to 0", exactly=("DSC695",)),
    clean("DSC695", "trtllm-standalone-nested-rank", profile="trtllm-dspark",
          config={"markov_rank": None, "dflash_config": {"markov_rank": 4}},
          tensors=markov(VT, VT), exactly=()),
    clean("DSC695", "trtllm-standalone-no-head", profile="trtllm-dspark",
          config={"markov_rank": None}, exactly=()),
    # its hidden states (llm_args.py @00043967, TorchLlmArgs validation): target_layer_ids from
    # the first non-null of dspark_config, dflash_config, dspark_target_layer_ids, the top level;
    # captured as DFlash's (DFlashSpecMetadata): the state entering id + 1, of an 8-layer target
    fires("DSC703", "trtllm-standalone-nested-ids-outside", profile="trtllm-dspark", target=T8,
          config={"dflash_config": {"target_layer_ids": [1, 9]}}, tensors=markov(VT, VT),
          says="dflash_config.target_layer_ids", exactly=("DSC703",)),
    clean("DSC703", "trtllm-standalone-nested-ids-inside", profile="trtllm-dspark", target=T8,
          config={"dflash_config": {"target_layer_ids": [1, 6]}, "target_layer_ids": [1, 9]},
          tensors=markov(VT, VT), exactly=()),
    fires("DSC703", "trtllm-standalone-dspark-config-first", profile="trtllm-dspark", target=T8,
          config={"dspark_config": {"target_layer_ids": [1, 9]},
                  "dflash_config": {"target_layer_ids": [1, 6]}}, tensors=markov(VT, VT),
          says="dspark_config.target_layer_ids", exactly=("DSC703",)),
    # DSC659: the confidence head's shape
    fires("DSC659", "without-the-markov-width", config=CONFIDENCE,
          tensors={"confidence_head.proj.weight": zeros("F32", (1, H)),
                   "confidence_head.proj.bias": zeros("F32", (1,))},
          says="confidence_head.proj.weight is [1, 8]; vllm builds it [1, 12]",
          exactly=("DSC659",)),
    clean("DSC659", "with-the-markov-width", config=CONFIDENCE,
          tensors={"confidence_head.proj.weight": zeros("F32", (1, H + 4)),
                   "confidence_head.proj.bias": zeros("F32", (1,))}, exactly=()),
    clean("DSC659", "enabled-without-markov", config={"enable_confidence_head": True},
          tensors={"confidence_head.proj.weight": zeros("F32", (1, H)),
                   "confidence_head.proj.bias": zeros("F32", (1,))}, exactly=()),
    clean("DSC659", "not-enabled-dropped",
          tensors={"confidence_head.proj.weight": zeros("F32", (1, H))}, exactly=()),
    # DSC660: markov_w1 smaller than the target vocab
    fires("DSC660", "v90", vocab=90, draft=90, tensors=PRUNED_90,
          says="the first id in [90, 100) is an index error", exactly=("DSC660",)),
    clean("DSC660", "v100", exactly=()),
    clean("DSC660", "sglang-not-judged", profile="sglang-dspark", vocab=90, draft=90,
          tensors={**PRUNED_90, **markov(90, 90)}),
    # DSC661: V > Vd == Vt, no d2t parameter
    fires("DSC661", "eagle3-v128-d100", profile="vllm-eagle3", vocab=128, draft=VT,
          config=EAGLE3, tensors={"lm_head.weight": head(VT)}, says="an AssertionError",
          exactly=("DSC661",)),
    clean("DSC661", "eagle3-legacy-scatters", profile="vllm-eagle3-legacy", vocab=128, draft=VT,
          config=EAGLE3, tensors={"lm_head.weight": head(VT)}, exactly=()),
    clean("DSC661", "eagle3-v100", profile="vllm-eagle3", config=EAGLE3, exactly=()),
    # DSC662: the speculators translation
    fires("DSC662", "dflash-without-aux-ids", profile="vllm-dflash",
          config={**SPEC, "architectures": ["DFlashDraftModel"], "speculators_model_type": "dflash",
                  "mask_token_id": 5}, says="config_dict['aux_hidden_state_layer_ids']"),
    fires("DSC662", "eagle3-mistral-layer", profile="vllm-eagle3",
          config={**SPEC, "speculators_model_type": "eagle3",
                  "transformer_layer_config": {**TLC, "model_type": "mistral"}},
          says="only for llama or qwen3"),
    fires("DSC662", "unknown-type", profile="vllm-eagle3",
          config={**SPEC, "speculators_model_type": "eagle2"}, says="raises a ValueError"),
    clean("DSC662", "eagle3-qwen3-layer", profile="vllm-eagle3",
          config={**SPEC, "speculators_model_type": "eagle3",
                  "transformer_layer_config": {**TLC, "model_type": "qwen3"}}),
    clean("DSC662", "model-type-set-not-translated", profile="vllm-eagle3",
          config={**SPEC, **EAGLE3, "speculators_model_type": "eagle2"}),
    # DSC663: the Qwen3-Omni DSpark contract
    fires("DSC663", "generic-dspark-on-omni", target=OMNI,
          says="architectures must be ['Qwen3OmniDSparkModel']"),
    fires("DSC663", "heads-differ", target=OMNI,
          config={**OMNI_DRAFTER, "num_attention_heads": 4}, tensors=omni_layer(4),
          says="num_attention_heads is 4; must be the thinker's 2", exactly=("DSC663",)),
    clean("DSC663", "omni-drafter", target=OMNI, config=OMNI_DRAFTER, tensors=omni_layer(2),
          exactly=()),
    fires("DSC663", "speculators-omni-anchor-defaulted", target=OMNI, config=OMNI_SPECULATORS,
          tensors=omni_layer(2), says="sample_from_anchor must be true", exactly=("DSC663",)),
    clean("DSC663", "speculators-omni-anchor-sampled", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_SPECULATORS, "sample_from_anchor": True}, exactly=()),
    # each term of the contract on both sides (OMNI: 4 layers, hidden 8; Vt 100)
    fires("DSC663", "omni-mask-at-v", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "mask_token_id": VT}, says="is 100; must be an id in [0, 99]"),
    fires("DSC663", "omni-mask-negative", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "mask_token_id": -1}, says="is -1; must be an id in [0, 99]"),
    clean("DSC663", "omni-mask-at-v-1", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "mask_token_id": VT - 1}),
    fires("DSC663", "omni-nested-mask-wins", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "mask_token_id": 3, "dflash_config": {"mask_token_id": VT}},
          says="mask_token_id is 100"),
    fires("DSC663", "omni-ids-repeated", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "target_layer_ids": [1, 1]},
          says="[1, 1] must be unique and strictly increasing"),
    fires("DSC663", "omni-id-at-n", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "target_layer_ids": [0, 4]}, says="[0, 4] must lie in [0, 3]"),
    fires("DSC663", "omni-id-negative", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "target_layer_ids": [-1, 3]}, says="must lie in [0, 3]"),
    clean("DSC663", "omni-ids-0-and-n-1", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "target_layer_ids": [0, 3]}),
    fires("DSC663", "omni-ids-empty", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "target_layer_ids": []},
          says="must be a non-empty list of integers"),
    fires("DSC663", "omni-aux-states-off", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "use_aux_hidden_state": 1},
          says="use_aux_hidden_state must be set to true"),
    # (a markov_rank below 1 is refused as the config is read: DSC001)
    fires("DSC663", "omni-markov-rank-unset", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "markov_rank": None}, says="markov_rank must be a positive"),
    clean("DSC663", "omni-markov-rank-1", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "markov_rank": 1}),
    fires("DSC663", "omni-markov-head-type", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "markov_head_type": "gated"},
          says="markov_head_type is 'gated'; must be 'vanilla'"),
    fires("DSC663", "omni-bonus-anchor", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "dspark_bonus_anchor": True},
          says="sample_from_anchor must be true, with dspark_bonus_anchor false"),
    fires("DSC663", "omni-target-hidden-size", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "target_hidden_size": 16},
          says="target_hidden_size is 16; must be the thinker's hidden_size 8"),
    fires("DSC663", "omni-kv-heads", target=OMNI, tensors=omni_layer(2),
          config={**OMNI_DRAFTER, "num_key_value_heads": 2},
          says="num_key_value_heads is 2; must be the thinker's 1"),
    clean("DSC663", "generic-dspark-on-qwen3", target=Tgt.of(hidden_size=H, num_hidden_layers=4),
          exactly=()),
    # DSC664: architectures vLLM serves with another drafter
    fires("DSC664", "qwen3-dspark-for-causal-lm",
          config={"architectures": ["Qwen3DSparkForCausalLM"]},
          says="rewrites it to the DeepSeek-V4 DSpark drafter", exactly=("DSC664",)),
    fires("DSC664", "specforge-dspark-llama", config={"architectures": ["DSparkDraftModel"],
          "model_type": "llama"}),
    clean("DSC664", "specforge-dspark-qwen3", config={"architectures": ["DSparkDraftModel"]},
          exactly=()),
    clean("DSC664", "trtllm-not-judged", profile="trtllm-dspark-legacy",
          config={"architectures": ["Qwen3DSparkForCausalLM"]}, tensors=markov(VT, VT)),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


@pytest.mark.parametrize("kind", ["eagle3", "dflash", "dspark"])
def test_the_native_config_is_the_view_vllm_builds_the_model_from(bench, kind):
    """One speculators translation: every key of the config vLLM's model reads (the view) is in
    the native config ``fix`` writes, with the same value; the native config adds only what a
    written config needs (its architecture, EAGLE-3's aux ids where SGLang reads them)."""
    config = {**OMNI_SPECULATORS, "speculators_model_type": kind, "draft_vocab_size": 90}
    folder = bench.drafter(config, omni_layer(2))
    ckpt = open_checkpoint(str(folder))
    facts = gather(ckpt, drafter_config(ckpt), bench.target(VT))
    profile = get_profile({"eagle3": "vllm-eagle3", "dflash": "vllm-dflash"}.get(kind, "vllm"))
    view = model_config(facts, profile)
    native = native_config(facts.raw)
    assert view is not facts.raw and isinstance(native, dict)
    assert {k: native.get(k) for k in view if view[k] is not None and k != "architectures"} == {
        k: v for k, v in view.items() if v is not None and k != "architectures"
    }
    # EAGLE-3's aux ids: speculators writes aux_hidden_state_layer_ids, which vLLM's eagle3
    # translation does not carry over; the native config writes them where SGLang reads them
    written = {"architectures", "eagle_config", "eagle_aux_hidden_state_layer_ids"}
    assert set(native) - set(view) <= (written if kind == "eagle3" else {"architectures"})


@pytest.mark.parametrize(
    ("extra", "causal"),
    [({}, False), ({"sliding_window_non_causal": True}, False),
     ({"sliding_window_non_causal": False}, True)],
)  # fmt: skip
def test_the_dflash_translation_makes_sliding_windows_causal_as_vllm_does(extra, causal):
    """algos.py:123-125: dflash_config.causal = not sliding_window_non_causal (default true)."""
    from dspark_ckpt.loader.view import translation

    raw = {**OMNI_SPECULATORS, "speculators_model_type": "dflash", **extra}
    assert translation(raw, ())["dflash_config"]["causal"] is causal


@pytest.mark.parametrize("tlc", ["qwen3", ["qwen3"], None])
def test_a_transformer_layer_config_that_is_no_object_is_read_as_empty(tlc):
    """vLLM's translation starts from the transformer_layer_config object; anything else gives
    nothing (no key, the default llama layer), never an exception."""
    from types import SimpleNamespace

    from dspark_ckpt.loader.view import layer_model_type, translation

    raw = {**OMNI_SPECULATORS, "transformer_layer_config": tlc}
    assert "model_type" not in translation(raw, ())
    assert layer_model_type(SimpleNamespace(raw=raw)) == "llama"
