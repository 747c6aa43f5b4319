"""vLLM 0.33.0's Gemma 4 MTP assistant (``Gemma4MTPModel``, class ``Gemma4MTP``): the model it
builds for a drafter folder whose config is a Gemma 4 assistant (model_type gemma4_assistant
or gemma4_unified_assistant, rewritten to Gemma4MTPModel by config/speculative.py:1106-1115).

Classic EAGLE's shape, as SGLang's (``sglang-gemma4-assistant``), but its own model and
loader: a Gemma4MultiTokenPredictor under ``model.`` built from text_config (embed_tokens,
pre_projection over [the target's embedding, its hidden state], decoder layers whose
attention is q-only, KV-shared with the target: no k/v projections or k_norm at all, the
norm, post_projection back to the target's width), an own lm_head (tied to
model.embed_tokens unless the assistant's top-level tie_word_embeddings is false), and the
centroid head (masked_embedding.*, outside ``model.``) with use_ordered_embeddings. It loads
with AutoWeightsLoader through its hf_to_vllm_mapper (pre_/post_projection moved under
``model.``, gate/up stacked into gate_up_proj), refuses a name it has no parameter for (a
``.bias`` ignored), skips a shipped lm_head tied to the embedding, and returns the loaded
names: vLLM's weight tracking refuses an RMSNorm or the centroids (no quant method) nothing
filled; a linear layer, the embedding or the head nothing filled is counted as loaded and
stays uninitialised. A ``Profile.derive`` of vLLM's classic EAGLE profile, each changed field
cited at the 0.33.0 wheel.
"""

from __future__ import annotations

from dspark_ckpt.profiles.eagle1 import NO_PARAM, V_UTILS, VLLM_EAGLE, _unread
from dspark_ckpt.profiles.sglang_variants import GEMMA4_LAYER

G = "vllm/model_executor/models/gemma4_mtp.py"
G4 = "vllm/model_executor/models/gemma4.py"
SPEC = "vllm/config/speculative.py"
SHARE = "vllm/v1/spec_decode/gemma4.py"
LOADER = "vllm/model_executor/model_loader/default_loader.py"
READ = "==0.33.0"  # the one release read

LOAD = (
    f"{G}:590-593 `loader = AutoWeightsLoader(self)` `loaded = loader.load_weights(weights, "
    "mapper=self.hf_to_vllm_mapper)`"
)
MAPPER = f'{G}:451-455 `"pre_projection.": "model.pre_projection.",`'
TRACKED = (
    f"{G}:600 `return loaded` (the loaded names); {LOADER}:511-523 `model_config.quantization "
    f"is None and loaded_weights is not None`; {LOADER}:567-572 `Following weights were not "
    "initialized from`"
)
TIED = f'{G}:487-488 `if getattr(config, "tie_word_embeddings", True):`'
SERVED = tuple(
    f"{arch}@{kind}"
    for arch in (
        "Gemma4AssistantForCausalLM",
        "Gemma4UnifiedAssistantForCausalLM",
        "Gemma4MTPModel",
    )
    for kind in ("gemma4_assistant", "gemma4_unified_assistant")
)

