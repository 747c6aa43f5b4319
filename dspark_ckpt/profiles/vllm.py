"""vLLM's profiles: one ``Profile`` entry per release and drafter family.

vLLM 0.33.0 is the wheel read (git 4ba787ec9). Each loader's first release read is a
``Profile``; each later release is ``Profile.derive`` of the one before it: the fields that
changed, each with the ``file:line`` it was read from (CONTRIBUTING.md walks through one).
The newest release of a family takes its short name (``vllm``, ``vllm-dflash``,
``vllm-eagle3``); the older ones keep theirs (``vllm-legacy``, ...).
"""

from __future__ import annotations

from dspark_ckpt.profiles.families import DFLASH, DSPARK, EAGLE3
from dspark_ckpt.profiles.mla import VLLM_MLA_ARCHITECTURES, VLLM_MLA_CITE
from dspark_ckpt.profiles.qkv import VLLM_FIRST_QKV_EAGLE3
from dspark_ckpt.profiles.quant_fc import vllm_fc_cites
from dspark_ckpt.profiles.renames import EAGLE_CONFIG, RENAME_CITES, TOPK_CITE
from dspark_ckpt.profiles.schema import LT, NE, Profile
from dspark_ckpt.profiles.vllm_hidden import DFLASH_HIDDEN, EAGLE3_HIDDEN, VLLM_DFLASH_AUX
from dspark_ckpt.profiles.vllm_registry import (
    REGISTRY_CITES,
    VLLM_DFLASH_ARCHITECTURES,
    VLLM_EAGLE3_ARCHITECTURES,
    VLLM_EAGLE3_CLASSES,
)

VLLM = "vLLM 0.33.0"
# the releases the 0.33.0 entries cover: their rules read the same in the 0.30.0, 0.31.0 and
# 0.32.0 wheels (compared file by file); 0.29.0 is the legacy entries'
CURRENT = ">=0.30.0,<=0.33.0"
M = "vllm/model_executor/models/"
DSPARK_PY = M + "qwen3_dspark.py"
DFLASH_PY = M + "qwen3_dflash.py"
EAGLE3_PY = M + "llama_eagle3.py"
SPEC_UTILS = "vllm/v1/worker/gpu/spec_decode/utils.py"
EAGLE_UTILS = "vllm/v1/worker/gpu/spec_decode/eagle/utils.py"
DSPARK_UTILS = "vllm/v1/worker/gpu/spec_decode/dspark/utils.py"
AUX_UTILS = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
SPEC_CONFIG = "vllm/config/speculative.py"
SPECULATORS = "vllm/transformers_utils/configs/speculators/algos.py"
LOGITS = "vllm/model_executor/layers/logits_processor.py"
NO_PARAM = (
    M + "utils.py:443 `There is no module or parameter named` (an unknown name fails the load)"
)
DFLASH_UTILS = "vllm/v1/worker/gpu/spec_decode/dflash/utils.py"
V1_PROPOSER = "vllm/v1/spec_decode/llm_base_proposer.py"
# the mask token: Model Runner V2's DFlash speculator (DSpark's is a subclass) reads it
MASK_KEYS = (
    f"{SPEC_UTILS}:92-109 `def get_parallel_drafting_token_id`; "
    "vllm/v1/worker/gpu/spec_decode/dflash/speculator.py:67-69 "
    "`get_parallel_drafting_token_id(`"
)
MASK_MISSING = f"{SPEC_UTILS}:110-113 `Model config must specify`"
VLLM_WEIGHT_FILES = (
    "vllm/model_executor/model_loader/default_loader.py:229-230 "
    "`glob.glob(os.path.join(hf_folder, pattern))`; "
    "vllm/model_executor/model_loader/weight_utils.py:596-597 "
    "`if not os.path.isfile(index_file_name):` (no index: every file is kept)"
)
NO_PARAM_ANCHORED = f"{M}utils.py:443 `There is no module or parameter named`"
VLLM_MASK = ("dflash_config.mask_token_id", "mask_token_id", "dspark_noise_token_id")
VLLM_MASK += ("pard_token", "ptd_token_id")
EAGLE3_AUX = ("num_aux_hidden_states", "eagle_config.eagle_aux_hidden_state_layer_ids")
# the fields issue 18 added for SGLang's loaders, at their defaults here (the rule is off)
NOT_MODELLED = {
    "architectures": f"{M}registry.py (its registry: not modelled here, the rule is off)",
    "missing_draft_vocab_size": f'{EAGLE3_PY}:314 `getattr(self.config, "draft_vocab_size", '
    f'None) is None`; {DSPARK_PY}:206-207 `getattr(config, "draft_vocab_size", None)` (a '
    "missing key means vocab_size)",
    "missing_tensors": "vllm/model_executor/model_loader/default_loader.py (not modelled "
    "here: the rule is off)",
    "markov_head_type_keys": f"{DSPARK_PY}:206-218 `self.markov_head = DSparkMarkovHead(` (markov_head_type not read: the rule is off)",
    "markov_head_types": f"{DSPARK_PY}:206-218 `self.markov_head = DSparkMarkovHead(` (markov_head_type not read: the rule is off)",
    "markov_bias_width": f"{DSPARK_PY} (not modelled here: the rule is off)",
    "mask_token_null_stops": f"{SPEC_UTILS} (not modelled here: the rule is off)",
    "mask_token_bound": f"{SPEC_CONFIG}:356-377 `draft input vocabulary` (the range is [0, V); "
    "checked at config time for Qwen3-Omni targets only)",
}
EAGLE3_NORM = ("eagle_config.norm_before_fc", "norm_before_fc")


