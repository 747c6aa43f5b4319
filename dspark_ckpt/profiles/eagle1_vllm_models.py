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

MiniCPM (``EagleMiniCPMForCausalLM``, minicpm_eagle.py): fc without a bias between two input
norms, MiniCPM decoder layers under ``eagle_layers`` (a dense MLP, or MiniCPM's MoE where
num_experts is set), a final norm, an embedding and an lm_head of vocab_size rows (the
embedding where tie_word_embeddings); names read as stored (``model.`` on the inner model's,
fused q/k/v or gate/up refused by its substring renames). Its load_weights returns the names
it loaded: vLLM's weight tracking refuses a missing module with no quant method (the norms, fc
a plain torch.nn.Linear, the MoE's ws / w2s parameters) and counts every other one (the
linear layers, the embedding, the head) as loaded: uninitialised, no error.

Cohere (``EagleCohereForCausalLM``, cohere_eagle.py): fc over [embedding, hidden state] with a
bias, Cohere decoder layers (one input_layernorm feeding attention and MLP in parallel, per-head
q/k norms where use_qk_norm), a final LayerNorm; no lm_head (its logits come from the embedding,
always the target's: the class is no SupportsEagle, so a shipped embedding never counts as its
own); names read as stored (``model.``, lm_head names dropped by its mapper). vLLM's weight
tracking refuses a missing norm (a LayerNorm or RMSNorm: no quant method) and counts its linear
layers (fc with its bias too) as loaded: uninitialised, no error.
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

