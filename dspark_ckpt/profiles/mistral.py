"""Classic EAGLE over Mistral decoder layers: vLLM 0.33.0's ``EagleMistralForCausalLM``
(``mistral_eagle.py``) and SGLang 0.5.23's ``MistralForCausalLMEagle`` (its
``mistral_eagle.py``), each a ``Profile.derive`` of its runtime's classic EAGLE profile
(``eagle1.py``) with the fields that differ, cited.

Both build fc over [embedding, the target's hidden state] without a bias, Llama-shaped decoder
layers of which the first keeps its input_layernorm, and a final norm; neither builds a head of
its own that survives (the target's replaces it). Both rename Mistral-native names by pattern
(``layers.N.attention.wq`` -> ``model.layers.N.self_attn.q_proj``, ``eagle_linear`` ->
``model.fc``, ...; the ``re:`` entries of ``name_maps``) and take ``model.`` as their model's own
root (``prefixed_names`` "model_root"). What a name the mapper does not rename meets:

- vLLM (``MistralForCausalLM.maybe_remap_mistral``): a name passes as renamed; a bare name
  outside ``layers.`` / ``norm`` / ``tok_embeddings`` / ``output`` / ``eagle_linear`` (``fc``,
  ``embed_tokens``, ``d2t``) names no module of the top-level model and is refused. Its
  ``load_weights`` returns the names it loaded: an unquantised drafter missing a norm fails
  the load (``checked_after_load``), while a missing linear layer (fc, a projection, the
  ada_rms_norm_t_cond ones, an expert) counts as loaded (it has a quant method) and stays
  uninitialised.
- SGLang (``_remap_mistral_to_llama``): ``model.*`` and ``lm_head.*`` pass as stored, a bare name
  matching none of its patterns is skipped with a warning ("Unrecognized weight"), as an
  EAGLE-release (Hugging Face) name such as ``fc.weight`` or ``layers.0.self_attn.q_proj.weight``
  is; what is not loaded keeps its initial value.
"""

from __future__ import annotations

from dspark_ckpt.profiles.eagle1 import (
    FUSED_MAPS,
    NO_PARAM,
    S_LLAMA,
    S_WORKER,
    SGLANG_EAGLE,
    V_EAGLE,
    V_SHARE,
    V_UTILS,
    VLLM_EAGLE,
)
from dspark_ckpt.profiles.quant_fc import SGLANG_MISTRAL_FC

V_MISTRAL = "vllm/model_executor/models/mistral_eagle.py"
V_MISTRAL_LM = "vllm/model_executor/models/mistral.py"
V_DEFAULT_LOADER = "vllm/model_executor/model_loader/default_loader.py"
S_MISTRAL = "python/sglang/srt/models/mistral_eagle.py"
S_LLAMA_EAGLE = "python/sglang/srt/models/llama_eagle.py"


def _repointed(base: dict[str, str], old: str, new: str) -> dict[str, str]:
    """The "not read by this loader" cites of ``base`` (its model file ``old``) for ``new``."""
    return {k: new + v[len(old) :] for k, v in base.items() if v.startswith(old + " (not read")}