def _vllm_dspark_cites(param_line: str, rules_line: str) -> dict[str, str]:
    return {
        "reduced_when": f"{DSPARK_PY}:{param_line} `draft_vocab_size < self.target_vocab_size`",
        "reduced_against": f"{DSPARK_PY}:258 `self.target_vocab_size = "
        "vllm_config.model_config.get_vocab_size()`",
        "missing_d2t": f"{DSPARK_PY}:{rules_line} "
        "`uses_reduced_vocab and not includes_draft_id_mapping`",
        "d2t_param": f"{DSPARK_PY}:{param_line},322-323 `self.draft_id_to_target_id = "
        'nn.Parameter(` `name.replace("d2t", "draft_id_to_target_id")`; ' + NO_PARAM,
        "missing_lm_head": f"{DSPARK_PY}:{rules_line} `uses_reduced_vocab and not "
        f"includes_lm_head`; {DSPARK_UTILS}:142-149 `draft_output_vocab_size == "
        "target_vocab_size` (shared only if Vd == Vt)",
        "lm_head_from_target": f"{DSPARK_UTILS}:142-149 `draft_output_vocab_size == "
        "target_vocab_size` (a shipped head is replaced only by an equal one)",
        "requires_embed_when_expanded": f"{DSPARK_PY}:343-347 `uses_expanded_input_vocab "
        "and not includes_embed_tokens`",
        "own_embed_kept": f"{DSPARK_UTILS}:133-134 `maybe_share_target_embed`; "
        f"{EAGLE_UTILS}:18-34 `def _should_share` (a shipped copy of other shape or "
        "values is kept)",
        "omni_vocab_check": f"{SPEC_CONFIG}:343-355 "
        "`0 < draft_output_vocab_size <= target_vocab_size`",
        "markov_w2_rows": f"{DSPARK_PY}:71-79,206-214 `self.markov_w2 = ParallelLMHead(` "
        '`getattr(config, "draft_vocab_size", None) or config.vocab_size`',
        "draft_vocab_above_vocab": f"{DSPARK_PY}:83-85 `return self.markov_w1(token_ids)` "
        "(markov_w1 [V] embeds the sampled draft id); "
        "vllm/v1/worker/gpu/spec_decode/dspark/speculator.py:189 "
        "`markov_embed = self.model.markov_embed(prev)`",
        "vocab_is_target_width": f"{DSPARK_PY}:250-257 `self.config.draft_vocab_size, "
        "scale=logit_scale` (own head, logits Vd wide)",
        "mask_token_keys": MASK_KEYS + "; vllm/v1/worker/gpu/spec_decode/dspark/"
        "speculator.py:40 `class DSparkSpeculator(DFlashSpeculator)`",
        "missing_mask_token": MASK_MISSING,
        "top_level_keys": f"{DSPARK_PY}:212,224 `config.markov_rank`",
        "aux_layer_keys": f"{DFLASH_PY}:84-93 `get_eagle3_aux_layers_from_config(spec_config)`; "
        f"{AUX_UTILS}:113-150 `def get_eagle3_aux_layers_from_config`",
        "aux_default": f"{DFLASH_PY}:89 `else config.num_hidden_layers`",
        "fc_input_hidden": f"{DFLASH_PY}:90-92 "
        '`getattr(config, "target_hidden_size", None) or config.hidden_size`',
        "norm_before_fc_keys": f"{DSPARK_PY} (no input_norm)",
        "prefixed_names": f'{DSPARK_PY}:322-326 `name = "model." + name`; {NO_PARAM}',
        "strict_names": f"{DSPARK_PY}:359-371 `loader.load_weights(model_weights.items(), "
        f"mapper=mapper)` (missing names load nothing); {NO_PARAM}",
        "reads_speculators_format": f'{SPECULATORS}:152-209 `@register_speculator("dspark")`',
        "stray_files_loaded": VLLM_WEIGHT_FILES,
        "stray_names": f'{DSPARK_PY}:326 `name = "model." + name`; {NO_PARAM_ANCHORED}',
    }


