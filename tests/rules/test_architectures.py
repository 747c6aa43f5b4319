"""Every registered draft architecture: the table (profiles/architectures.py) against the
runtimes' own registries, the route a drafter takes by its architecture, and per group of
architectures a firing row and its clean twin through the engine in-process.

The groups: classic EAGLE (EAGLE-1) as vLLM and SGLang name it (judged by vllm-eagle and
sglang-eagle; vLLM's over Llama 4, MiniCPM and Cohere layers by vllm-eagle-llama4,
vllm-eagle-minicpm and vllm-eagle-cohere; Mistral's by the Mistral profiles), EAGLE-3 over
DeepSeek MLA layers (vLLM deepseek_eagle3.py, SGLang kimi_k25_eagle3.py: the EAGLE-3
profiles' mla_architectures), the EAGLE-1 class whose module tree no profile models
(DeepSeek's), the DFlash variants with their own loader, MTP / NextN heads
(read from the target checkpoint), and vLLM's hidden-state extraction model (no drafter).
"""

from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest
from rules_harness import DROP, VT, H, T, check, clean, fires, head, ids, mapping
from synth import NULL

from dspark_ckpt.facts.config import parse_drafter_config
from dspark_ckpt.loader.view import renamed
from dspark_ckpt.profiles.architectures import (
    ARCHITECTURES,
    BY_NAME,
    SGLANG_ARCHITECTURES,
    VLLM,
    VLLM_ARCHITECTURES,
    unjudged,
)
from dspark_ckpt.profiles.registry import PROFILES, route
from dspark_ckpt.profiles.variants import NOT_JUDGED, VARIANTS

SOURCES = Path(
    os.environ.get("DSPARK_CKPT_SOURCES") or Path.home() / ".cache/dspark-ckpt/sources"
).expanduser()
REQUIRE = os.environ.get("DSPARK_CKPT_REQUIRE_SOURCES") == "1"

# classic EAGLE as the EAGLE release code writes it (eagle/model/cnets.py: fc with a bias, layer
# 0 without input_layernorm, no norm, no head), under the name each runtime registers
EAGLE1 = {
    "model_type": "llama",
    "markov_rank": None,
    "target_layer_ids": None,
    "mask_token_id": None,
}
V_EAGLE1 = {**EAGLE1, "architectures": ["EagleLlamaForCausalLM"]}
S_EAGLE1 = {**EAGLE1, "architectures": ["LlamaForCausalLMEagle"]}
Q_EAGLE1 = {**EAGLE1, "architectures": ["Qwen2ForCausalLMEagle"], "model_type": "qwen2"}
EMBED = {"embed_tokens.weight": T("F32", (VT, H))}
QK_NORMS = {f"layers.0.self_attn.{n}.weight": T("F32", (H,)) for n in ("q_norm", "k_norm")}
QKV_BIAS = {f"layers.0.self_attn.{p}_proj.bias": T("F32", (H,)) for p in "qkv"}
NO_BIAS = {**EMBED, "fc.bias": DROP}
# the head sizes synth's [8, 8] projections are built with, and a first layer's q of 2H
SIZES = {"num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 8}
Q0_2H = {"layers.0.self_attn.q_proj.weight": T("F32", (H, 2 * H))}
LN0 = {"layers.0.input_layernorm.weight": T("F32", (H,))}
EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}


def named(*architectures: str):
    """A ``mutate``: the written drafter's config names ``architectures`` (its tensors as the
    synthesiser lays them out for the name it was written with)."""

    def mutate(folder: Path) -> None:
        config = folder / "config.json"
        cfg = json.loads(config.read_text())
        config.write_text(json.dumps({**cfg, "architectures": list(architectures)}))

    return mutate


# EAGLE-3 over DeepSeek MLA (SGLang kimi_k25_eagle3.py): the Kimi K2.x drafters' layer
MLA = {**EAGLE3, "architectures": ["Eagle3DeepseekV2ForCausalLM"], "model_type": "kimi_k2",
       "q_lora_rank": H, "kv_lora_rank": H, "qk_nope_head_dim": 4, "qk_rope_head_dim": 4,
       "v_head_dim": 4}  # fmt: skip
MLA_W = {
    **{f"layers.0.self_attn.{p}_proj.weight": DROP for p in "qkv"},
    **{
        f"layers.0.self_attn.{m}.weight": T("F32", (H,) if "norm" in m else (H, H))
        for m in ("q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa")
        + ("kv_a_layernorm", "kv_b_proj")
    },
}
HEAD = {"lm_head.weight": T("F32", (VT, H))}
V_MLA = {**MLA, "architectures": ["Eagle3DeepseekV3ForCausalLM"]}
KV_A = {"layers.0.self_attn.kv_a_proj_with_mqa.weight": T("F32", (H, H))}
MLA_Q = {  # no q_lora_rank: the synth layer's q_proj, MLA's kv_a_layernorm and kv_b_proj
    **{f"layers.0.self_attn.{p}_proj.weight": DROP for p in "kv"},
    **{k: v for k, v in MLA_W.items() if "kv_a_layernorm" in k or "kv_b_proj" in k},
}

# vLLM's classic EAGLE over Llama 4 layers (llama4_eagle.py), its config asserts met: the
# YOCO keys null, no MoE layer, draft_vocab_size set (the head's rows)
L4_EAGLE1 = {**EAGLE1, "architectures": ["EagleLlama4ForCausalLM"], "model_type": "llama4_text",
             "yoco_global_kv_layer": NULL, "yoco_local_kv_layer": NULL, "moe_layers": []}  # fmt: skip