# vLLM: MistralForCausalLM.mistral_mapping | {"eagle_linear": "model.fc"}, applied component by
# component (a component is renamed where its new name is not yet in the name): the renames a
# well-formed name meets, as patterns. A bare layers.* name gets the model. root; model.* names
# keep it.
VLLM_PATTERNS = (
    r"re:\Alayers\.>model.layers.",
    r"re:\.attention\.>.self_attn.",
    r"re:\.attention_norm\.>.input_layernorm.",
    r"re:\.ffn_norm\.>.post_attention_layernorm.",
    r"re:\.feed_forward\.>.mlp.",
    *(rf"re:\.{w}\.>.{p}_proj." for w, p in (("wq", "q"), ("wk", "k"), ("wv", "v"), ("wo", "o"))),
    *(rf"re:\.{w}\.>.{p}_proj." for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))),
    r"re:\Atok_embeddings\.>model.embed_tokens.",
    r"re:\Aoutput\.>lm_head.",
    r"re:\Anorm\.>model.norm.",
    r"re:\Aeagle_linear\.>model.fc.",
)
V_MAPPER = (
    f'{V_MISTRAL_LM}:242-264 `mistral_mapping = {{` `"attention_norm": "input_layernorm",` '
    f'`"norm": "model.norm",`; {V_MISTRAL_LM}:333-343 '
    "`elif item in mapping and mapping[item] not in name:` (each component renamed where its new "
    f"name is not yet in the name: model.layers.* keeps its root); {V_MISTRAL}:135-137 "
    '`"eagle_linear": "model.fc",`'
)
V_EXEMPT = (
    f"{V_DEFAULT_LOADER}:531-566 `has_postprocess_quant = getattr(` "
    "`loaded_weights.add(full_name)` (an unquantised model: every parameter of a module whose "
    "quant method has process_weights_after_loading counts as loaded); "
    "vllm/model_executor/layers/quantization/base_config.py:80 `def "
    "process_weights_after_loading` (QuantizeMethodBase: every quant method has it, the "
    "unquantised linear, embedding and fused-MoE ones too): such a module nothing filled "
    "stays uninitialised"
)
V_TRACKED = (
    f"{V_DEFAULT_LOADER}:510-523 `model_config.quantization is None and loaded_weights is not "
    f"None` (unquantised only); {V_DEFAULT_LOADER}:567-572 `Following weights were not "
    "initialized from` (what is left: the parameters of modules with no quant method)"
)
V_LOAD = (
    f'{V_MISTRAL}:189-192 `return super().load_weights(weights) | {{"model.embed_tokens.weight"}}`; '
    f"{V_MISTRAL_LM}:285-290 `loader = AutoWeightsLoader(self)`"
)
V_NO_HEAD = (
    f"{V_MISTRAL}:139-142 `and to avoid creating an lm_head.` `nn.Module.__init__(self)`; "
    f"{V_SHARE}:107-119 `_should_share(` (the target's lm_head is set as the drafter's)"
)
V_D2T = (
    f"{V_MISTRAL_LM}:333-343 `elif item in mapping and mapping[item] not in name:` (d2t is no "
    f"name it maps: it names no module of the top-level model); {NO_PARAM}"
)
VLLM_MISTRAL_CITES = {
    **_repointed(VLLM_EAGLE.cites, V_EAGLE, V_MISTRAL),
    "architectures": 'vllm/model_executor/models/registry.py:707 `"EagleMistralForCausalLM"`; '
    'vllm/transformers_utils/configs/eagle.py:46-53 `f"Eagle{arch}"` (MistralForCausalLM under '
    "an EAGLE config is renamed EagleMistralForCausalLM)",
    "reduced_when": f"{V_MISTRAL}:155-158 `self.config.vocab_size, scale=logit_scale` (no "
    "draft_vocab_size is read: no reduced vocab)",
    "reduced_against": f"{V_MISTRAL}:155-158 `self.config.vocab_size, scale=logit_scale` (the "
    "logits are the target head's)",
    "missing_d2t": V_D2T,
    "d2t_param": V_D2T,
    "missing_lm_head": V_NO_HEAD,
    "lm_head_from_target": V_NO_HEAD,
    "builds_lm_head": V_NO_HEAD,
    "tied_head": f"{V_MISTRAL}:139-142 `nn.Module.__init__(self)` (no lm_head to tie: "
    "tie_word_embeddings is never read)",
    "own_embed_kept": f"{V_MISTRAL}:189-192 `# Pretend embed_tokens is loaded; the actual "
    "weight is shared` (its load_weights never calls process_eagle_weight, so "
    f"has_own_embed_tokens stays False); {V_SHARE}:24-25 `if not getattr(eagle, flag, False):` "
    "(the target's embedding replaces a shipped one)",
    "prefixed_names": V_MAPPER,
    "strict_names": f"{V_MISTRAL_LM}:285-290 `loader = AutoWeightsLoader(self)`; {NO_PARAM}",
    "stray_names": f"{V_MISTRAL_LM}:285-290 `loader = AutoWeightsLoader(self)`; {NO_PARAM}",
    "missing_tensors": f"{V_LOAD}; {V_EXEMPT}",
    "checked_after_load": f"{V_TRACKED}: {V_MISTRAL}:109 `self.norm = RMSNorm(`; "
    "vllm/model_executor/models/llama.py:308-309 `self.input_layernorm = RMSNorm(` "
    "`self.post_attention_layernorm = RMSNorm(` (ada_rms_norm_t_cond is a Column- and a "
    f"RowParallelLinear: exempt, {V_MISTRAL_LM}:161-176 `ColumnParallelLinear(`)",
    "unexpected_ignored_suffixes": f'{V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
    "name_maps": f"{V_MAPPER}; vllm/model_executor/models/llama.py:348-356 "
    "`orig_to_new_stacked={` (q/k/v and gate/up stored fused)",
    "fc_bias": f"{V_MISTRAL}:100-108 `self.fc = RowParallelLinear(` `bias=False,` (a stored "
    f'fc.bias is ignored); {V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
    "first_input_norm": f"{V_MISTRAL}:51-58 `class EagleMistralDecoderLayer(MistralDecoderLayer):` "
    "(layer 0 keeps Llama's input_layernorm: nothing deletes it)",
    "extra_modules": f"{V_MISTRAL}:109 `self.norm = RMSNorm(self.config.hidden_size`; "
    f'{V_MISTRAL_LM}:161-176 `if getattr(config, "ada_rms_norm_t_cond", False):` '
    "`self.ada_rms_norm_t_cond = nn.Sequential(` (Linear, GELU, Linear: .0 and .2)",
}
VLLM_EAGLE_MISTRAL = VLLM_EAGLE.derive(
    name="vllm-eagle-mistral",
    release="vLLM 0.33.0",
    releases=">=0.33.0,<=0.33.0",
    variant="eagle-mistral",
    sources=(V_MISTRAL, V_MISTRAL_LM, V_SHARE, V_UTILS),
    cites=VLLM_MISTRAL_CITES,
    architectures=("EagleMistralForCausalLM",),
    prefixed_names="model_root",
    missing_tensors="uninitialised",
    checked_after_load=("norm",),
    own_embed_kept=False,
    name_maps=(*FUSED_MAPS, *VLLM_PATTERNS),
    first_input_norm=True,
    extra_modules=(
        "norm",
        "layers.*.ada_rms_norm_t_cond.0?ada_rms_norm_t_cond",
        "layers.*.ada_rms_norm_t_cond.2?ada_rms_norm_t_cond",
    ),
)


