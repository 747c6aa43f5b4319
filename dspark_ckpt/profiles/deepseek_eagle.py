"""vLLM 0.33.0's classic EAGLE over DeepSeek-V3 layers: ``EagleDeepSeekMTPModel``
(deepseek_eagle.py ``EagleDeepseekV3ForCausalLM``), a ``Profile.derive`` of ``vllm-eagle``
(``eagle1.py``) with the fields its model file changes, each cited.

A DeepSeek-V3 config served with method "eagle" is renamed DeepSeekMTPModel
(config/speculative.py) and then EagleDeepSeekMTPModel (transformers_utils/configs/eagle.py).
The model: an embedding, ``enorm`` and ``hnorm`` over [embedding, the target's hidden state],
``fc`` (a plain Linear without a bias), DeepSeek-V2 decoder layers and a final ``norm``, and an
lm_head of vocab_size rows. Draft layer i is built with the prefix ``layers.<the target's
num_hidden_layers + i>``, and that number decides whether its MLP is MoE
(``first_k_dense_replace``, ``moe_layer_freq``), while its weights keep the ModuleList's
``layers.i`` (``decoder_layer`` "deepseek_v2_after_target"; without the target's config which
layers are MoE is not checked). Loading: ``model.`` is prepended to every name but lm_head's, then
DeepseekV2Model.load_weights looks each up in its params_dict (a name it has no parameter for is
a KeyError; an unexpected ``.bias`` is skipped); it returns nothing, so what is not stored stays
uninitialised with no error. A shipped lm_head / embedding is the drafter's own unless equal to
the target's.
"""

from __future__ import annotations

from dspark_ckpt.profiles.eagle1 import V_EAGLE, V_SHARE, V_UTILS, VLLM_EAGLE

DS = "vllm/model_executor/models/deepseek_eagle.py"
DS2 = "vllm/model_executor/models/deepseek_v2.py"
READ = ">=0.33.0,<=0.33.0"

KEYERROR = f"{DS}:185 `param = params_dict[name]` (a name it has no parameter for: a KeyError)"
LOAD = f'{DS}:248-257 `name = "model." + name` `loader.load_weights(map(transform, weights))`'
HEAD = f"{DS}:209-214 `self.lm_head = ParallelLMHead(` (vocab_size rows, loaded when stored)"
SHARE = (
    f"{V_UTILS}:1195-1196 `model.has_own_lm_head = True` (only where an lm_head name is "
    f"loaded); {V_SHARE}:18-27 `if not getattr(eagle, flag, False):` (else the target's head "
    "replaces the drafter's)"
)
BIAS = f'{DS}:175-177 `if name.endswith(".bias") and name not in params_dict:`'


def _repointed(base: dict[str, str], old: str, new: str) -> dict[str, str]:
    """The "not read by this loader" cites of ``base`` (its model file ``old``) for ``new``."""
    return {k: new + v[len(old) :] for k, v in base.items() if v.startswith(old + " (not read")}


CITES = {
    **_repointed(VLLM_EAGLE.cites, V_EAGLE, DS),
    "architectures": 'vllm/model_executor/models/registry.py:714 `"EagleDeepSeekMTPModel"`; '
    'vllm/config/speculative.py:749-763 `hf_config.model_type = "deepseek_mtp"` '
    '`"DeepseekV32MTPModel" if use_v32_mtp else "DeepSeekMTPModel"`; '
    'vllm/transformers_utils/configs/eagle.py:46-53 `f"Eagle{arch}"` (a DeepSeek-V3 draft '
    "served with method eagle is renamed EagleDeepSeekMTPModel)",
    "reduced_when": f"{DS}:216-219 `self.config.vocab_size, scale=logit_scale` (no "
    "draft_vocab_size is read: no reduced vocab)",
    "reduced_against": f"{DS}:216-219 `self.config.vocab_size, scale=logit_scale`",
    "missing_d2t": f"{LOAD} (d2t becomes model.d2t); {KEYERROR}",
    "d2t_param": f"{LOAD}; {KEYERROR}",
    "builds_lm_head": HEAD,
    "missing_lm_head": SHARE,
    "lm_head_from_target": f"{HEAD}; {V_SHARE}:18-27 `if not getattr(eagle, flag, False):` "
    "(a shipped head is kept unless it equals the target's)",
    "tied_head": f"{HEAD} (tie_word_embeddings is never read)",
    "own_embed_kept": f"{DS}:47-52 `self.embed_tokens = VocabParallelEmbedding(`; "
    f'{V_SHARE}:74-77 `_should_share(draft_model, "has_own_embed_tokens"` (a shipped copy '
    "that differs from the target's is kept)",
    "prefixed_names": f"{LOAD} (a stored model. prefix becomes model.model.); {KEYERROR}",
    "strict_names": f"{LOAD}; {KEYERROR}",
    "stray_names": f"{LOAD}; {KEYERROR}",
    "missing_tensors": f"{LOAD} (returns no set of loaded names: nothing checks what was filled)",
    "unexpected_ignored_suffixes": BIAS,
    "name_maps": f"{DS}:125-137 `if weight_name not in name:` `name_mapped = "
    "name.replace(weight_name, param_name)` (q/k/v and gate/up are loaded from their parts: a "
    'stored gate_up_proj meets "up_proj" and becomes gate_gate_up_proj, no parameter)',
    "fc_bias": f"{DS}:65-69 `bias=False,` (a plain Linear: a stored fc.bias is skipped); {BIAS}",
    "first_input_norm": f"{DS2}:1346 `self.input_layernorm = RMSNorm(` (every layer's)",
    "extra_modules": f"{DS}:71-73 `self.enorm = RMSNorm(` `self.hnorm = RMSNorm(` "
    "`self.norm = RMSNorm(`",
    "decoder_layer": f"{DS}:54-61 `DeepseekV2DecoderLayer(` "
    '`prefix=maybe_prefix(prefix, f"layers.{i + start_layer_id}"),` (an nn.ModuleList: the '
    "weights are layers.i); "
    f"{DS}:200-207 `start_layer_id=target_layer_num,`; {DS2}:1272 "
    '`layer_idx = int(prefix.split(sep=".")[-1])`; '
    f"{DS2}:1293-1297 `layer_idx >= config.first_k_dense_replace`; "
    f"{DS2}:1051-1060 `if self.q_lora_rank is not None:`; {DS2}:321-332 "
    '`if getattr(config, "topk_method", None) == "noaux_tc":`; '
    f"{DS2}:359-372 `self.shared_experts = DeepseekV2MLP(`; {DS}:111-117 "
    "`num_experts=self.config.n_routed_experts,` (each expert loaded into the fused "
    f"parameter: {DS}:158-172 `expert_id=expert_id,`)",
}

VLLM_EAGLE_DEEPSEEK = VLLM_EAGLE.derive(
    name="vllm-eagle-deepseek",
    release="vLLM 0.33.0",
    releases=READ,
    variant="eagle-deepseek",
    sources=(DS, DS2, V_SHARE, V_UTILS),
    cites=CITES,
    architectures=("EagleDeepSeekMTPModel",),
    builds_lm_head=True,
    lm_head_from_target="never",
    name_maps=(),
    first_input_norm=True,
    extra_modules=("enorm", "hnorm", "norm"),
    decoder_layer="deepseek_v2_after_target",
)

PROFILES = (VLLM_EAGLE_DEEPSEEK,)