def _vllm_eagle_cites(model_py: str, param: str, logits: str, load: str) -> dict[str, str]:
    """vLLM's EAGLE-3 and DFlash loaders (the same shape of code)."""
    eagle3 = model_py == EAGLE3_PY
    first_vd = f"{LOGITS}:198 `logits[..., : self.org_vocab_size]` (first Vd rows)"
    # EAGLE-3 loads through eagle/utils.py, DFlash through dflash/utils.py (which also
    # keeps an unloaded head when the config sets has_own_lm_head)
    share = (
        f"{EAGLE_UTILS}:107-119 `_should_share(` (no lm_head -> the target's); {first_vd}"
        if eagle3
        else f"{DFLASH_UTILS}:62-73 `and _should_share(` (no lm_head -> the target's, "
        f"unless the config sets has_own_lm_head); {first_vd}"
    )
    embed = (
        f"{EAGLE_UTILS}:105 `maybe_share_target_embed(eagle_model`"
        if eagle3
        else f"{DFLASH_UTILS}:60 `maybe_share_target_embed(dflash_model`"
    )
    return {
        "reduced_when": f"{model_py}:{param} `draft_vocab_size != target_vocab_size`",
        "reduced_against": f"{model_py}:{param} "
        "`target_vocab_size = vllm_config.model_config.get_vocab_size()`",
        "missing_d2t": f"{model_py}:{load} "
        '`orig_to_new_substr["draft_id_to_target_id"] = None` (parameter left at zeros)',
        "d2t_param": f"{model_py}:{param} `self.draft_id_to_target_id = nn.Parameter(`; "
        + NO_PARAM,
        "missing_lm_head": share,
        "lm_head_from_target": share,
        "requires_embed_when_expanded": f"{embed}; {EAGLE_UTILS}:45-77 "
        "`def maybe_share_target_embed` (no check)",
        "own_embed_kept": f"{EAGLE_UTILS}:18-34,74-77 `def _should_share` "
        '`_should_share(draft_model, "has_own_embed_tokens"`',
        "omni_vocab_check": f"{SPEC_CONFIG}:167 `def _validate_qwen3_omni_dspark` "
        "(Qwen3-Omni DSpark only)",
        "markov_w2_rows": f"{model_py} (no Markov head)",
        "draft_vocab_above_vocab": f"{model_py}:{logits} `logits_new[:, targets] = logits` "
        "(scatter into a V-wide row)",
        "vocab_is_target_width": f"{model_py}:{logits} `self.config.vocab_size`",
        "mask_token_keys": f"{V1_PROPOSER}:129-130,355-379 "
        "`self._init_parallel_drafting_params()` `def _init_parallel_drafting_params` "
        "(only parallel drafting, a P-EAGLE drafter on the V1 runner, reads one)"
        if eagle3
        else MASK_KEYS,
        "missing_mask_token": f"{V1_PROPOSER}:373-379 "
        "`For parallel drafting, the draft model config must have` (P-EAGLE only)"
        if eagle3
        else MASK_MISSING,
        "top_level_keys": f"{model_py} (none)",
        "aux_layer_keys": f'{EAGLE3_PY}:209-221 `"num_aux_hidden_states"` '
        '`eagle_config.get("eagle_aux_hidden_state_layer_ids")`'
        if eagle3
        else f"{DFLASH_PY}:84-93 `get_eagle3_aux_layers_from_config(spec_config)`",
        "aux_default": f"{EAGLE3_PY}:216 `len(layer_ids) if layer_ids else 3`"
        if eagle3
        else f"{DFLASH_PY}:89 `else config.num_hidden_layers`",
        "fc_input_hidden": f"{EAGLE3_PY}:218-221 "
        "`self.fc_input_size = target_hidden_size * self.num_aux_hidden_states`"
        if eagle3
        else f"{DFLASH_PY}:90-92 "
        '`getattr(config, "target_hidden_size", None) or config.hidden_size`',
        "norm_before_fc_keys": f'{EAGLE3_PY}:184-188,223-227 `"norm_before_fc", '
        'getattr(self.config, "norm_before_fc", False)` `if self.norm_before_fc:`'
        if eagle3
        else f"{DFLASH_PY} (no input_norm)",
        "prefixed_names": f'{model_py}:{load} `name = "model." + name`; {NO_PARAM}',
        "strict_names": f"{model_py}:{load} `loader = AutoWeightsLoader(self)` (missing "
        f"names load nothing); {NO_PARAM}",
        "reads_speculators_format": f'{SPECULATORS}:15-50 `@register_speculator("eagle3")`'
        if eagle3
        else f'{SPECULATORS}:90-126 `@register_speculator("dflash")`',
        "stray_files_loaded": VLLM_WEIGHT_FILES,
        "stray_names": f"{model_py}:{_MODEL_PREFIX_LINE[model_py]} "
        f'`name = "model." + name`; {NO_PARAM_ANCHORED}',
    }