L4_MLP = {
    **{f"layers.0.feed_forward.{p}_proj.weight": DROP for p in ("gate", "up", "down")},
    **{f"layers.0.mlp.{p}_proj.weight": T("F32", (H, H)) for p in ("gate", "up", "down")},
}

# vLLM's MiniCPM classic EAGLE (minicpm_eagle.py): the keys it reads with no default; its
# embedding and head stored as it reads them (model.embed_tokens, lm_head at the top)
MC_EAGLE1 = {**EAGLE1, "architectures": ["EagleMiniCPMForCausalLM"], "model_type": "minicpm",
             "dim_model_base": 4, "scale_emb": 12, "scale_depth": 1.4}  # fmt: skip
MC_HEADS = {"model.embed_tokens.weight": T("F32", (VT, H)), "lm_head.weight": head(VT)}
MC_L0 = "model.eagle_layers.0."
MC_DENSE_DROPPED = {f"{MC_L0}mlp.{p}_proj.weight": DROP for p in ("gate", "up", "down")}
MC_MOE = {f"{MC_L0}mlp.gate.weight": T("F32", (2, H)),
          **{f"{MC_L0}mlp.experts.{e}.w{w}.weight": T("F32", (H, H)) for e in (0, 1)
             for w in (1, 2, 3)}}  # fmt: skip
MC_FUSED = {**{f"{MC_L0}self_attn.{p}_proj.weight": DROP for p in "qkv"},
            f"{MC_L0}self_attn.qkv_proj.weight": T("F32", (3 * H, H))}  # fmt: skip

# vLLM's Cohere classic EAGLE (cohere_eagle.py), its embedding tied to the target's
CO_EAGLE1 = {**EAGLE1, "architectures": ["EagleCohereForCausalLM"], "model_type": "cohere",
             "tie_word_embeddings": True}  # fmt: skip
CO_QK = {f"model.layers.0.self_attn.{n}.weight": T("F32", (2, 4)) for n in ("q_norm", "k_norm")}


def _named(name: str, **extra) -> dict:
    return {"architectures": [name], "markov_rank": None, **extra}