# SGLang: MistralForCausalLMEagle.remapping, each fullmatched in order (the first wins);
# model.* and lm_head.* pass as stored, a bare name none matches is skipped.
SGLANG_PATTERNS = (
    r"re1:((?:model|lm_head)\..*)>\1",  # as stored
    r"re1:layers\.(\d+)\.attention_norm\.weight>model.layers.\1.input_layernorm.weight",
    *(
        rf"re1:layers\.(\d+)\.attention\.{w}\.(\w+)>model.layers.\1.self_attn.{p}_proj.\2"
        for w, p in (("wq", "q"), ("wk", "k"), ("wv", "v"), ("wo", "o"))
    ),
    r"re1:layers\.(\d+)\.ffn_norm\.weight>model.layers.\1.post_attention_layernorm.weight",
    *(
        rf"re1:layers\.(\d+)\.feed_forward\.{w}\.(\w+)>model.layers.\1.mlp.{p}_proj.\2"
        for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))
    ),
    r"re1:norm\.weight>model.norm.weight",
    r"re1:eagle_linear\.weight>model.fc.weight",
)
S_MAPPER = (
    f'{S_MISTRAL}:143-162 `remapping = {{` `r"eagle_linear\\.weight": r"model.fc.weight",`; '
    f'{S_MISTRAL}:188-202 `if name.startswith("model.") or name.startswith("lm_head."):` '
    "`match = re.fullmatch(k, name)` `Unrecognized weight: {name}. Skipping.`"
)
S_LOAD = (
    f"{S_MISTRAL}:181-186 `return LlamaForCausalLM.load_weights(` (no model. prepended, "
    f"lm_head names loaded); {S_LLAMA}:772-779 `if name in params_dict.keys():`"
)
S_HEAD = (
    f"{S_MISTRAL}:165-179 `super().__init__(config=config, quant_config=quant_config, "
    f"prefix=prefix)` (LlamaForCausalLMEagle's lm_head); {S_WORKER}:371-378 "
    "`self.draft_runner.model.set_embed_and_head(embed, head)` (the target's embedding and "
    "head replace the drafter's)"
)
S_D2T = f"{S_MAPPER} (d2t matches none: skipped)"
SGLANG_MISTRAL_CITES = {
    **_repointed(SGLANG_EAGLE.cites, "python/sglang/srt/models/llama_eagle.py", S_MISTRAL),
    "architectures": f"{S_MISTRAL}:210 `EntryClass = [MistralForCausalLMEagle]`; "
    "python/sglang/srt/models/registry.py:93-114 `def resolve_model_cls`",
    "reduced_when": f'{S_LLAMA_EAGLE}:131-141 `getattr(config, "hot_vocab_size", '
    "config.vocab_size)` (draft_vocab_size is never read: the target's head drafts every id)",
    "missing_d2t": S_D2T,
    "d2t_param": S_D2T,
    "missing_lm_head": S_HEAD,
    "lm_head_from_target": S_HEAD,
    "builds_lm_head": S_HEAD,
    "tied_head": S_HEAD,
    "prefixed_names": S_MAPPER,
    "strict_names": S_LOAD,
    "stray_names": f"{S_MAPPER}; {S_LLAMA}:772-779 `Parameter {{name}} not found in params_dict`",
    "missing_tensors": f"{S_LOAD} (what is not given is not loaded, and nothing checks)",
    "name_maps": f"{S_MAPPER}; {S_LLAMA}:709-717 `stacked_params_mapping = [`",
    "fc_bias": f"{S_MISTRAL}:93-100 `self.fc = RowParallelLinear(` `bias=False,`",
    "first_input_norm": f"{S_MISTRAL}:79-90 `LlamaDecoderLayer(` (llama.py's layer, not "
    f"llama_eagle's: layer 0 keeps it); {S_LLAMA}:366 `self.input_layernorm = RMSNorm(`",
    "qkv_bias_architectures": f"{S_MISTRAL}:79-90 `LlamaDecoderLayer(` (Llama's attention: "
    "no Qwen2 q/k/v bias)",
    "extra_modules": f"{S_MISTRAL}:101 `self.norm = RMSNorm(config.hidden_size`",
}
SGLANG_EAGLE_MISTRAL = SGLANG_EAGLE.derive(
    name="sglang-eagle-mistral",
    release="SGLang 0.5.23",
    releases="==0.5.23",
    variant="eagle-mistral",
    sources=(S_MISTRAL, S_LLAMA, S_WORKER),
    cites={**SGLANG_MISTRAL_CITES, "quantised_fc": SGLANG_MISTRAL_FC},
    architectures=("MistralForCausalLMEagle",),
    quantised_fc="quantised",
    prefixed_names="model_root",
    name_maps=(*FUSED_MAPS, *SGLANG_PATTERNS),
    first_input_norm=True,
    fc_bias=False,
    qkv_bias_architectures=(),
    extra_modules=("norm",),
)