# where each of vLLM's EAGLE-3 / DFlash loaders prefixes a checkpoint name with "model."
_MODEL_PREFIX_LINE = {EAGLE3_PY: 444, DFLASH_PY: 867}
# --- issue 18: load- and draft-time behaviours of vLLM 0.33.0 -----------------------
INTERFACES = M + "interfaces.py"
QWEN3_EAGLE3_PY = M + "qwen3_eagle3.py"
DSPARK_SPEC = "vllm/v1/worker/gpu/spec_decode/dspark/speculator.py"
SPEC_BASE = "vllm/transformers_utils/configs/speculators/base.py"
HF_CONFIG = "vllm/transformers_utils/config.py"
DEFAULT_LOADER = "vllm/model_executor/model_loader/default_loader.py"
LINEAR = "vllm/model_executor/layers/linear.py"
REGISTRY = M + "registry.py"
# the mask-token keys vLLM reads with hasattr / `in`: a present null is int(None)
VLLM_MASK_NULL = (
    "dflash_config.mask_token_id",
    "dspark_noise_token_id",
    "pard_token",
    "ptd_token_id",
)
# what the speculators translation does (transformers_utils/configs/speculators/algos.py)
VLLM_SPECULATORS = dict(
    speculators_types=("eagle3", "peagle", "dflash", "dflash2", "dspark"),
    speculators_required=(
        "peagle:mask_token_id",
        "dflash:aux_hidden_state_layer_ids",
        "dflash:mask_token_id",
        "dflash2:aux_hidden_state_layer_ids",
        "dflash2:mask_token_id",
        "dspark:aux_hidden_state_layer_ids",
    ),
    speculators_layer_types=("eagle3:llama", "eagle3:qwen3", "peagle:llama", "peagle:qwen3"),
    speculators_copied=(
        *(
            f"{kind}:{key}"
            for kind in ("eagle3", "peagle")
            for key in (
                "draft_vocab_size",
                "target_hidden_size",
                "norm_before_residual",
                "norm_before_fc",
                "eagle_aux_hidden_state_layer_ids",
            )
        ),
        "eagle3:fc_norm",
        "eagle3:norm_output",
        "peagle:mask_token_id>pard_token",
        *(
            f"{kind}:{key}"
            for kind in ("dflash", "dflash2")
            for key in ("draft_vocab_size", "target_hidden_size")
        ),
        *(
            f"dspark:{key}"
            for key in (
                "draft_vocab_size",
                "target_hidden_size",
                "mask_token_id",
                "markov_rank",
                "markov_head_type",
                "block_size",
                "enable_confidence_head",
                "confidence_head_with_markov",
                "use_aux_hidden_state",
            )
        ),
    ),
)
# every vLLM 0.33.0 profile: the runner's default aux ids, the unchecked load
VLLM_COMMON_18 = dict(
    aux_default_layers="2,N//2,N-3",
    missing_tensors="uninitialised",
    unexpected_ignored_suffixes=(".bias",),
    **VLLM_SPECULATORS,
)
# the names each vLLM loader's hf_to_vllm_mapper maps onto its model's: the decoder layer's
# q/k/v and gate/up stored fused (orig_to_new_stacked), midlayer as layer 0, and DFlash's
# (and DSpark's, its subclass) encoder.* names
FUSED_MAPS = (
    "self_attn.qkv_proj>self_attn.q_proj",
    "self_attn.qkv_proj>self_attn.k_proj",
    "self_attn.qkv_proj>self_attn.v_proj",
    "mlp.gate_up_proj>mlp.gate_proj",
    "mlp.gate_up_proj>mlp.up_proj",
)
_DFLASH_MAPS = (
    "midlayer>layers.0",
    "encoder.fc>fc",
    "encoder.output_norm_enc>hidden_norm",
    *FUSED_MAPS,
)
VLLM_NAME_MAPS = {
    "dspark": _DFLASH_MAPS,
    "dflash": _DFLASH_MAPS,
    "eagle3": ("midlayer>layers.0", *FUSED_MAPS),
}
_DFLASH_MAPS_CITE = (
    f"{DFLASH_PY}:390-410 `hf_to_vllm_mapper = WeightsMapper(` (midlayer, encoder.fc, "
    "encoder.output_norm_enc, orig_to_new_stacked)"
)
VLLM_NAME_MAPS_CITES = {
    "dspark": f"{_DFLASH_MAPS_CITE}; {DSPARK_PY}:192 `class Qwen3DSparkModel(DFlashQwen3Model)`",
    "dflash": _DFLASH_MAPS_CITE,
    "eagle3": f'{EAGLE3_PY}:290-299 `orig_to_new_substr={{"midlayer.": "layers.0."}}`; '
    f'{QWEN3_EAGLE3_PY}:143-151 `orig_to_new_substr={{"midlayer.": "layers.0."}}` (no encoder.* '
    "names)",
}
# the modules each vLLM loader's mapper drops when its model does not build them
VLLM_DROPPED = {
    "dspark": ("mask_embedding", "confidence_head"),
    "dflash": ("mask_embedding", "fc"),
    "eagle3": ("mask_hidden", "fc", "input_norm"),
}