VLLM_GEMMA4_ASSISTANT = VLLM_EAGLE.derive(
    name="vllm-gemma4-assistant",
    release="vLLM 0.33.0",
    releases=READ,
    variant="gemma4-assistant",
    sources=(G, G4, V_UTILS, LOADER, SPEC, SHARE),
    cites={
        **_unread(G),
        "architectures": f'{SPEC}:1106-1115 `if hf_config.model_type in ("gemma4_assistant", '
        '"gemma4_unified_assistant"):` `"architectures": ["Gemma4MTPModel"]` (rewritten by '
        "model_type, whatever architectures names)",
        "architecture_rename": f'{SPEC}:1106-1115 `"architectures": ["Gemma4MTPModel"]` (set '
        "by model_type, not renamed by a method)",
        "served_architectures": f'{SPEC}:1106-1115 `if hf_config.model_type in ("gemma4_assistant", '
        '"gemma4_unified_assistant"):` (the model_type decides, whatever architectures names; '
        "another model_type is not rewritten, and neither assistant class is registered)",
        "config_view": f"{G}:342-353 `text_config = _get_text_config(config)` "
        f"`self.hidden_size = text_config.hidden_size`; {G4}:251-253 `if hasattr(config, "
        '"text_config"):`; ' + TIED + f"; {G}:496-498 `if getattr(config, "
        '"use_ordered_embeddings", False):` `num_centroids = getattr(config, "num_centroids", '
        "2048)`",
        "top_modules": f"{G}:355-360 `self.embed_tokens = VocabParallelEmbedding(`; "
        f"{G}:362-378 `self.pre_projection = ColumnParallelLinear(` `self.post_projection = "
        f"RowParallelLinear(`; {G}:390 `self.norm = RMSNorm(self.hidden_size`; {G}:481-488 "
        f"`self.lm_head = ParallelLMHead(` `self.lm_head.tie_weights(self.model.embed_tokens)`; "
        f"{G}:496-504 `self.masked_embedding = Gemma4MTPMaskedEmbedder(`; {G}:87-91 "
        '`self.centroids = nn.Linear(` `"token_ordering",` (a persistent buffer: '
        f"{V_UTILS}:353-357 `Add persistent registered buffers`); {SHARE}:187-188 `del "
        "self.model.model.embed_tokens` (untied, the target's embedding replaces it)",
        "layer_modules": f"{G}:183-197 `self.q_proj = ColumnParallelLinear(` `self.o_proj = "
        f"RowParallelLinear(` `self.q_norm = RMSNorm(self.head_dim` (q only: no k/v "
        f"projection or k_norm, {G}:220-222 `self.is_kv_shared_layer = True`); "
        f"{G}:285-304 `self.mlp = Gemma4MLP(` `self.post_feedforward_layernorm = RMSNorm(` "
        '`self.register_buffer("layer_scalar", torch.ones(1))`; '
        f"{G4}:266-273 `self.gate_up_proj = MergedColumnParallelLinear(` "
        "`self.down_proj = RowParallelLinear(`",
        "name_maps": MAPPER + f" (no model.language_model. or bare layers.* names); {G}:456-459 "
        '`".gate_proj": (".gate_up_proj", 0),` (gate/up stacked into gate_up_proj, a '
        "parameter that a stored gate_up_proj loads whole)",
        "prefixed_names": f"{G}:472-475 `self.model = Gemma4MultiTokenPredictor(` (model. is "
        f"its own root); {MAPPER}",
        "missing_tensors": f"{LOAD}; {TRACKED}; {LOADER}:531-566 `has_postprocess_quant = "
        "getattr(` `loaded_weights.add(full_name)` (unquantised, a module with a quant method "
        "counts as loaded: a linear layer, the embedding or the head nothing filled stays "
        "uninitialised; buffers are never tracked: layer_scalar keeps its ones, "
        "token_ordering its torch.empty)",
        "checked_after_load": f"{TRACKED} (the modules with no quant method: the RMSNorms, "
        f"{G}:197 `self.q_norm = RMSNorm(` and {G}:390 `self.norm = RMSNorm(`, and the "
        f"centroids, {G}:87 `self.centroids = nn.Linear(hidden_size, num_centroids, bias=False)`)",
        "stray_names": f"{LOAD}; {NO_PARAM}",
        "strict_names": f"{LOAD} (missing names load nothing); {NO_PARAM}",
        "d2t_param": f"{LOAD} (no d2t parameter); {NO_PARAM}",
        "missing_d2t": f"{G}:440 `class Gemma4MTP(nn.Module):` (no d2t path)",
        "tied_head": TIED + " `self.lm_head = self.lm_head.tie_weights(self.model.embed_tokens)`; "
        f"{V_UTILS}:202-213 `def _get_tied_embedding_params` (a shipped lm_head.weight is "
        f"skipped as the embedding's alias); {V_UTILS}:496-500 `was skipped because it is tied "
        "to` (refused only where the embedding is not shipped)",
        "builds_lm_head": f"{G}:481-486 `self.lm_head = ParallelLMHead(`",
        "missing_lm_head": f"{SHARE}:194-196 `Gemma4 MTP always keeps its own draft-dim "
        "lm_head.` (never the target's: the loader model judges its own, top_modules)",
        "lm_head_from_target": f"{SHARE}:194-196 `def _maybe_share_lm_head`",
        "own_embed_kept": f"{SHARE}:187-188 `del self.model.model.embed_tokens` (its input "
        "embedding is always the target's)",
        "requires_embed_when_expanded": f"{SHARE}:171-192 `def _maybe_share_embeddings` (no check)",
        "reduced_when": f"{G}:352 `self.vocab_size = text_config.vocab_size` (draft_vocab_size "
        "is never read: its head drafts text_config's vocab)",
        "reduced_against": f"{SHARE}:187-188 `self.model.model.embed_tokens = "
        "target_embed_tokens` (its draft ids index the target's vocab)",
        "first_input_norm": f"{G}:293 `self.input_layernorm = RMSNorm(`",
        "fc_bias": f"{G}:362-366 `bias=False,` (pre_projection: no fc)",
        "unexpected_ignored_suffixes": f'{V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
        "stray_files_loaded": VLLM_EAGLE.cites["stray_files_loaded"],
    },
    architectures=(),
    architecture_rename="",
    served_architectures=SERVED,
    config_view="gemma4_mtp",
    prefixed_names="model_root",
    name_maps=(
        r"re:\Apre_projection\.>model.pre_projection.",
        r"re:\Apost_projection\.>model.post_projection.",
    ),
    top_modules=(
        "pre_projection",
        "post_projection",
        "norm",
        "embed_tokens?tie_word_embeddings",  # the tied head: its one stored copy
        "embed_tokens:*?!tie_word_embeddings",  # untied: built, then the target's
        "lm_head?!tie_word_embeddings",
        "^masked_embedding.centroids?use_ordered_embeddings",
        "^masked_embedding:token_ordering?use_ordered_embeddings",
    ),
    layer_modules=("self_attn.q_proj", *GEMMA4_LAYER),
    missing_tensors="uninitialised",
    checked_after_load=("norm", "centroids"),
    tied_head="own_embedding",
    builds_lm_head=True,
    missing_lm_head="unchecked",
    lm_head_from_target="never",
    own_embed_kept=False,
    first_input_norm=True,
)

PROFILES = (VLLM_GEMMA4_ASSISTANT,)