CASES = [
    # classic EAGLE, vLLM: fc is built without a bias, which the loader ignores
    fires("DSC672", "eagle1-release-code", profile="vllm-eagle", by_default=True, draft=None,
          config=V_EAGLE1, tensors=EMBED, says="fc.bias is stored and vllm-eagle's fc has no "
          "bias", exactly=("DSC501", "DSC672")),
    clean("DSC672", "eagle1-no-bias", profile="vllm-eagle", by_default=True, draft=None,
          config=V_EAGLE1, tensors=NO_BIAS, exactly=("DSC501",), verdicts={"vllm-eagle": True}),
    fires("DSC672", "eagle3-with-fc-bias", profile="vllm-eagle3", config=EAGLE3,
          tensors={"fc.bias": T("F32", (H,))}),
    clean("DSC672", "sglang-eagle1-builds-it", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors=EMBED, verdicts={"sglang-eagle": True}),
    # classic EAGLE: layer 0 has no input_layernorm (vLLM refuses a stored one, SGLang skips it)
    fires("DSC112", "eagle1-layer0-input-norm", profile="vllm-eagle", draft=None,
          config=V_EAGLE1, tensors={**NO_BIAS, **LN0}, says="layers.0.input_layernorm.weight"),
    fires("DSC112", "eagle1-own-head", profile="vllm-eagle", draft=None, config=V_EAGLE1,
          tensors={**NO_BIAS, "lm_head.weight": T("F32", (VT, H))}, says="lm_head.weight"),
    clean("DSC112", "eagle1-sglang-own-head-skipped", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors={**EMBED, "lm_head.weight": T("F32", (VT, H))}),
    fires("DSC666", "eagle1-layer0-input-norm", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors={**EMBED, **LN0}, says="layers.0.input_layernorm.weight"),
    clean("DSC666", "eagle1-release-code", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors=EMBED, exactly=("DSC501",)),
    # (its weight stored: the bias alone is named, and counted)
    fires("DSC652", "eagle1-sglang-no-fc-bias", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors=NO_BIAS, says="1 weight(s) the drafter model builds are "
          "not in the checkpoint (fc.bias)", says_not="fc.weight"),
    fires("DSC652", "eagle1-layer-missing", profile="vllm-eagle", draft=None,
          config={**V_EAGLE1, "num_hidden_layers": 2}, tensors=NO_BIAS, says="layers.1"),
    clean("DSC652", "eagle1-every-layer", profile="vllm-eagle", draft=None,
          config=V_EAGLE1, tensors=NO_BIAS),
    fires("DSC105", "eagle1-d2t", profile="vllm-eagle", draft=None, config=V_EAGLE1,
          tensors={**NO_BIAS, "d2t": T("I64", (VT,))}, says="no parameter for it"),
    clean("DSC105", "eagle1-sglang-d2t-ignored", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors={**EMBED, "d2t": T("I64", (VT,))}),
    fires("DSC113", "eagle1-fc-width", profile="vllm-eagle", draft=None, config=V_EAGLE1,
          tensors={**NO_BIAS, "fc.weight": T("F32", (H, 3 * H))}, says="fc.weight"),
    # classic EAGLE concatenates in fc: its first layer's q/k/v take H (EAGLE-3's take 2H)
    fires("DSC113", "eagle1-first-q-of-2h", profile="vllm-eagle", draft=None,
          config={**V_EAGLE1, **SIZES}, tensors={**NO_BIAS, **Q0_2H},
          says="layers.0.self_attn.q_proj.weight is [8, 16]; vllm-eagle builds it [8, 8]"),
    clean("DSC113", "eagle1-first-q-of-hidden-width", profile="vllm-eagle", draft=None,
          config={**V_EAGLE1, **SIZES}, tensors=NO_BIAS, exactly=("DSC501",)),
    fires("DSC113", "eagle1-sglang-first-q-of-2h", profile="sglang-eagle", draft=None,
          config={**S_EAGLE1, **SIZES}, tensors={**EMBED, **Q0_2H},
          says="sglang-eagle builds it [8, 8]"),
    # SGLang's Qwen2 classic EAGLE: the same model over Qwen2 layers, whose q/k/v take a bias
    fires("DSC652", "eagle1-qwen2-no-qkv-bias", profile="sglang-eagle", draft=None,
          config=Q_EAGLE1, tensors=EMBED, says="layers.0.self_attn.q_proj.bias"),
    clean("DSC652", "eagle1-qwen2-qkv-bias", profile="sglang-eagle", draft=None,
          config=Q_EAGLE1, tensors={**EMBED, **QKV_BIAS}, exactly=("DSC501",)),
    clean("DSC652", "eagle1-llama-no-qkv-bias", profile="sglang-eagle", draft=None,
          config=S_EAGLE1, tensors=EMBED),
    # vLLM's Llama 4 classic EAGLE: a final norm, feed_forward, every layer's input_layernorm
    clean("DSC652", "eagle1-llama4-every-module", profile="vllm-eagle-llama4", by_default=True,
          config=L4_EAGLE1, tensors=EMBED, exactly=(), verdicts={"vllm-eagle-llama4": True}),
    fires("DSC652", "eagle1-llama4-no-norm", profile="vllm-eagle-llama4", config=L4_EAGLE1,
          tensors={**EMBED, "norm.weight": DROP}, says="norm"),
    fires("DSC112", "eagle1-llama4-mlp-names", profile="vllm-eagle-llama4", config=L4_EAGLE1,
          tensors={**EMBED, **L4_MLP}, says="layers.0.mlp.gate_proj.weight"),
    clean("DSC112", "eagle1-llama4-fused-names", profile="vllm-eagle-llama4", config=L4_EAGLE1,
          tensors={**EMBED, **{f"layers.0.self_attn.{p}_proj.weight": DROP for p in "qkv"},
                   "layers.0.self_attn.qkv_proj.weight": T("F32", (3 * H, H))}, exactly=()),
    # its inner model's mapper strips a model. prefix its load_weights adds again: both load
    clean("DSC111", "eagle1-llama4-model-prefix", profile="vllm-eagle-llama4", config=L4_EAGLE1,
          tensors={**EMBED, "fc.weight": DROP, "model.fc.weight": T("F32", (H, 2 * H))},
          exactly=()),
    fires("DSC111", "eagle1-llama-model-prefix", profile="vllm-eagle", draft=None,
          config=V_EAGLE1, tensors={**NO_BIAS, "fc.weight": DROP,
                                    "model.fc.weight": T("F32", (H, 2 * H))}),
    # its config asserts: the YOCO keys null (a missing key is an AttributeError), no MoE layer
    fires("DSC690", "eagle1-llama4-no-yoco-keys", profile="vllm-eagle-llama4",
          config={k: v for k, v in L4_EAGLE1.items() if k != "yoco_global_kv_layer"},
          tensors=EMBED,
          says="yoco_global_kv_layer is not in config.json", exactly=("DSC690",)),
    fires("DSC690", "eagle1-llama4-yoco-layer", profile="vllm-eagle-llama4",
          config={**L4_EAGLE1, "yoco_local_kv_layer": 0}, tensors=EMBED,
          says="yoco_local_kv_layer is 0, not null"),
    fires("DSC690", "eagle1-llama4-moe-layer", profile="vllm-eagle-llama4",
          config={**L4_EAGLE1, "moe_layers": [0]}, tensors=EMBED,
          says="moe_layers is [0], not an empty list"),
    clean("DSC690", "eagle1-llama4-moe-layers-derived", profile="vllm-eagle-llama4",
          config={**L4_EAGLE1, "moe_layers": NULL}, tensors=EMBED),
    fires("DSC690", "eagle1-llama4-yoco-global-layer", profile="vllm-eagle-llama4",
          config={**L4_EAGLE1, "yoco_global_kv_layer": 2}, tensors=EMBED,
          says="yoco_global_kv_layer is 2, not null"),
    fires("DSC690", "eagle1-llama4-no-draft-vocab-size", profile="vllm-eagle-llama4",
          draft=None, config=L4_EAGLE1, tensors=EMBED, says="draft_vocab_size is not set"),
    # its head has draft_vocab_size rows and no d2t maps them: a pruned head's draft id i is
    # proposed as target id i; without a head the target's drafts (its ids are target ids)
    fires("DSC103", "eagle1-llama4-pruned-head", profile="vllm-eagle-llama4", draft=40,
          config=L4_EAGLE1, tensors={**EMBED, "lm_head.weight": head(40)}, exactly=("DSC103",),
          says="the shipped head's draft id i is proposed as target id i",
          hint="vllm-eagle-llama4 cannot map draft ids"),
    clean("DSC103", "eagle1-llama4-pruned-no-head", profile="vllm-eagle-llama4", draft=40,
          config=L4_EAGLE1, tensors=EMBED, exactly=()),
    clean("DSC103", "eagle1-llama4-full-head", profile="vllm-eagle-llama4", config=L4_EAGLE1,
          tensors={**EMBED, "lm_head.weight": head(VT)}, exactly=()),
    fires("DSC105", "eagle1-llama4-d2t", profile="vllm-eagle-llama4", draft=40,
          config=L4_EAGLE1, tensors={**EMBED, **mapping(40), "lm_head.weight": head(40)},
          says="no parameter for it (it has no d2t path: its own head's ids are proposed"),
    fires("DSC105", "eagle1-llama4-d2t-no-head", profile="vllm-eagle-llama4", draft=40,
          config=L4_EAGLE1, tensors={**EMBED, **mapping(40)},
          says="no parameter for it (it drafts from the target's head"),
    # vLLM's MiniCPM classic EAGLE: names as stored (model.), layers under eagle_layers, two
    # input norms; vLLM's weight tracking (default_loader.py:531-572) refuses a missing module
    # with no quant method (its norms, fc a torch.nn.Linear, the MoE's ws/w2s parameters) and
    # counts every one with a quant method (linear layers, embedding, head) as loaded
    clean("DSC652", "eagle1-minicpm-every-module", profile="vllm-eagle-minicpm",
          by_default=True, draft=None, config=MC_EAGLE1, tensors=MC_HEADS,
          exactly=("DSC501",), verdicts={"vllm-eagle-minicpm": True}),
    fires("DSC652", "eagle1-minicpm-no-head", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "lm_head.weight": DROP},
          says="(lm_head): vLLM checks after the load only the modules with no quant method"),
    clean("DSC652", "eagle1-minicpm-tied-no-head", profile="vllm-eagle-minicpm", draft=None,
          config={**MC_EAGLE1, "tie_word_embeddings": True},
          tensors={**MC_HEADS, "lm_head.weight": DROP}, exactly=("DSC501",)),
    fires("DSC652", "eagle1-minicpm-no-embedding", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.embed_tokens.weight": DROP},
          says="(embed_tokens): vLLM checks after the load only the modules with no quant"),
    fires("DSC652", "eagle1-minicpm-no-q-proj", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, f"{MC_L0}self_attn.q_proj.weight": DROP},
          says="vLLM checks after the load only the modules with no quant method"),
    fires("DSC652", "eagle1-minicpm-no-norm", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.norm.weight": DROP},
          says="that it filled norm (with no quant method) and raises 'Following"),
    fires("DSC652", "eagle1-minicpm-no-input-norm", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.input_norm2.weight": DROP},
          says="that it filled input_norm2"),
    fires("DSC652", "eagle1-minicpm-no-fc", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.fc.weight": DROP},
          says="that it filled fc (with no"),
    fires("DSC652", "eagle1-minicpm-moe-no-experts", profile="vllm-eagle-minicpm", draft=None,
          config={**MC_EAGLE1, "num_experts": 2}, tensors={**MC_HEADS, **MC_DENSE_DROPPED},
          says="eagle_layers.0.mlp.gate, eagle_layers.0.mlp.experts"),
    clean("DSC652", "eagle1-minicpm-moe-experts", profile="vllm-eagle-minicpm", draft=None,
          config={**MC_EAGLE1, "num_experts": 2},
          tensors={**MC_HEADS, **MC_DENSE_DROPPED, **MC_MOE}, exactly=("DSC501",)),
    fires("DSC111", "eagle1-minicpm-unprefixed", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.fc.weight": DROP,
                                     "fc.weight": T("F32", (H, 2 * H))},
          says="1 tensor name(s) lack the model. prefix (fc.weight)", exactly=("DSC111",
                                                                              "DSC501")),
    fires("DSC112", "eagle1-minicpm-fused-qkv", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, **MC_FUSED},
          says="(model.eagle_layers.0.self_attn.qkv_proj.weight)"),
    fires("DSC112", "eagle1-minicpm-layers-prefix", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1,
          tensors={**MC_HEADS, "model.layers.0.input_layernorm.weight": T("F32", (H,))},
          says="layers.0.input_layernorm.weight"),
    fires("DSC113", "eagle1-minicpm-fc-width", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.fc.weight": T("F32", (H, 3 * H))},
          says="fc.weight is [8, 24]"),
    fires("DSC672", "eagle1-minicpm-fc-bias", profile="vllm-eagle-minicpm", draft=None,
          config=MC_EAGLE1, tensors={**MC_HEADS, "model.fc.bias": T("F32", (H,))}),
    fires("DSC690", "eagle1-minicpm-no-scale-emb", profile="vllm-eagle-minicpm", draft=None,
          config={k: v for k, v in MC_EAGLE1.items() if k != "scale_emb"}, tensors=MC_HEADS,
          says="scale_emb is not set"),
    # vLLM's Cohere classic EAGLE: names as stored (model.), fc with a bias, one input_layernorm
    # per layer, q/k norms with use_qk_norm, a final norm; every parameter tracked but the
    # embedding, which (with the head: logits come from it) is the target's
    clean("DSC652", "eagle1-cohere-every-module", profile="vllm-eagle-cohere", by_default=True,
          draft=None, config=CO_EAGLE1, exactly=("DSC501",), verdicts={"vllm-eagle-cohere": True}),
    fires("DSC652", "eagle1-cohere-no-fc-bias", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, tensors={"model.fc.bias": DROP},
          says="(fc.bias): vLLM checks after the load only the modules with no quant method"),
    fires("DSC652", "eagle1-cohere-no-q-proj", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, tensors={"model.layers.0.self_attn.q_proj.weight": DROP},
          says="vLLM checks after the load only the modules with no quant method"),
    fires("DSC652", "eagle1-cohere-no-norm", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, tensors={"model.norm.weight": DROP},
          says="that it filled norm (with no quant method) and raises 'Following"),
    fires("DSC652", "eagle1-cohere-no-layer-norm", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, tensors={"model.layers.0.input_layernorm.weight": DROP},
          says="that it filled layers.0.input_layernorm"),
    fires("DSC652", "eagle1-cohere-no-qk-norms", profile="vllm-eagle-cohere", draft=None,
          config={**CO_EAGLE1, "use_qk_norm": True},
          says="that it filled layers.0.self_attn.q_norm, layers.0.self_attn.k_norm"),
    clean("DSC652", "eagle1-cohere-qk-norms", profile="vllm-eagle-cohere", draft=None,
          config={**CO_EAGLE1, "use_qk_norm": True}, tensors=CO_QK, exactly=("DSC501",)),
    clean("DSC672", "eagle1-cohere-fc-bias-built", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, exactly=("DSC501",)),
    fires("DSC112", "eagle1-cohere-post-attention-norm", profile="vllm-eagle-cohere",
          draft=None, config=CO_EAGLE1,
          tensors={"model.layers.0.post_attention_layernorm.weight": T("F32", (H,))},
          says="layers.0.post_attention_layernorm.weight"),
    # its mapper drops lm_head names, and the embedding is the target's whatever is shipped
    clean("DSC112", "eagle1-cohere-head-dropped", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, tensors={"lm_head.weight": head(VT),
                                     "model.embed_tokens.weight": T("F32", (VT, H))},
          exactly=("DSC501",)),
    fires("DSC111", "eagle1-cohere-unprefixed", profile="vllm-eagle-cohere", draft=None,
          config=CO_EAGLE1, tensors={"model.norm.weight": DROP, "norm.weight": T("F32", (H,))},
          says="(norm.weight)"),
    # each runtime's registry refuses the other's class name
    fires("DSC680", "eagle1-sglang-name", profile="vllm-eagle", draft=None, config=S_EAGLE1,
          tensors=NO_BIAS, says="registers EagleLlamaForCausalLM"),
    fires("DSC680", "eagle1-vllm-name", profile="sglang-eagle", draft=None, config=V_EAGLE1,
          tensors=EMBED, says="registers LlamaForCausalLMEagle"),
    # yuhuili's EAGLE drafters name LlamaForCausalLM: vLLM renames it by the method it serves
    # them with (EagleLlamaForCausalLM: transformers_utils/configs/eagle.py:46-51), SGLang
    # looks it up as it stands (a target model's class, no EAGLE drafter)
    clean("DSC680", "eagle1-published-llama-name", profile="vllm-eagle", draft=None,
          config={**EAGLE1, "architectures": ["LlamaForCausalLM"]}, tensors=NO_BIAS),
    fires("DSC680", "eagle1-published-llama-name-sglang", profile="sglang-eagle", draft=None,
          config={**EAGLE1, "architectures": ["LlamaForCausalLM"]}, tensors=EMBED,
          says="architectures [LlamaForCausalLM]: SGLang 0.5.23 registers no such eagle"),
    # vLLM's EAGLE-3 names: the Llama layer (Eagle3LlamaForCausalLM) or the Qwen3 one, q/k norms
    # included (Eagle3Qwen3ForCausalLM), by the class the registry maps the name to
    # (written as Eagle3Qwen3ForCausalLM, then named Qwen3ForCausalLM as SpecForge's Qwen3
    # drafters are: vLLM renames it Eagle3Qwen3ForCausalLM by the method, EAGLEConfig)
    fires("DSC652", "eagle3-qwen3-no-qk-norms", profile="vllm-eagle3",
          config={**EAGLE3, "architectures": ["Eagle3Qwen3ForCausalLM"], "markov_rank": None},
          mutate=named("Qwen3ForCausalLM"), says="layers.0.self_attn.q_norm"),
    clean("DSC652", "eagle3-qwen3-qk-norms", profile="vllm-eagle3",
          config={**EAGLE3, "architectures": ["Eagle3Qwen3ForCausalLM"]}, tensors=QK_NORMS),
    fires("DSC112", "eagle3-llama-qk-norms", profile="vllm-eagle3",
          config={**EAGLE3, "architectures": ["Eagle3Qwen2_5vlForCausalLM"]}, tensors=QK_NORMS,
          says="layers.0.self_attn.k_norm.weight"),
    clean("DSC112", "eagle3-llama", profile="vllm-eagle3",
          config={**EAGLE3, "architectures": ["Eagle3MiniMaxM2ForCausalLM"]}),
    # EAGLE-3 over DeepSeek MLA, SGLang: an explicit draft_vocab_size and no lm_head is a head
    # nothing loads (sgl-project/sglang PR #27908, nvidia/Kimi-K2.6-Eagle3: accept rate 0.00)
    fires("DSC601", "sglang-eagle3-mla-no-head", profile="sglang-eagle3", config=MLA,
          tensors=MLA_W, says="nothing loads"),
    clean("DSC601", "sglang-eagle3-mla-head-shipped", profile="sglang-eagle3", config=MLA,
          tensors={**MLA_W, **HEAD}, exactly=(), verdicts={"sglang-eagle3": True}),
    clean("DSC601", "sglang-eagle3-mla-no-draft-vocab", profile="sglang-eagle3", draft=None,
          config=MLA, tensors=MLA_W, exactly=("DSC501",)),
    fires("DSC501", "sglang-eagle3-mla-no-draft-vocab", profile="sglang-eagle3", draft=None,
          config=MLA, tensors=MLA_W, says="vLLM, SGLang and TensorRT-LLM use vocab_size"),
    # its target_hidden_size is `getattr(...) or hidden_size`: a null falls back (no DSC657),
    # which llama_eagle3.py's hasattr reads as None * n_aux; vLLM's MLA class as getattr
    clean("DSC657", "sglang-eagle3-mla-null-target-hidden-size", profile="sglang-eagle3",
          config={**MLA, "target_hidden_size": None}, tensors={**MLA_W, **HEAD}),
    fires("DSC657", "vllm-eagle3-mla-null-target-hidden-size", profile="vllm-eagle3",
          config={**V_MLA, "target_hidden_size": None}, tensors={**MLA_W, **HEAD}),
    # its draft_vocab_size is a getattr with a default: no key is no AttributeError
    clean("DSC681", "sglang-eagle3-mla-no-draft-vocab-key", profile="sglang-eagle3",
          draft=None, config=MLA, tensors=MLA_W),
    fires("DSC681", "sglang-eagle3-llama-no-draft-vocab-key", profile="sglang-eagle3",
          draft=None, config=EAGLE3),
    # the MLA layer's weights: q_a_proj loads only with kv_a_proj_with_mqa (fused), Llama's
    # q/k/v name no parameter (skipped, with a warning)
    fires("DSC652", "sglang-eagle3-mla-kv-a-missing", profile="sglang-eagle3", config=MLA,
          tensors={**MLA_W, **HEAD, "layers.0.self_attn.kv_a_proj_with_mqa.weight": DROP},
          says="layers.0.self_attn.kv_a_proj_with_mqa"),
    fires("DSC652", "sglang-eagle3-mla-llama-layer", profile="sglang-eagle3", config=MLA,
          tensors=HEAD, says="layers.0.self_attn.q_a_proj"),
    clean("DSC652", "sglang-eagle3-mla-every-weight", profile="sglang-eagle3", config=MLA,
          tensors={**MLA_W, **HEAD}),
    # it prepends model. to every name but lm_head.: a stored model.* is skipped, not stripped
    fires("DSC111", "sglang-eagle3-mla-model-prefix", profile="sglang-eagle3", config=MLA,
          tensors={**MLA_W, **HEAD, "norm.weight": DROP, "model.norm.weight": T("F32", (H,))},
          says="skips model.model.*"),
    clean("DSC111", "sglang-eagle3-llama-model-prefix", profile="sglang-eagle3",
          config=EAGLE3, tensors={**HEAD, "norm.weight": DROP,
                                  "model.norm.weight": T("F32", (H,))}),
    # it builds one layer, fused over q_lora_rank: anything else is a ValueError at build
    fires("DSC689", "sglang-eagle3-mla-two-layers", profile="sglang-eagle3",
          config={**MLA, "num_hidden_layers": 2}, tensors={**MLA_W, **HEAD},
          says="num_hidden_layers is 2"),
    fires("DSC689", "sglang-eagle3-mla-no-q-lora", profile="sglang-eagle3",
          config={**MLA, "q_lora_rank": None}, tensors={**MLA_W, **HEAD},
          says="q_lora_rank is null"),
    clean("DSC689", "sglang-eagle3-mla-one-layer", profile="sglang-eagle3", config=MLA,
          tensors={**MLA_W, **HEAD}),
    clean("DSC689", "vllm-eagle3-mla-two-layers", profile="vllm-eagle3",
          config={**V_MLA, "num_hidden_layers": 2}, tensors=MLA_W),
    # vLLM's (deepseek_eagle3.py, for both names): q_a_proj and kv_a_proj_with_mqa stacked
    # into fused_qkv_a_proj; without q_lora_rank a q_proj, and a stored kv_a_proj_with_mqa is
    # stacked into a module that attention does not build (refused)
    fires("DSC652", "vllm-eagle3-mla-kv-a-missing", profile="vllm-eagle3", config=V_MLA,
          tensors={**MLA_W, "layers.0.self_attn.kv_a_proj_with_mqa.weight": DROP},
          says="layers.0.self_attn.kv_a_proj_with_mqa"),
    clean("DSC652", "vllm-eagle3-mla-every-weight", profile="vllm-eagle3", config=V_MLA,
          tensors=MLA_W, exactly=(), verdicts={"vllm-eagle3": True}),
    fires("DSC112", "vllm-eagle3-mla-llama-layer", profile="vllm-eagle3", config=V_MLA,
          says="layers.0.self_attn.q_proj.weight"),
    fires("DSC112", "vllm-eagle3-mla-no-q-lora-kv-a", profile="vllm-eagle3",
          config={**V_MLA, "q_lora_rank": None}, tensors={**MLA_Q, **KV_A},
          says="kv_a_proj_with_mqa"),
    clean("DSC112", "vllm-eagle3-mla-no-q-lora", profile="vllm-eagle3",
          config={**V_MLA, "q_lora_rank": None}, tensors=MLA_Q),
    # its mapper drops no input_norm: a stored one is refused, as norm_before_fc is not read
    fires("DSC112", "vllm-eagle3-mla-input-norm", profile="vllm-eagle3", config=V_MLA,
          tensors={**MLA_W, "input_norm.weight": T("F32", (2 * H,))}, says="input_norm"),
    clean("DSC112", "vllm-eagle3-llama-input-norm-dropped", profile="vllm-eagle3",
          config=EAGLE3, tensors={"input_norm.weight": T("F32", (2 * H,))}),
    # its head is llama_eagle3.py's: an explicit draft_vocab_size below V and no lm_head
    # shipped is scored by the target's rows (vLLM shares its head), as for vLLM's EAGLE-3
    fires("DSC102", "vllm-eagle3-mla-shares-target-head", profile="vllm-eagle3", draft=40,
          config=V_MLA, tensors={**MLA_W, **mapping(40)}, exactly=("DSC102",),
          says="draft id i is scored with target token i's row"),
    clean("DSC102", "vllm-eagle3-mla-own-head", profile="vllm-eagle3", draft=40,
          config=V_MLA, tensors={**MLA_W, **mapping(40), "lm_head.weight": head(40)}),
    # not judged, with the reason each runtime's row gives
    fires("DSC108", "vllm-mtp", config=_named("Qwen3NextMTP"), says="MTP: the draft layers "
          "are read from the target checkpoint, not from a drafter folder"),
    fires("DSC108", "sglang-nextn", config=_named("DeepseekV3ForCausalLMNextN"),
          says="SGLang 0.5.23 builds DeepseekV3ForCausalLMNextN"),
    fires("DSC108", "hidden-states", config=_named("ExtractHiddenStatesModel"),
          says="not a drafter: ExtractHiddenStatesModel"),
    fires("DSC108", "dspark-v41", config=_named("DSparkV41DraftModel"),
          says="vLLM 0.33.0 builds DSparkDeepseekV4ForCausalLM: "),
    fires("DSC108", "sglang-dspark-v4", config=_named("DeepseekV4ForCausalLMDSpark"),
          says="the DSpark stage ships under mtp.* in the DeepSeek-V4 checkpoint"),
    # their clean twins: the names of each group that a profile judges
    clean("DSC108", "eagle1-llama", profile="vllm-eagle", by_default=True, draft=None,
          config=V_EAGLE1, tensors=NO_BIAS),
    clean("DSC108", "eagle3-llama", profile="vllm-eagle3", by_default=True, config=EAGLE3),
    clean("DSC108", "dflash-muse-glimmer", profile="vllm-dflash", by_default=True,
          config={"architectures": ["MuseGlimmerAssistantModel"], "model_type": "qwen3",
                  "markov_rank": None}),
]  # fmt: skip