def _vllm_18_cites(family: str) -> dict[str, str]:
    """Citations of the fields issue 18 added, for one vLLM 0.33.0 family."""
    model_py = {"dspark": DSPARK_PY, "dflash": DFLASH_PY, "eagle3": EAGLE3_PY}[family]
    load = {
        "dspark": f"{DSPARK_PY}:370-371 `loader.load_weights(model_weights.items(), mapper=mapper)`",
        "dflash": f"{DFLASH_PY}:890-891 `loader.load_weights(model_weights.items(), mapper=mapper)`",
        "eagle3": f"{EAGLE3_PY}:466-470 `loader.load_weights(`",
    }[family]
    mask_hidden = {
        "dspark": f'{DSPARK_PY}:325-326 `name = "model." + name` (no mask_hidden parameter); '
        f"{M}utils.py:443 `There is no module or parameter named`",
        "dflash": f'{DFLASH_PY}:856-860 `assert "mask_hidden" not in name`',
        "eagle3": f"{EAGLE3_PY}:450-455 `mask_hidden not found in weights`; {SPEC_BASE}:133-134 "
        "`parallel_drafting` (a speculators peagle config turns it on)",
    }[family]
    speculators = (
        f"{SPEC_BASE}:51-56 `SUPPORTED_SPECULATORS_TYPES`; {SPECULATORS}:43-46 "
        f'`Unsupported model_type`; {SPECULATORS}:114 `config_dict["aux_hidden_state_layer_ids"]`; '
        f'{SPECULATORS}:83 `config_dict["mask_token_id"]`; {HF_CONFIG}:361-366 '
        "`speculators_config` (translated only without a model_type)"
    )
    dropped = {
        "dspark": f'{DSPARK_PY}:359 `orig_to_new_substr = {{"mask_embedding": None}}`; '
        f'{DSPARK_PY}:366-368 `orig_to_new_substr["confidence_head"] = None`',
        "dflash": f'{DFLASH_PY}:885-888 `orig_to_new_substr["fc."] = None`',
        "eagle3": f'{EAGLE3_PY}:457 `orig_to_new_substr = {{"mask_hidden": None}}`; '
        f'{EAGLE3_PY}:462-465 `orig_to_new_substr["input_norm."] = None`',
    }[family]
    return {
        "unexpected_ignored_suffixes": f'{M}utils.py:456-458 `self.ignore_unexpected_suffixes.append(".bias")`',
        "dropped_unbuilt": dropped,
        "name_maps": VLLM_NAME_MAPS_CITES[family],
        "aux_default_layers": f"{INTERFACES}:1771-1772 `return (2, num_layers // 2, num_layers - 3)`; "
        f"{AUX_UTILS}:37-38 `get_eagle3_default_aux_hidden_state_layers()`; {INTERFACES}:1616 "
        "`tuple(sorted(set(layers)))`",
        "trained_aux_ids": f'{AUX_UTILS}:142-147 `drafter_config.get("layer_ids")` (Model Runner '
        "V2 never reads eagle_config.eagle_aux_hidden_state_layer_ids; SpecForge writes it for "
        "SGLang, which captures id + 1)"
        if family == "eagle3"
        else f"{AUX_UTILS}:119-140 `target_layer_ids` (the runner reads the keys it was trained with)",
        "aux_layer_keys_by_class": f"{QWEN3_EAGLE3_PY}:202-209 `num_aux_layers`; {REGISTRY}:705-706 "
        f'`"Eagle3Qwen3ForCausalLM"`; {EAGLE_CONFIG}:59-64 `f"Eagle3{{arch}}"`; '
        f"{SPECULATORS}:39-42 `eagle3_arch_map`"
        if family == "eagle3"
        else f"{model_py} (one model class)",
        "missing_tensors": f"{load} (returns no set of loaded names); {DEFAULT_LOADER}:512-514 "
        "`loaded_weights is not None` (no check for weights never initialised); "
        f"{LINEAR}:193-194 `data=torch.empty(`",
        "own_lm_head_keys": f"{DFLASH_UTILS}:64-70 `has_own_lm_head`; {DFLASH_PY}:760 `has_own_lm_head`"
        if family == "dflash"
        else f"{EAGLE_UTILS}:109-111 `_should_share(` (has_own_lm_head is set from a shipped "
        "lm_head, not read from the config)",
        "mask_token_null_read": f'{SPEC_UTILS}:100-109 `int(dflash_config["mask_token_id"])`'
        if family != "eagle3"
        else f"{EAGLE3_PY} (no mask token read by the EAGLE-3 model)",
        "mask_hidden": mask_hidden,
        "fc_norm_keys": f'{EAGLE3_PY}:231-240 `use_fc_norm = getattr(self.config, "fc_norm", False)`'
        if family == "eagle3"
        else f"{DFLASH_PY} (no fc_norm)",
        "target_hidden_size_null": f'{EAGLE3_PY}:218-221 `"target_hidden_size", self.config.hidden_size`'
        if family == "eagle3"
        else f"{DFLASH_PY}:90-92 `or config.hidden_size`",
        "markov_head_type": f"{DSPARK_PY}:209-218 `self.markov_head = DSparkMarkovHead(` "
        "(markov_head_type never read)"
        if family == "dspark"
        else f"{model_py} (no Markov head)",
        "confidence_head_shape": f"{DSPARK_PY}:219-230 `enable_confidence_head`; {LINEAR}:408-411 "
        "`assert param.size() == loaded_weight.size()`"
        if family == "dspark"
        else f"{model_py} (no confidence head)",
        "markov_embeds_target_ids": f"{DSPARK_PY}:71 `nn.Embedding(vocab_size, markov_rank)`; "
        f"{DSPARK_SPEC}:184-200 `markov_embed = self.model.markov_embed(prev)` (the anchor and "
        "each sampled target id)"
        if family == "dspark"
        else f"{model_py} (no Markov head)",
        "unmapped_logits_vocab_wide": f"{EAGLE3_PY}:378-382 `assert logits.shape[1] == self.config.vocab_size`"
        if family == "eagle3"
        else f"{DFLASH_PY}:805-807 `return logits` (no width check)",
        "speculators_types": speculators,
        "speculators_required": speculators,
        "speculators_layer_types": speculators,
        "speculators_copied": f"{SPECULATORS}:30-50,67-83,109-122,186-209 `pre_trained_config[`; "
        f"{SPEC_BASE}:58-63 `transformer_layer_config`",
        "omni_dspark_checks": f"{SPEC_CONFIG}:167-377 `_validate_qwen3_omni_dspark`; "
        f"{SPEC_CONFIG}:1674-1678 `_validate_qwen3_omni_dspark(` (where it is called)"
        if family == "dspark"
        else f"{SPEC_CONFIG}:167 `_validate_qwen3_omni_dspark` (DSpark only)",
        "served_architectures": f'{SPEC_CONFIG}:1534-1542 `"DSparkDraftModel" in self.draft_model_config.architectures`; '
        f'{REGISTRY}:681-682 `"Qwen3DSparkModel"`'
        if family == "dspark"
        else f"{model_py} (not judged here)",
        "builds_lm_head": VLLM_TIED[family],
        "first_input_norm": f"{model_py} (every decoder layer builds its input_layernorm)",
        "fc_bias": f"{model_py} (fc has no bias: a stored one is ignored as every .bias)",
        "qkv_bias_architectures": f"{model_py} (attention biases not judged here)",
        **vllm_fc_cites(model_py, family),
        "architecture_rename": RENAME_CITES[family],
        "draft_topk_range": TOPK_CITE if family == "dspark" else f"{SPEC_CONFIG} (DSpark only)",
        **REGISTRY_CITES.get(family, {}),  # the registered names (DSpark's: not modelled)
        "unserved_architecture": f"{SPEC_CONFIG}:1543-1567 `DeepSeek-V4(.1) DSpark reuses the full "
        "target config`"
        if family == "dspark"
        else f"{model_py} (not judged here)",
    }


