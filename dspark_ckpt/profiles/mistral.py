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
  ``embed_tokens``, ``d2t``) names no module of the top-level model and is refused, and an
  unquantised drafter missing a parameter fails the load (``missing_tensors`` "tracked": its
  ``load_weights`` returns the names it loaded).
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
    "own_embed_kept": f"{V_MISTRAL}:83-88 `self.embed_tokens = VocabParallelEmbedding(`; "
    f'{V_SHARE}:74-77 `_should_share(draft_model, "has_own_embed_tokens"` (a shipped copy '
    "that differs from the target's is kept)",
    "prefixed_names": V_MAPPER,
    "strict_names": f"{V_MISTRAL_LM}:285-290 `loader = AutoWeightsLoader(self)`; {NO_PARAM}",
    "stray_names": f"{V_MISTRAL_LM}:285-290 `loader = AutoWeightsLoader(self)`; {NO_PARAM}",
    "missing_tensors": f"{V_LOAD}; {V_DEFAULT_LOADER}:510-523 "
    "`model_config.quantization is None and loaded_weights is not None`; "
    f"{V_DEFAULT_LOADER}:567-572 `Following weights were not initialized from` (a fused "
    "qkv_proj / gate_up_proj counts as loaded once one of its parts is)",
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
    missing_tensors="tracked",
    name_maps=(*FUSED_MAPS, *VLLM_PATTERNS),
    first_input_norm=True,
    extra_modules=(
        "norm",
        "layers.*.ada_rms_norm_t_cond.0?ada_rms_norm_t_cond",
        "layers.*.ada_rms_norm_t_cond.2?ada_rms_norm_t_cond",
    ),
)


# SGLang: MistralForCausalLMEagle.remapping, each fullmatched in order (the first wins);
# model.* and lm_head.* pass as stored, a bare name none matches is skipped. As patterns: its
# renames (anchored, each result under model.), then the skip of any other bare name.
SGLANG_PATTERNS = (
    r"re:\Alayers\.(\d+)\.attention_norm\.weight\Z>model.layers.\1.input_layernorm.weight",
    *(
        rf"re:\Alayers\.(\d+)\.attention\.{w}\.(\w+)\Z>model.layers.\1.self_attn.{p}_proj.\2"
        for w, p in (("wq", "q"), ("wk", "k"), ("wv", "v"), ("wo", "o"))
    ),
    r"re:\Alayers\.(\d+)\.ffn_norm\.weight\Z>model.layers.\1.post_attention_layernorm.weight",
    *(
        rf"re:\Alayers\.(\d+)\.feed_forward\.{w}\.(\w+)\Z>model.layers.\1.mlp.{p}_proj.\2"
        for w, p in (("w1", "gate"), ("w2", "down"), ("w3", "up"))
    ),
    r"re:\Anorm\.weight\Z>model.norm.weight",
    r"re:\Aeagle_linear\.weight\Z>model.fc.weight",
    r"re:\A(?!model\.|lm_head\.).*\Z>",
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
    cites=SGLANG_MISTRAL_CITES,
    architectures=("MistralForCausalLMEagle",),
    prefixed_names="model_root",
    name_maps=(*FUSED_MAPS, *SGLANG_PATTERNS),
    first_input_norm=True,
    fc_bias=False,
    qkv_bias_architectures=(),
    extra_modules=("norm",),
)

PROFILES = (VLLM_EAGLE_MISTRAL, SGLANG_EAGLE_MISTRAL)