@pytest.mark.parametrize("c", CASES, ids=ids(CASES))
def test_case(bench, c):
    check(bench, c)


def test_a_drafter_judged_by_eagle1_gets_both_runtimes_verdicts(bench):
    """The EAGLE release code's drafter under the name vLLM registers: vLLM judges it (and
    its fc bias fails it), SGLang refuses the class it does not register; no profile of
    another family is evaluated."""
    report = bench.case(V_EAGLE1, EMBED, profile=None, draft=None)
    assert report.family == "eagle" and report.profile == "vllm-eagle"
    assert report.verdicts == {"vllm-eagle": False, "sglang-eagle": False}
    assert all(n.code != "DSC108" for n in report.not_checked)


# --- the table ------------------------------------------------------------------------


def test_the_table_has_one_row_per_runtime_and_name_and_a_reason_for_every_unjudged_one():
    assert len(VLLM_ARCHITECTURES) == 68
    for rows in (VLLM_ARCHITECTURES, SGLANG_ARCHITECTURES):
        names = [a.name for a in rows]
        assert len(names) == len(set(names))
    for a in ARCHITECTURES:
        mapped = ({"vLLM": "vllm", "SGLang": "sglang"}[a.runtime], a.name) in VARIANTS
        assert bool(a.judged_by) != bool(a.why) or mapped, a.name  # a variant's: its profile
        if a.judged_by:
            line = PROFILES[a.judged_by].line if a.judged_by in PROFILES else a.judged_by
            runtimes = {p.runtime for p in PROFILES.values() if p.line == line}
            assert runtimes == {a.runtime}, a.name