# --- the entries: each loader's first release read, then each later release as a diff -----
# (Profile.derive: the fields that changed, each with its new cite; the rest carried over)

# vLLM's drafter classes never read tie_word_embeddings (issue 25: tied heads)
_OWN_HEAD = "(tie_word_embeddings never read: its own head is built and loaded)"
VLLM_TIED = {
    DSPARK: f"{DSPARK_PY}:250 `self.lm_head = ParallelLMHead(` {_OWN_HEAD}",
    DFLASH: f"{DFLASH_PY}:755 `self.lm_head = ParallelLMHead(` {_OWN_HEAD}",
    EAGLE3: f"{EAGLE3_PY}:329 `self.lm_head = ParallelLMHead(`; "
    f"{QWEN3_EAGLE3_PY}:308 `self.lm_head = ParallelLMHead(` {_OWN_HEAD}",
}

# vLLM's Qwen3 DSpark loader. 0.29.0: qwen3_dspark.py as PR #52560 wrote it (Vd != Vt)
DSPARK_CITES = {
    **_vllm_dspark_cites("262-268", "341-357"),
    **NOT_MODELLED,
    **_vllm_18_cites("dspark"),
    "tied_head": VLLM_TIED[DSPARK],
}
VLLM_DSPARK_0_29 = Profile(
    name="vllm-legacy",
    runtime="vLLM",
    family=DSPARK,
    release="vLLM 0.29 (qwen3_dspark.py came with PR #52560 in 0.29.0; PR #55133 made "
    "the reduced-vocab rules Vd < Vt in 0.30.0)",
    sources=(DSPARK_PY + " at PR #52560", "vllm PR #52560", "vllm PR #55133"),
    cites={
        **DSPARK_CITES,
        "reduced_when": "vllm PR #52560 (qwen3_dspark.py: uses_reduced_vocab = "
        "Vd != Vt; PR #55133 made it Vd < Vt); " + DSPARK_PY + ":262,342 "
        "`< self.target_vocab_size` (0.33.0)",
    },
    releases=">=0.29.0,<0.30.0",
    dropped_unbuilt=VLLM_DROPPED["dspark"],
    draft_topk_range=True,
    name_maps=VLLM_NAME_MAPS["dspark"],
    hidden_states=DFLASH_HIDDEN,
    reduced_when=NE,
    missing_d2t="error",
    missing_lm_head="refused",
    requires_embed_when_expanded=True,
    omni_vocab_check=True,
    mask_token_keys=VLLM_MASK,
    missing_mask_token="error",
    top_level_keys=("markov_rank",),
    aux_layer_keys=VLLM_DFLASH_AUX,
    aux_default="num_hidden_layers",
    **VLLM_COMMON_18,
    mask_token_null_read=VLLM_MASK_NULL,
    mask_hidden="no_parameter",
    markov_head_type="ignored",
    confidence_head_shape=True,
    markov_embeds_target_ids=True,
    omni_dspark_checks=True,
    served_architectures=("Qwen3DSparkModel", "Qwen3OmniDSparkModel", "DSparkDraftModel@qwen3"),
    unserved_architecture="deepseek_v4",
)
# 0.30.0: PR #55133, the reduced-vocab rules are Vd < Vt (read in the 0.33.0 wheel)
VLLM_DSPARK_0_30 = VLLM_DSPARK_0_29.derive(
    name="vllm",
    release=VLLM,
    releases=CURRENT,
    sources=(DSPARK_PY, DSPARK_UTILS, SPEC_UTILS, DFLASH_PY, SPEC_CONFIG, "vllm PR #55133"),
    cites={"reduced_when": f"{DSPARK_PY}:262-268 `draft_vocab_size < self.target_vocab_size`"},
    reduced_when=LT,
)