# vLLM's Mistral Large 3 EAGLE (mistral_large_3_eagle.py): DeepseekV2Model's layers (MLA
# attention, MoE from first_k_dense_replace on) under fc and a final norm, loaded through
# MistralLarge3ForCausalLM's WeightsMapper (anchored patterns, applied in turn; an unmatched
# name passes as stored: a bare Hugging Face name outside model. names no module) and
# DeepseekV2Model.load_weights (params_dict[name]: any other name a KeyError)
V_LARGE3 = "vllm/model_executor/models/mistral_large_3_eagle.py"
V_LARGE3_LM = "vllm/model_executor/models/mistral_large_3.py"
V_DS2 = "vllm/model_executor/models/deepseek_v2.py"
_L = r"re:\Alayers\.(\d+)\."
_M = r"model.layers.\1."
VLLM_LARGE3_PATTERNS = (
    rf"{_L}attention_norm\.weight\Z>{_M}input_layernorm.weight",
    *(
        rf"{_L}attention\.{w}\.(\w+)\Z>{_M}self_attn.{m}.\2"
        for w, m in (
            ("wq_a", "q_a_proj"),
            ("wq_b", "q_b_proj"),
            ("wkv_a_with_mqa", "kv_a_proj_with_mqa"),
            ("wkv_b", "kv_b_proj"),
            ("wo", "o_proj"),
        )
    ),
    rf"{_L}attention\.q_a_norm\.weight\Z>{_M}self_attn.q_a_layernorm.weight",
    rf"{_L}attention\.kv_a_norm\.weight\Z>{_M}self_attn.kv_a_layernorm.weight",
    rf"{_L}ffn_norm\.weight\Z>{_M}post_attention_layernorm.weight",
    *(
        rf"{_L}{src}\.{w}\.(\w+)\Z>{_M}{dst}.{p}_proj.\2"
        for src, dst in (("feed_forward", "mlp"), ("shared_experts", "mlp.shared_experts"))
        for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))
    ),
    rf"{_L}gate\.weight\Z>{_M}mlp.gate.weight",
    *(
        rf"{_L}experts\.(\d+)\.{w}\.(\w+)\Z>{_M}mlp.experts.\2.{p}_proj.\3"
        for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))
    ),
    r"re:\Anorm\.weight\Z>model.norm.weight",
    r"re:\Atok_embeddings\.weight\Z>model.embed_tokens.weight",
    r"re:\Aoutput\.weight\Z>lm_head.weight",
    r"re:\Aeagle_linear\.weight\Z>model.fc.weight",
)
V_LARGE3_MAPPER = (
    f"{V_LARGE3_LM}:13-17 `WeightsMapper applies all matching patterns sequentially`; "
    f"{V_LARGE3_LM}:17-84 `hf_to_vllm_mapper = WeightsMapper(` "
    '`): r"model.layers.\\1.mlp.experts.\\2.gate_proj.\\3",` (no router_biases); '
    f'{V_LARGE3}:132-138 `r"model.fc.weight",`; {V_LARGE3_LM}:90-92 '
    "`return loader.load_weights(weights, mapper=self.hf_to_vllm_mapper)`"
)
V_LARGE3_KEYERROR = (
    f"{V_DS2}:1816-1826 `param = params_dict[name]` (a name it has no parameter for: a "
    f"KeyError); {NO_PARAM}"
)
V_LARGE3_HEAD = (
    f"{V_DS2}:1914-1926 `self.lm_head = ParallelLMHead(` (output.weight loads into it); "
    f"{V_SHARE}:107-119 `_should_share(` (then the target's lm_head replaces it)"
)
VLLM_LARGE3_CITES = {
    **_repointed(VLLM_EAGLE_MISTRAL.cites, V_MISTRAL, V_LARGE3),
    "architectures": 'vllm/model_executor/models/registry.py:708-711 `"EagleMistralLarge3ForCausalLM"`; '
    "vllm/config/speculative.py:1070-1071 "
    '`if initial_architecture == "MistralLarge3ForCausalLM":` (a Mistral Large 3 draft is '
    "renamed to it)",
    "reduced_when": f"{V_DS2}:1926 `self.logits_processor = LogitsProcessor(config.vocab_size)` "
    "(no draft_vocab_size is read: no reduced vocab)",
    "reduced_against": f"{V_DS2}:1926 `LogitsProcessor(config.vocab_size)` (the logits are the "
    "target head's)",
    "missing_d2t": f"{V_LARGE3_MAPPER} (d2t matches none: it names no module); {NO_PARAM}",
    "d2t_param": f"{V_LARGE3_MAPPER} (d2t matches none: it names no module); {NO_PARAM}",
    "missing_lm_head": V_LARGE3_HEAD,
    "lm_head_from_target": V_LARGE3_HEAD,
    "builds_lm_head": V_LARGE3_HEAD,
    "tied_head": f"{V_DS2}:1914-1926 `self.lm_head = ParallelLMHead(` (tie_word_embeddings is "
    "never read)",
    "own_embed_kept": f"{V_LARGE3}:186-192 `# Pretend we've loaded the embedding and lm_head "
    "weights` (no process_eagle_weight: has_own_embed_tokens stays False); "
    f"{V_SHARE}:24-25 `if not getattr(eagle, flag, False):` (the target's embedding replaces "
    "a shipped one)",
    "prefixed_names": V_LARGE3_MAPPER,
    "strict_names": V_LARGE3_KEYERROR,
    "stray_names": V_LARGE3_KEYERROR,
    "missing_tensors": f"{V_LARGE3}:186-192 `return super().load_weights(weights) | {{`; "
    f"{V_DS2}:1826 `loaded_params.add(name)`; {V_EXEMPT} (the experts a FusedMoE, the router "
    "a GateLinear with its e_score_correction_bias)",
    "checked_after_load": f"{V_TRACKED}: {V_LARGE3}:96 `self.norm = RMSNorm(`; {V_DS2}:1345 "
    f"`self.input_layernorm = RMSNorm(`; {V_DS2}:1082 `self.q_a_layernorm = RMSNorm(`; "
    f"{V_DS2}:1098 `self.kv_a_layernorm = RMSNorm(`",
    "unexpected_ignored_suffixes": f"{V_DS2}:1804-1806 "
    '`if name.endswith(".bias") and name not in params_dict:`; '
    f'{V_UTILS}:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
    "name_maps": f"{V_LARGE3_MAPPER}; {V_DS2}:1595-1603 `stacked_params_mapping` "
    '`("fused_qkv_a_proj", "q_a_proj", 0),` (gate/up stored fused)',
    "fc_bias": f"{V_LARGE3}:87-95 `self.fc = RowParallelLinear(` `bias=False,`; {V_DS2}:1804-1806 "
    '`if name.endswith(".bias") and name not in params_dict:`',
    "first_input_norm": f"{V_DS2}:1345 `self.input_layernorm = RMSNorm(` (every layer)",
    "extra_modules": f"{V_LARGE3}:96 `self.norm = RMSNorm(config.hidden_size`",
    "decoder_layer": f"{V_LARGE3}:74-83 `DeepseekV2DecoderLayer(`; {V_DS2}:1293-1297 "
    "`is_moe_layer = (` `layer_idx >= config.first_k_dense_replace`; {V_LARGE3}:57-58 "
    "`config.first_k_dense_replace += start_layer_id` (the layer index is shifted by as much); "
    f"{V_DS2}:1051-1060 `if self.q_lora_rank is not None:` `self.kv_a_proj_with_mqa = "
    f"ReplicatedLinear(`; {V_DS2}:321-332 `self.gate = GateLinear(` "
    '`if getattr(config, "topk_method", None) == "noaux_tc":`; '
    f"{V_DS2}:359-372 `self.shared_experts = DeepseekV2MLP(`; {V_DS2}:1627-1640 "
    "`num_experts=self.config.n_routed_experts`",
}
VLLM_EAGLE_MISTRAL_LARGE3 = VLLM_EAGLE_MISTRAL.derive(
    name="vllm-eagle-mistral-large3",
    release="vLLM 0.33.0",
    releases=">=0.33.0,<=0.33.0",
    variant="eagle-mistral-large3",
    sources=(V_LARGE3, V_LARGE3_LM, V_DS2, V_SHARE, V_UTILS),
    cites=VLLM_LARGE3_CITES,
    architectures=("EagleMistralLarge3ForCausalLM",),
    name_maps=(*FUSED_MAPS, *VLLM_LARGE3_PATTERNS),
    lm_head_from_target="always",
    builds_lm_head=True,
    extra_modules=("norm",),
    decoder_layer="deepseek_v2_moe",
)