# MiniCPM: its own model and load_weights, returning the names it loaded: vLLM's weight
# tracking refuses a module with no quant method that nothing filled, and counts every module
# with one (linear layers, embedding, head) as loaded
MC_EAGLE = M + "minicpm_eagle.py"
MC = M + "minicpm.py"
MC_LOAD = f"{MC_EAGLE}:399-406 `return loader.load_weights(map(transform, weights))`"
DL = "vllm/model_executor/model_loader/default_loader.py"
EXEMPT = (
    f"{DL}:531-566 `has_postprocess_quant = getattr(` `loaded_weights.add(full_name)` (an "
    "unquantised model: every parameter of a module whose quant method has "
    "process_weights_after_loading counts as loaded); "
    "vllm/model_executor/layers/quantization/base_config.py:80 `def "
    "process_weights_after_loading` (QuantizeMethodBase: every quant method has it, the "
    "unquantised linear, embedding and fused-MoE ones too): such a module nothing filled "
    "stays uninitialised"
)
TRACKED = (
    f"{DL}:510-523 `model_config.quantization is None and loaded_weights is not None` "
    f"(unquantised only); {DL}:567-572 `Following weights were not initialized from` (what "
    "is left: the parameters of modules with no quant method)"
)
MC_LAYER = (
    *(f"self_attn.{p}_proj" for p in "qkvo"),
    *(f"mlp.{p}_proj?!num_experts" for p in ("gate", "up", "down")),
    "mlp.gate?num_experts",
    "mlp.experts?num_experts",
    "input_layernorm",
    "post_attention_layernorm",
)
VLLM_EAGLE_MINICPM = VLLM_EAGLE.derive(
    name="vllm-eagle-minicpm",
    release=VLLM,
    releases=READ,
    variant="eagle-minicpm",
    sources=(MC_EAGLE, MC, V_SHARE, V_UTILS),
    cites={
        "architectures": f'{REGISTRY}:663 `"EagleMiniCPMForCausalLM"`; {RENAMED}',
        "missing_tensors": f"{MC_LOAD}; {EXEMPT}",
        "checked_after_load": f"{TRACKED}: {MC_EAGLE}:90 `self.input_layernorm = RMSNorm(`; "
        f"{MC_EAGLE}:105 `self.post_attention_layernorm = RMSNorm(`; {MC_EAGLE}:173-184 "
        "`self.fc = torch.nn.Linear(` `self.input_norm1 = RMSNorm(` `self.norm = RMSNorm(`; "
        f"{MC}:122-131 `self.ws = nn.Parameter(` `self.w2s = nn.Parameter(` (the experts: "
        "parameters of MiniCPMMoE, no quant method; its gate is a GateLinear)",
        "builds_lm_head": f"{MC_EAGLE}:351-356 `self.lm_head = ParallelLMHead(` (vocab_size rows)",
        "lm_head_from_target": f"{MC_EAGLE}:351-356 `self.lm_head = ParallelLMHead(`; "
        f"{V_SHARE}:18-27 `if not getattr(eagle, flag, False):` (a shipped head is kept unless "
        "it equals the target's)",
        "tied_head": f"{MC_EAGLE}:357-358 `self.lm_head = self.lm_head.tie_weights(` (a "
        "shipped lm_head is the embedding's alias: skipped)",
        "reduced_when": f"{MC_EAGLE}:351-356 `config.vocab_size,` (draft_vocab_size is never "
        "read: no reduced vocab)",
        "reduced_against": f"{MC_EAGLE}:361 `self.logits_processor = LogitsProcessor("
        "config.vocab_size)`",
        "missing_d2t": f"{MC_LOAD} (no d2t parameter: no d2t path)",
        "d2t_param": f"{MC_LOAD}; {NO_PARAM_ANCHORED}",
        "prefixed_names": f"{MC_LOAD} (names as stored: the inner model's under model.); "
        f"{NO_PARAM_ANCHORED}",
        "strict_names": f"{MC_EAGLE}:295 `param = params_dict[name]` (a KeyError for a name "
        f"it lacks); {NO_PARAM_ANCHORED}",
        "stray_names": f"{MC_EAGLE}:295 `param = params_dict[name]`; {NO_PARAM_ANCHORED}",
        "name_maps": f"{MC_EAGLE}:197 `self.eagle_layers = nn.ModuleList(`; {MC_EAGLE}:235-241 "
        "`stacked_params_mapping = [` (substring renames: a stored qkv_proj or gate_up_proj "
        "becomes a name of no parameter)",
        "first_input_norm": f"{MC_EAGLE}:89-91 `self.input_layernorm = RMSNorm(` (every layer's)",
        "fc_bias": f"{MC_EAGLE}:173-174 `bias=False`; {MC_EAGLE}:291 `if name.endswith(` (a "
        "stored fc.bias is skipped)",
        "extra_modules": f"{MC_EAGLE}:176-184 `self.input_norm1 = RMSNorm(` `self.norm = "
        f"RMSNorm(`; {MC_EAGLE}:178 `self.embed_tokens = VocabParallelEmbedding(`; "
        f"{MC_EAGLE}:357-358 `if config.tie_word_embeddings:` (lm_head its own parameter "
        "unless tied)",
        "layer_modules": f"{MC_EAGLE}:89-101 `self.self_attn = EagleMiniCPMAttention(`; "
        f"{MC}:270-285 `self.qkv_proj = QKVParallelLinear(` `self.o_proj = RowParallelLinear(`; "
        f"{MC_EAGLE}:104-124 `if self.num_experts == 0:` `self.mlp = EagleMiniCPMMoE(`; "
        f"{MC_EAGLE}:242-250 `expert_params_mapping = [` (experts.N.w1/w2/w3 into ws, w2s)",
        "required_keys": f"{MC_EAGLE}:359 `self.config.hidden_size / self.config.dim_model_base`; "
        f"{MC_EAGLE}:211 `embedding * self.config.scale_emb`; {MC_EAGLE}:140 "
        "`self.config.scale_depth / math.sqrt(self.mup_denominator)` (read with no default)",
    },
    architectures=("EagleMiniCPMForCausalLM",),
    missing_tensors="uninitialised",
    checked_after_load=("norm", "input_norm1", "input_norm2", "fc", "mlp.experts"),
    builds_lm_head=True,
    lm_head_from_target="never",
    tied_head="embedding",
    prefixed_names="required",
    name_maps=("eagle_layers>layers",),
    first_input_norm=True,
    extra_modules=(
        "input_norm1",
        "input_norm2",
        "norm",
        "embed_tokens",
        "lm_head?!tie_word_embeddings",
    ),
    layer_modules=MC_LAYER,
    required_keys=("dim_model_base", "scale_emb", "scale_depth"),
)