# vLLM's DFlash loader. 0.29.0-0.30.0: the config's has_own_lm_head is not read
DFLASH_CITES = {
    **_vllm_eagle_cites(DFLASH_PY, "768-775", "801-814", "851-892"),
    **NOT_MODELLED,
    **_vllm_18_cites("dflash"),
    "tied_head": VLLM_TIED[DFLASH],
}
VLLM_DFLASH_0_29 = Profile(
    name="vllm-dflash-legacy",
    runtime="vLLM",
    family=DFLASH,
    architecture_rename="dflash",
    architectures=VLLM_DFLASH_ARCHITECTURES,
    release="vLLM 0.29-0.30 (the config's has_own_lm_head is first read in 0.31.0)",
    sources=(DFLASH_PY, DFLASH_UTILS + " in 0.29.0-0.30.0"),
    cites={
        **DFLASH_CITES,
        "own_lm_head_keys": "vLLM 0.30.0's spec_decode/dflash/utils.py (lines 63-64: the "
        "target's head is shared unless a shipped one differs; the config key "
        f"has_own_lm_head is not read); {DFLASH_UTILS}:64-70 `has_own_lm_head` (read "
        "from 0.31.0)",
    },
    releases=">=0.29.0,<0.31.0",
    dropped_unbuilt=VLLM_DROPPED["dflash"],
    name_maps=VLLM_NAME_MAPS["dflash"],
    hidden_states=DFLASH_HIDDEN,
    mask_token_keys=VLLM_MASK,
    missing_mask_token="error",
    aux_layer_keys=VLLM_DFLASH_AUX,
    aux_default="num_hidden_layers",
    **VLLM_COMMON_18,
    mask_token_null_read=VLLM_MASK_NULL,
    mask_hidden="refused",
)
# 0.31.0: a config that sets has_own_lm_head keeps its own (unloaded) head
VLLM_DFLASH_0_31 = VLLM_DFLASH_0_29.derive(
    name="vllm-dflash",
    release=VLLM,
    releases=">=0.31.0,<=0.33.0",
    sources=(DFLASH_PY, DFLASH_UTILS, EAGLE_UTILS, LOGITS, SPEC_UTILS, AUX_UTILS),
    cites={"own_lm_head_keys": DFLASH_CITES["own_lm_head_keys"]},
    own_lm_head_keys=("has_own_lm_head",),
)