# SGLang's Mistral Large 3 EAGLE (mistral_large_3_eagle.py): DeepseekV2Model's layers under fc
# and a final norm, loaded through MistralLarge3ForCausalLM's remapping (the first pattern
# that matches the whole name renames it; any other name, model.* included, is skipped) and
# DeepseekV2ForCausalLM's weight loader (a name it has no parameter for skipped with a warning)
S_LARGE3 = "python/sglang/srt/models/mistral_large_3_eagle.py"
S_LARGE3_LM = "python/sglang/srt/models/mistral_large_3.py"
S_DS2 = "python/sglang/srt/models/deepseek_v2.py"
S_DS2_LOAD = "python/sglang/srt/models/deepseek_common/deepseek_weight_loader.py"
_S = r"re1:layers\.(\d+)\."
SGLANG_LARGE3_PATTERNS = (
    rf"{_S}attention_norm\.weight>{_M}input_layernorm.weight",
    *(
        rf"{_S}attention\.{w}\.(\w+)>{_M}self_attn.{m}.\2"
        for w, m in (
            ("wq", "q_proj"),
            ("wq_a", "q_a_proj"),
            ("wq_b", "q_b_proj"),
            ("wkv_a_with_mqa", "kv_a_proj_with_mqa"),
            ("wkv_b", "kv_b_proj"),
            ("wo", "o_proj"),
        )
    ),
    rf"{_S}attention\.q_a_norm\.weight>{_M}self_attn.q_a_layernorm.weight",
    rf"{_S}attention\.kv_a_norm\.weight>{_M}self_attn.kv_a_layernorm.weight",
    rf"{_S}ffn_norm\.weight>{_M}post_attention_layernorm.weight",
    *(
        rf"{_S}{src}\.{w}\.(\w+)>{_M}{dst}.{p}_proj.\2"
        for src, dst in (("feed_forward", "mlp"), ("shared_experts", "mlp.shared_experts"))
        for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))
    ),
    rf"{_S}gate\.weight>{_M}mlp.gate.weight",
    *(
        rf"{_S}experts\.(\d+)\.{w}\.(\w+)>{_M}mlp.experts.\2.{p}_proj.\3"
        for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))
    ),
    rf"{_S}router_biases>{_M}mlp.gate.e_score_correction_bias",
    r"re1:norm\.weight>model.norm.weight",
    r"re1:tok_embeddings\.weight>model.embed_tokens.weight",
    r"re1:output\.weight>lm_head.weight",
    r"re1:eagle_linear\.weight>model.fc.weight",
)
S_LARGE3_MAPPER = (
    f"{S_LARGE3_LM}:14-43 `remapping = {{` "
    '`r"model.layers.\\1.mlp.gate.e_score_correction_bias",`; '
    f"{S_LARGE3}:60-64 `remapping = MistralLarge3ForCausalLM.remapping | {{`; "
    f"{S_LARGE3_LM}:53-63 `match = re.fullmatch(k, name)` `Unrecognized weight: {{name}}. "
    "Skipping.` (model.* names too: no pattern passes them)"
)
S_LARGE3_SKIP = f'{S_DS2_LOAD}:528-532 `logger.warning(f"{{name}} not found in params_dict.")`'
S_LARGE3_HEAD = (
    f"{S_DS2}:3287-3297 `self.lm_head = ParallelLMHead(` (output.weight loads into it); "
    f"{S_DS2}:3442-3447 `def set_embed_and_head(self, embed, head):`; {S_WORKER}:371-378 "
    "`self.draft_runner.model.set_embed_and_head(embed, head)` (the target's replace them)"
)
SGLANG_LARGE3_CITES = {
    **_repointed(SGLANG_EAGLE_MISTRAL.cites, S_MISTRAL, S_LARGE3),
    "architectures": f"{S_LARGE3}:83 `EntryClass = [MistralLarge3ForCausalLMEagle]`; "
    "python/sglang/srt/models/registry.py:93-114 `def resolve_model_cls`",
    "reduced_when": f"{S_DS2}:3287-3297 `config.vocab_size,` (draft_vocab_size is never read)",
    "missing_d2t": f"{S_LARGE3_MAPPER} (d2t matches none: skipped)",
    "d2t_param": f"{S_LARGE3_MAPPER} (d2t matches none: skipped)",
    "missing_lm_head": S_LARGE3_HEAD,
    "lm_head_from_target": S_LARGE3_HEAD,
    "builds_lm_head": S_LARGE3_HEAD,
    "tied_head": S_LARGE3_HEAD,
    "prefixed_names": S_LARGE3_MAPPER,
    "strict_names": S_LARGE3_SKIP,
    "stray_names": f"{S_LARGE3_MAPPER}; {S_LARGE3_SKIP}",
    "missing_tensors": f"{S_DS2}:3436-3437 `self.do_load_weights(weights, is_nextn)`; "
    f"{S_LARGE3_SKIP} (what is not given is not loaded, and nothing checks)",
    "name_maps": f"{S_LARGE3_MAPPER}; {S_DS2_LOAD}:257-261 `stacked_params_mapping = [`",
    "fc_bias": f"{S_LARGE3}:30-37 `self.fc = RowParallelLinear(` `bias=False,`",
    "first_input_norm": f"{S_DS2}:2678 `self.input_layernorm = RMSNorm(` (every layer)",
    "extra_modules": f"{S_DS2}:3005 `self.norm = RMSNorm(config.hidden_size`",
    "qkv_bias_architectures": f"{S_DS2}:2010 `class DeepseekV2AttentionMLA(` (no q/k/v bias)",
    "decoder_layer": f"{S_LARGE3}:17-27 `class MistralLarge3EagleModel(DeepseekV2Model):`; "
    f"{S_DS2}:2785-2792 `and layer_id >= config.first_k_dense_replace` (no shift); "
    f"{S_DS2}:2068-2098 `self.fused_qkv_a_proj_with_mqa = ReplicatedLinear(` "
    f'`self.kv_a_proj_with_mqa = ReplicatedLinear(`; {S_DS2}:519 `if config.topk_method == "noaux_tc"'
    f"`; {S_DS2}:863-888 `config.n_shared_experts is not None` `self.shared_experts = "
    f"DeepseekV2MLP(`; {S_DS2_LOAD}:264-270 "
    "`num_experts=self.config.n_routed_experts + self.num_fused_shared_experts,`",
}
SGLANG_EAGLE_MISTRAL_LARGE3 = SGLANG_EAGLE_MISTRAL.derive(
    name="sglang-eagle-mistral-large3",
    release="SGLang 0.5.23",
    releases="==0.5.23",
    variant="eagle-mistral-large3",
    sources=(S_LARGE3, S_LARGE3_LM, S_DS2, S_DS2_LOAD, S_WORKER),
    cites={
        **SGLANG_LARGE3_CITES,
        "quantised_fc": f"{S_LARGE3}:30-35 `self.fc = RowParallelLinear(` `quant_config=quant_config,`",
    },
    architectures=("MistralLarge3ForCausalLMEagle",),
    name_maps=(*FUSED_MAPS, *SGLANG_LARGE3_PATTERNS),
    decoder_layer="deepseek_v2_moe",
)

PROFILES = (
    VLLM_EAGLE_MISTRAL,
    SGLANG_EAGLE_MISTRAL,
    VLLM_EAGLE_MISTRAL_LARGE3,
    SGLANG_EAGLE_MISTRAL_LARGE3,
)