KEYS = {"vLLM": "vllm", "SGLang": "sglang"}


def test_the_29_names_judged_before_the_table_keep_their_family_profiles():
    """The names a family's substring judged before the table existed keep being judged by
    that family's profiles; the DeepSeek MLA EAGLE-3 names (deepseek_eagle3.py,
    kimi_k25_eagle3.py) on the MLA layer their source builds (``mla_architectures``)."""
    before = {"eagle3", "peagle", "dspark", "dflash"}
    mla = {"Eagle3DeepseekV2ForCausalLM", "Eagle3DeepseekV3ForCausalLM"}
    names = {a.name for a in ARCHITECTURES if any(m in a.name.lower() for m in before)}
    assert len(names) == 29
    for name in names:  # but the variants a runtime does not serve as their family
        rows = [r for r in BY_NAME[name] if (KEYS[r.runtime], name) not in NOT_JUDGED]
        assert all(r.judged_by for r in rows), name
    # those (R's reasons): weights read from the target (DSpark V4.1), or a model of their own
    assert {n for n in names if not all(r.judged_by for r in BY_NAME[n])} == {
        name for _, name in NOT_JUDGED if name in names
    }
    for name in mla:
        assert all(r.judged_by for r in BY_NAME[name]), name
        assert name in PROFILES["vllm-eagle3"].mla_architectures
    assert PROFILES["sglang-eagle3"].mla_architectures == ("Eagle3DeepseekV2ForCausalLM",)