# vLLM's EAGLE-3 model. 0.29.0: draft_id_to_target_id always created (before PR #53458)
EAGLE3_CITES = {
    **_vllm_eagle_cites(EAGLE3_PY, "338-345", "373-394", "420-470"),
    **NOT_MODELLED,
    **_vllm_18_cites("eagle3"),
    "tied_head": VLLM_TIED[EAGLE3],
    "first_qkv_input": VLLM_FIRST_QKV_EAGLE3,
}
VLLM_EAGLE3_0_29 = Profile(
    name="vllm-eagle3-legacy",
    runtime="vLLM",
    family=EAGLE3,
    architecture_rename="eagle3",
    architectures=VLLM_EAGLE3_ARCHITECTURES,
    release="vLLM 0.29 (before PR #53458, which made draft_id_to_target_id conditional in 0.30.0)",
    sources=(EAGLE3_PY + " before PR #53458", "vllm PR #53458"),
    cites={
        **EAGLE3_CITES,
        "d2t_param": f"vllm PR #53458 (before it, __init__ always created draft_id_to_target_id [Vd]); {EAGLE3_PY}:338-345 `draft_vocab_size != target_vocab_size` (0.33.0: only when Vd != Vt)",
        "unmapped_logits_vocab_wide": "vllm PR #53458 (before it draft_id_to_target_id "
        f"always existed: compute_logits always scattered into a V-wide row); {EAGLE3_PY}"
        ":378-382 `assert logits.shape[1] == self.config.vocab_size` (0.33.0)",
    },
    releases=">=0.29.0,<0.30.0",
    dropped_unbuilt=VLLM_DROPPED["eagle3"],
    name_maps=VLLM_NAME_MAPS["eagle3"],
    hidden_states=EAGLE3_HIDDEN,
    d2t_param="always",
    aux_layer_keys=EAGLE3_AUX,
    aux_default="3",
    norm_before_fc_keys=EAGLE3_NORM,
    **VLLM_COMMON_18,
    trained_aux_ids=(("eagle_config.eagle_aux_hidden_state_layer_ids", 1),),
    aux_layer_keys_by_class=VLLM_EAGLE3_CLASSES,
    mask_hidden="parallel_drafting",
    fc_norm_keys=("fc_norm",),
    target_hidden_size_null="type_error",
    first_qkv_input="2_hidden_size",
)
MLA = {"mla_architectures": VLLM_MLA_CITE}  # read from 0.33.0 (profiles/mla.py)
# 0.30.0 (PR #53458): draft_id_to_target_id only when Vd != Vt, else V-wide logits
VLLM_EAGLE3_0_30 = VLLM_EAGLE3_0_29.derive(
    name="vllm-eagle3",
    release=VLLM,
    releases=CURRENT,
    sources=(EAGLE3_PY, M + "qwen3_eagle3.py", EAGLE_UTILS, LOGITS, SPECULATORS),
    cites={**{k: EAGLE3_CITES[k] for k in ("d2t_param", "unmapped_logits_vocab_wide")}, **MLA},
    d2t_param="reduced",
    mla_architectures=VLLM_MLA_ARCHITECTURES,
    unmapped_logits_vocab_wide=True,
)

# in the order the CLI lists them: each family's newest release first
PROFILES = (
    VLLM_DSPARK_0_30,
    VLLM_DSPARK_0_29,
    VLLM_DFLASH_0_31,
    VLLM_DFLASH_0_29,
    VLLM_EAGLE3_0_30,
    VLLM_EAGLE3_0_29,
)