# Cohere: CohereForCausalLM's mapper and tracked load; the drafter's embedding (and with it its
# head: logits come from embed_tokens) is always the target's
CO_EAGLE = M + "cohere_eagle.py"
CO = M + "commandr.py"
CO_LOAD = f"{CO_EAGLE}:189-200 `loaded_weight_names = loader.load_weights(`"
CO_SHARE = (
    f"{CO_EAGLE}:147-148 `self.has_own_embed_tokens = False`; {V_UTILS}:1191-1192 `if not "
    "supports_any_eagle(model):` (CohereForCausalLM is no SupportsEagle: a shipped embedding never "
    f'sets the flag); {V_SHARE}:74-77 `_should_share(draft_model, "has_own_embed_tokens"` (the '
    "target's embedding replaces it)"
)
CO_LOGITS = (
    f"{CO}:460-471 `logits = self.logits_processor(self.model.embed_tokens, hidden_states)` (no "
    "lm_head module: the head is the embedding, the target's)"
)
CO_LAYER = (
    *(f"self_attn.{p}_proj|self_attn.qkv_proj" for p in "qkv"),
    "self_attn.o_proj",
    "self_attn.q_norm?use_qk_norm",
    "self_attn.k_norm?use_qk_norm",
    *(f"mlp.{p}_proj|mlp.gate_up_proj" for p in ("gate", "up")),
    "mlp.down_proj",
    "input_layernorm",
)
VLLM_EAGLE_COHERE = VLLM_EAGLE.derive(
    name="vllm-eagle-cohere",
    release=VLLM,
    releases=READ,
    variant="eagle-cohere",
    sources=(CO_EAGLE, CO, V_SHARE, V_UTILS),
    cites={
        "architectures": f'{REGISTRY}:660 `"EagleCohereForCausalLM"`; {RENAMED}',
        "missing_tensors": f'{CO_LOAD} `loaded_weight_names.add("model.embed_tokens.weight")` '
        f"(the names it loaded); {EXEMPT}",
        "checked_after_load": f"{TRACKED}: {CO_EAGLE}:112 `self.norm = LayerNorm(`; "
        f"{CO}:78-81 `self.weight = nn.Parameter(torch.ones(param_shape))` (no quant method); "
        f"{CO}:258-263 `self.q_norm = norm_cls(` `self.k_norm = norm_cls(`; {CO}:309 "
        "`self.input_layernorm = norm_cls(` (fc is a ReplicatedLinear: its weight and bias "
        f"are exempt: {CO_EAGLE}:100 `self.fc = ReplicatedLinear(`)",
        "own_embed_kept": CO_SHARE,
        "lm_head_from_target": f'{CO}:404-417 `orig_to_new_prefix={{"lm_head": None}}` (a '
        f"shipped lm_head is dropped); {CO_LOGITS}",
        "missing_lm_head": CO_LOGITS,
        "builds_lm_head": f"{CO_EAGLE}:139-141 `nn.Module.__init__(self)` (no lm_head module); "
        f"{CO_LOGITS}",
        "dropped_unbuilt": f'{CO}:404-417 `orig_to_new_prefix={{"lm_head": None}}` (lm_head '
        "names are dropped, not refused)",
        "tied_head": f"{CO_EAGLE}:149-152 `if self.config.tie_word_embeddings:` (it drops the "
        f"stored embedding, which the target's replaces anyway); {CO_LOGITS}",
        "prefixed_names": f"{CO_LOAD} (names as stored: the inner model's under model.); "
        f"{NO_PARAM_ANCHORED}",
        "strict_names": f"{CO_LOAD}; {NO_PARAM_ANCHORED}",
        "stray_names": f"{CO_LOAD}; {NO_PARAM_ANCHORED}",
        "name_maps": f"{CO}:404-415 `orig_to_new_stacked={{` (q/k/v and gate/up stored fused)",
        "first_input_norm": f"{CO}:309 `self.input_layernorm = norm_cls(` (every layer's: no "
        "layer of cohere_eagle.py deletes it)",
        "fc_bias": f"{CO_EAGLE}:98-108 `bias=True,` (a checkpoint must give fc.bias)",
        "extra_modules": f"{CO_EAGLE}:110-115 `self.norm = LayerNorm(` (weight only: "
        f"{CO}:78-81 `self.weight = nn.Parameter(torch.ones(param_shape))`)",
        "layer_modules": f"{CO_EAGLE}:86-96 `CohereEagleDecoderLayer(`; {CO}:301-309 "
        "`self.self_attn = CohereAttention(` `self.mlp = CohereMLP(` (one input_layernorm, no "
        f'post-attention norm); {CO}:207-220 `self.use_qk_norm = getattr(config, "use_qk_norm", '
        f"False)` `self.qkv_proj = QKVParallelLinear(`; {CO}:256-263 `self.q_norm = norm_cls(`; "
        f"{CO}:146-156 `self.gate_up_proj = MergedColumnParallelLinear(`",
    },
    architectures=("EagleCohereForCausalLM",),
    missing_tensors="uninitialised",
    checked_after_load=("norm",),
    own_embed_kept=False,
    dropped_unbuilt=("lm_head",),
    prefixed_names="required",
    first_input_norm=True,
    fc_bias=True,
    extra_modules=("norm",),
    layer_modules=CO_LAYER,
)

PROFILES = (VLLM_EAGLE_LLAMA4, VLLM_EAGLE_MINICPM, VLLM_EAGLE_COHERE)