def _source(package: str, path: str) -> str:
    release = {"vllm": "vllm-0.33.0", "sglang": "sglang-0.5.23"}[package]
    found = SOURCES / release / path
    if not found.is_file():
        msg = f"{found} is not unpacked: run python tools/fetch_sources.py"
        if REQUIRE:
            pytest.fail(msg)
        pytest.skip(msg)
    return found.read_text(encoding="utf-8")


def test_the_vllm_rows_are_its_registry():
    """Every name of vLLM 0.33.0's _SPECULATIVE_DECODING_MODELS is a row, building the class
    the registry names."""
    text = _source("vllm", "vllm/model_executor/models/registry.py")
    start = text.index("_SPECULATIVE_DECODING_MODELS = {")
    body = text[text.index("{", start) : text.index("\n}\n", start) + 2]
    registry = ast.literal_eval(body)
    assert {a.name: a.builds for a in VLLM_ARCHITECTURES} == {
        name: cls for name, (_, cls) in registry.items()
    }


@pytest.mark.parametrize(
    "profile", ["vllm-eagle3", "vllm-eagle3-legacy", "vllm-dflash", "vllm-dflash-legacy"]
)
def test_a_vllm_profile_registers_the_names_its_renaming_can_ask_for(profile):
    """A renaming profile's architectures are exactly the registry's names that its method's
    renaming keeps as they stand (transformers_utils/configs/eagle.py:55-74): any other name
    the renaming yields is refused, and a registered name it never yields is not asked for."""
    text = _source("vllm", "vllm/model_executor/models/registry.py")
    start = text.index("_SPECULATIVE_DECODING_MODELS = {")
    registry = ast.literal_eval(text[text.index("{", start) : text.index("\n}\n", start) + 2])
    p = PROFILES[profile]
    kept = {name for name in registry if renamed(name, p.architecture_rename) == name}
    assert p.architecture_rename and set(p.architectures) == kept
    assert len(p.architectures) == len(kept)  # no name twice


