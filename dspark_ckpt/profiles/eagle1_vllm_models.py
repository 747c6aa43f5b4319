"""vLLM 0.33.0's classic EAGLE (EAGLE-1) drafters over other decoder layers than Llama's:
each a ``Profile.derive`` of ``vllm-eagle`` (``eagle1.py``) with only the fields its model
file changes, each cited at the 0.33.0 wheel; ``architectures.py`` names the architecture
each judges.

Llama 4 (``EagleLlama4ForCausalLM``, llama4_eagle.py): fc over [embedding, hidden state]
without a bias, Llama 4 decoder layers (``feed_forward`` MLP, every layer with its
input_layernorm, weightless q/k norms), a final norm and an lm_head of draft_vocab_size
rows; loaded by AutoWeightsLoader with ``model.`` prepended to every name but lm_head and a
``model.`` prefix stripped again by its inner model's mapper (both forms load); config
asserts (no YOCO layers, no MoE layers).
"""

from __future__ import annotations

from dspark_ckpt.profiles.eagle1 import V_SHARE, V_UTILS, VLLM_EAGLE
from dspark_ckpt.profiles.vllm import NO_PARAM_ANCHORED, REGISTRY, VLLM, M

READ = ">=0.33.0,<=0.33.0"  # the one release read (vllm-eagle's)
L4_EAGLE = M + "llama4_eagle.py"
L4 = M + "llama4.py"
RENAMED = (
    'vllm/transformers_utils/configs/eagle.py:46-53 `f"Eagle{arch}"` (Llama4ForCausalLM is '
    "served as EagleLlama4ForCausalLM)"
)

# Llama 4: the inner model's names (fused q/k/v and gate/up stored for the modules it builds)
L4_LOAD = f'{L4_EAGLE}:237-247 `name = "model." + name` `loader = AutoWeightsLoader(self)`'
L4_HEAD = f"{L4_EAGLE}:200-204 `self.lm_head = ParallelLMHead(`"
LLAMA4_LAYER = (
    *(f"self_attn.{p}_proj|self_attn.qkv_proj" for p in "qkv"),
    "self_attn.o_proj",
    *(f"feed_forward.{p}_proj|feed_forward.gate_up_proj" for p in ("gate", "up")),
    "feed_forward.down_proj",
    "input_layernorm",
    "post_attention_layernorm",
)
VLLM_EAGLE_LLAMA4 = VLLM_EAGLE.derive(
    name="vllm-eagle-llama4",
    release=VLLM,
    releases=READ,
    variant="eagle-llama4",
    sources=(L4_EAGLE, L4, V_SHARE, V_UTILS),
    cites={
        "architectures": f'{REGISTRY}:662 `"EagleLlama4ForCausalLM"`; {RENAMED}',
        "builds_lm_head": f"{L4_HEAD} (draft_vocab_size rows)",
        "missing_lm_head": f"{V_UTILS}:1195-1196 `model.has_own_lm_head = True` (only where "
        f"an lm_head name is loaded); {V_SHARE}:18-27 `if not getattr(eagle, flag, False):` "
        "(else the target's whole head replaces the drafter's: every target id is drafted)",
        "lm_head_from_target": f"{L4_HEAD}; {V_SHARE}:18-27 `if not getattr(eagle, flag, "
        "False):` (a shipped head is kept unless it equals the target's)",
        "reduced_when": f"{L4_HEAD} `self.config.draft_vocab_size,` (the head's rows; no d2t "
        "maps them)",
        "reduced_against": f"{L4_EAGLE}:195-198 `self.config.vocab_size, scale=logit_scale`",
        "missing_d2t": f"{L4_LOAD} (no d2t parameter: no d2t path); {L4_HEAD} "
        "`self.config.draft_vocab_size,` (a head of Vd rows: draft id i is proposed as target "
        "id i)",
        "d2t_param": f"{L4_LOAD}; {NO_PARAM_ANCHORED}",
        "prefixed_names": f'{L4_EAGLE}:70-71 `orig_to_new_prefix={{"model.": ""}}` (model.X '
        "becomes model.model.X, which the inner model's mapper takes back to X)",
        "strict_names": f"{L4_LOAD} (returns no set of loaded names); {NO_PARAM_ANCHORED}",
        "stray_names": f"{L4_LOAD}; {NO_PARAM_ANCHORED}",
        "missing_tensors": f"{L4_LOAD} (nothing checks what was filled)",
        "name_maps": f"{L4_EAGLE}:72-78 `orig_to_new_stacked={{` (q/k/v and gate/up stored fused)",
        "first_input_norm": f"{L4}:358 `self.input_layernorm = RMSNorm(` (every layer's: no "
        "layer of llama4_eagle.py deletes it)",
        "fc_bias": f"{L4_EAGLE}:118-120 `bias=False` (a stored fc.bias is ignored); "
        f'{V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
        "extra_modules": f"{L4_EAGLE}:121 `self.norm = RMSNorm(`",
        "own_embed_kept": f"{L4_EAGLE}:95-99 `self.embed_tokens = VocabParallelEmbedding(`; "
        f'{V_SHARE}:74-77 `_should_share(draft_model, "has_own_embed_tokens"` (a shipped copy '
        "that differs from the target's is kept)",
        "layer_modules": f"{L4_EAGLE}:105-112 `Llama4DecoderLayer(`; {L4}:328-339 "
        "`self.self_attn = Llama4Attention(`; "
        f"{L4}:211-218 `has_weight=False,` (its q/k norm has no weight); "
        f"{L4}:350-357 `self.feed_forward = LlamaMLP(`; "
        f"{L4}:358-361 `self.post_attention_layernorm = RMSNorm(`",
        "required_keys": f"{L4_HEAD} `self.config.draft_vocab_size,` (an AttributeError "
        "without it: no config class defines it); "
        f"{L4_EAGLE}:153-156 `assert self.config.yoco_global_kv_layer is None` "
        "`assert len(self.config.moe_layers) == 0`",
    },
    architectures=("EagleLlama4ForCausalLM",),
    builds_lm_head=True,
    missing_d2t="zeros",
    lm_head_from_target="never",
    prefixed_names="stripped",
    first_input_norm=True,
    extra_modules=("norm",),
    layer_modules=LLAMA4_LAYER,
    required_keys=(
        "draft_vocab_size",
        "null:yoco_global_kv_layer",
        "null:yoco_local_kv_layer",
        "empty:moe_layers",
    ),
)

PROFILES = (VLLM_EAGLE_LLAMA4,)