def test_the_sglang_rows_are_the_entry_classes_of_its_draft_model_files():
    """Every EntryClass name of SGLang 0.5.23's EAGLE, DFlash, DSpark, MTP and NextN model
    files is a row (and the rows name no other, but the EntryClass drafters of other files:
    LiLiCorr, GLM's DSA NextN, Inkling's MTP)."""
    listing = _source("sglang", "WHEEL-FILES.txt").split()
    files = [
        p
        for p in listing
        if re.fullmatch(r"sglang/srt/models/[^/]*(eagle|dflash|dspark|mtp|nextn)[^/]*\.py", p)
    ]
    assert files
    names = set()
    for path in files:
        text = _source("sglang", path)
        entry = re.search(r"^EntryClass = (\[[^\]]*\]|\w+)", text, re.M)
        assert entry, path
        names |= set(re.findall(r"\w+", entry.group(1)))
    rows = {a.name for a in SGLANG_ARCHITECTURES}
    others = {
        "LiLiCorrDraftModel",
        "GlmMoeDsaForCausalLMNextN",
        "InklingForConditionalGenerationMTP",
    }
    assert rows == names | others


# --- the route ----------------------------------------------------------------------------


def _route(*archs: str, **raw):
    config = {"architectures": list(archs), "vocab_size": VT, "hidden_size": H, **raw}
    return route(parse_drafter_config(config, Path("config.json")))


def test_a_name_judged_by_one_runtime_is_judged_there_and_refused_by_the_other():
    way = _route("EagleLlamaForCausalLM")
    assert way.family == "eagle" and way.judged
    assert set(way.judges) == {"vllm-eagle", "sglang-eagle"} and way.unjudged == ()


def test_a_name_no_runtime_judges_is_not_judged_with_each_runtimes_reason():
    way = _route("DSparkV41DraftModel")  # vLLM's alone: its variant reason (variants.py)
    assert not way.judged and way.family == "dspark"
    assert way.unjudged == (
        f"{VLLM} 0.33.0 builds DSparkDeepseekV4ForCausalLM: "
        + NOT_JUDGED[("vllm", "DSparkV41DraftModel")],
    )
    assert way.unjudged == unjudged("DSparkV41DraftModel")


def test_the_first_registered_name_routes_and_any_other_config_is_routed_by_family():
    assert _route("Foo", "Qwen3DSparkModel").architecture == "Qwen3DSparkModel"
    plain = _route("Eagle3Speculator")
    assert plain.architecture is None and plain.judges is None and plain.family == "eagle3"


def test_a_runtime_that_registers_the_name_without_a_profile_is_a_check_not_made(
    bench, monkeypatch
):
    """Where one runtime judges a name and another registers it with no profile (here SGLang's
    Laguna DFlash taken out, as a variant without a profile would be), the drafter is judged
    by the first, and the second's reason is a check not made (DSC108): a partial verdict,
    not a silent pass."""
    monkeypatch.setitem(NOT_JUDGED, ("sglang", "DFlashLagunaForCausalLM"), "not modelled here")
    config = {"architectures": ["DFlashLagunaForCausalLM"], "model_type": "qwen3"}
    way = _route("DFlashLagunaForCausalLM", model_type="qwen3", markov_rank=None)
    assert way.judged and way.family == "dflash"
    # TensorRT-LLM registers no names: its DFlash profile judges it as its loader would
    assert set(way.judges) == {"vllm-laguna", "trtllm-dflash"}
    report = bench.case({**config, "markov_rank": None}, profile=None)
    # the default (vllm-dflash) judges no Laguna drafter: the first of its runtime decides
    assert report.profile == "vllm-laguna" and set(report.verdicts) == set(way.judges)
    (not_made,) = [n for n in report.not_checked if n.code == "DSC108"]
    assert not_made.reason == "SGLang 0.5.23 builds DFlashLagunaForCausalLM: not modelled here"


def test_vllm_answers_66_of_its_68_names_and_gives_the_2_others_a_reason():
    """vLLM 0.33.0's 68 draft architectures: 34 judged by a profile (Gemma4MTPModel by
    vllm-gemma4-assistant since issue 31's last one), 32 MTP classes answered by ``inspect
    TARGET --mtp``, and 2 with a reason (ExtractHiddenStatesModel proposes nothing; DSpark V4.1
    reads the target's weights)."""
    rows = [a for a in ARCHITECTURES if a.runtime == "vLLM"]
    judged = {a.name for a in rows if a.judged_by}
    mtp = {a.name for a in rows if not a.judged_by and a.family == "mtp"}
    assert (len(rows), len(judged), len(mtp)) == (68, 34, 32)
    assert "Gemma4MTPModel" in judged
    assert {a.name for a in rows} - judged - mtp == {
        "ExtractHiddenStatesModel",
        "DSparkV41DraftModel",
    }
