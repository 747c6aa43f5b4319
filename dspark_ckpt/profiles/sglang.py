"""SGLang's profiles: one ``Profile`` entry per release and drafter family.

SGLang 0.5.23 is the release read. A new release is ``Profile.derive`` of the entry
before it in ``PROFILES`` below: the fields that changed, each citing the ``file:line``
it was read from (CONTRIBUTING.md walks through one).
"""

from __future__ import annotations

from dspark_ckpt.profiles.families import DFLASH, DSPARK, EAGLE3
from dspark_ckpt.profiles.qkv import SGLANG_FIRST_QKV_EAGLE3
from dspark_ckpt.profiles.quant_fc import SGLANG_QUANTISED_FC, SGLANG_QUANTISED_FC_VALUE
from dspark_ckpt.profiles.schema import FIELDS_18, LT, HiddenStates, Profile

SGLANG = "SGLang 0.5.23"
SGLANG_RELEASES = "==0.5.23"  # the one release read
S = "python/sglang/srt/"
SG_EAGLE3 = S + "models/llama_eagle3.py"
SG_KIMI = S + "models/kimi_k25_eagle3.py"
SG_DSPARK = S + "models/dspark.py"
SG_DFLASH = S + "models/dflash.py"
SG_DFLASH_CFG = S + "speculative/dflash_utils.py"
SG_DSPARK_CFG = S + "speculative/dspark_components/dspark_config.py"
SG_DSPARK_WORKER = S + "speculative/dspark_components/dspark_worker_v2.py"
SG_DFLASH_WORKER = S + "speculative/dflash_worker_v2.py"
SG_EAGLE_WORKER = S + "speculative/eagle_worker_v2.py"
SG_MARKOV_SAMPLE = "python/sglang/kernels/ops/speculative/dspark/markov_sample.py"
SG_REGISTRY = S + "models/registry.py"
# llama_eagle3.py:156-161 counts num_aux_hidden_states, else eagle_config's aux ids
SG_EAGLE3_AUX = ("num_aux_hidden_states", "eagle_config.eagle_aux_hidden_state_layer_ids")
SG_EAGLE3_NORM = ("eagle_config.norm_before_fc", "norm_before_fc")  # llama_eagle3.py:169-182
# the weight files SGLang's DefaultModelLoader reads: every *.safetensors of the folder,
# filtered by the index only where there is one
SG_WEIGHT_FILES = (
    f"{S}model_loader/loader.py:548-549 `glob.glob(os.path.join(hf_folder, pattern))`; "
    f"{S}model_loader/weight_utils.py:766-775 `if not os.path.isfile(index_file_name):` "
    "(no index: every file is kept)"
)
# DSpark hands its backbone names to DFlash's loader, which skips a name it has no
# parameter for
SG_BLOCK_STRAY = (
    f"{SG_DSPARK}:651 `super().load_weights(backbone_weights)`; "
    f"{SG_DFLASH}:944-946 `Ignore unexpected weights`"
)
SG_MODEL_REGISTRY = (
    f"{S}model_loader/utils.py:224-232 `is_native_supported` (no registered name: the "
    "transformers fallback, which has no such class: 'Cannot find model module', "
    f"{S}model_loader/utils.py:154-167); {S}models/registry.py:93-114 `def resolve_model_cls`"
)
SG_DSPARK_WORKER = S + "speculative/dspark_components/dspark_worker_v2.py"
SG_MARKOV_SAMPLE = "python/sglang/kernels/ops/speculative/dspark/markov_sample.py"
# the drafter classes SGLang 0.5.23 registers (each model file's EntryClass)
SG_EAGLE3_ARCHS = ("LlamaForCausalLMEagle3", "Eagle3DeepseekV2ForCausalLM")
SG_DFLASH_ARCHS = (
    "DFlashDraftModel",
    "DFlashLagunaForCausalLM",
    "MuseGlimmerAssistantModel",
    "DFlash2DraftModel",
    "DFlash2BeamDraftModel",
    "MiniMaxDFlash2DraftModel",
)
SG_DSPARK_ARCHS = (
    "DSparkDraftModel",
    "Qwen3DSparkModel",
    "LingDSparkModel",
    "DSparkMiniMaxDraftModel",
    "Lfm2DSparkDraftModel",
    "DeepseekV4ForCausalLMDSpark",
)
# SGLang DSpark's mask id order (dspark_config.py:277-289): the prefixed key (a null falls
# through), then dspark_config over dflash_config, text_config, the top level (dict.get /
# getattr: a present null is taken, and then no id is set)
SG_DSPARK_MASK = (
    "dspark_noise_token_id",
    "dspark_config.mask_token_id",
    "dflash_config.mask_token_id",
    "text_config.mask_token_id",
    "mask_token_id",
)
SG_MARKOV_TYPE_KEYS = (
    "dspark_markov_head_type",
    "dspark_config.markov_head_type",
    "dflash_config.markov_head_type",
    "text_config.markov_head_type",
    "markov_head_type",
)
SG_MARKOV_TYPES = ("vanilla", "gated", "rnn")
NOT_READ = "not read by this loader: the rule is off"


def _sglang_issue18_cites(model_py: str, archs: str) -> dict[str, str]:
    """The cites of the fields issue 18 added, for the three SGLang loaders."""
    dspark = model_py == SG_DSPARK
    eagle3 = model_py == SG_EAGLE3
    no_markov = f"{model_py} ({NOT_READ}: no Markov head)"
    return {
        "architectures": f"{archs}; {SG_MODEL_REGISTRY}",
        "missing_draft_vocab_size": f"{SG_EAGLE3}:303-308 `config.draft_vocab_size is None` "
        "(attribute access: a missing key is an AttributeError, a null takes the target's head)"
        if eagle3
        else f"{model_py} ({NOT_READ}: draft_vocab_size is never read)",
        "missing_tensors": (
            f"{SG_EAGLE3}:370-378 `if param_name in params_dict` (what is not given is not "
            "loaded, and nothing checks)"
            if eagle3
            else f"{SG_DFLASH}:943-946 `Ignore unexpected weights` (no check of what was loaded)"
        )
        + f"; {S}model_loader/loader.py:1063 `model.load_weights(weights)` (nothing after it)",
        "markov_head_type_keys": f"{SG_DSPARK_CFG}:253-268 `requires markov_head_type when "
        "markov_rank > 0`"
        if dspark
        else no_markov,
        "markov_head_types": f"{SG_DSPARK_CFG}:22 `SUPPORTED_DSPARK_MARKOV_HEAD_TYPES`; "
        f'{SG_DSPARK}:392 `getattr(config, "markov_head_type", "vanilla")` (the model\'s '
        f"head: top level only); {SG_DSPARK}:653-658 `DSpark unexpected markov weight`"
        if dspark
        else no_markov,
        "markov_bias_width": f"{SG_MARKOV_SAMPLE}:269 `assert bias.shape[1] <= "
        f"base_logits.shape[1]`; {SG_DSPARK}:238-239 `self.markov_w1(token_ids.long())` "
        "(every anchor and sampled target id)"
        if dspark
        else no_markov,
        "mask_token_bound": (
            f"{SG_DSPARK_WORKER}:251-254 `padded_vocab_size`; {SG_DSPARK_CFG}:124-128 "
            "`is outside the target`"
            if dspark
            else f"{S}speculative/dflash_worker_v2.py:1399-1408 `DFLASH mask_token_id is "
            "outside the target vocab size`"
            if model_py == SG_DFLASH
            else f"{model_py} ({NOT_READ}: no mask token)"
        ),
        "mask_token_null_stops": (
            f"{SG_DSPARK_CFG}:277-289 `dspark_cfg.get(`"
            if dspark
            else f"{SG_DFLASH_CFG}:688-690 `mask_token_id = dflash_cfg.get(`"
            if model_py == SG_DFLASH
            else f"{model_py} ({NOT_READ}: no mask token)"
        ),
    }


_FAMILY_OF = {SG_EAGLE3: "eagle3", SG_DSPARK: "dspark", SG_DFLASH: "dflash"}


def _fields_18_unjudged(model_py: str) -> dict[str, str]:
    """Issue 18's vLLM / TensorRT-LLM fields, at their defaults here: not judged for SGLang."""
    out = {name: f"{model_py} (not judged for {SGLANG} here)" for name in FIELDS_18}
    return {**out, "quantised_fc": SGLANG_QUANTISED_FC[_FAMILY_OF[model_py]]}


def _sglang_block_cites(model_py: str) -> dict[str, str]:
    """SGLang's DSpark / DFlash loaders: head and embedding from the target."""
    dspark = model_py == SG_DSPARK
    unknown = f"{SG_DFLASH}:943-946 `# Ignore unexpected weights`"
    # DSpark hands everything but its Markov and confidence weights to DFlash's loader
    to_dflash = f"{SG_DSPARK}:648-651 `backbone_weights.append((name, loaded_weight))`; "
    head = (
        f'{SG_DSPARK}:510 `_DSPARK_SKIPPED_WEIGHT_PREFIXES = ("lm_head."` (lm_head. '
        f"skipped); {SG_DSPARK_WORKER}:313-324 `self.draft_model.attach_shared_modules(` "
        "(the target's head)"
        if dspark
        else f"{unknown} (no lm_head parameter: a shipped one is dropped); "
        f'{SG_DFLASH_WORKER}:2493 `lm_head = unwrap_lora_layer(getattr(target_model, "lm_head", '
        "None))` (the target's head drafts)"
    )
    embed = (
        f'{SG_DSPARK}:638-641 `normalized_name.startswith("embed_tokens.")` (embed_tokens. '
        f"skipped); {SG_DSPARK_WORKER}:319-322 `self._resolve_target_embed_tokens(target_model)`"
        if dspark
        else f"{SG_DFLASH}:708-716 `if self.is_nemotron_35_draft:` (an embedding only for "
        f"the Nemotron 3.5 layout); {SG_DFLASH_WORKER}:2490-2492 "
        "`_resolve_dflash_embedding_module(self.draft_model, target_model)`"
    )
    return {
        "reduced_when": f"{model_py} (draft_vocab_size unread)",
        "reduced_against": f"{model_py} (draft_vocab_size unread)",
        "missing_d2t": (to_dflash if dspark else "") + f"{unknown} (d2t/t2d ignored)",
        "d2t_param": (to_dflash if dspark else "") + unknown,
        "missing_lm_head": head,
        "lm_head_from_target": head,
        "requires_embed_when_expanded": embed,
        "own_embed_kept": embed,
        "omni_vocab_check": f"{model_py} (none)",
        "markov_w2_rows": f"{SG_DSPARK}:198-199 `nn.Linear(self.markov_rank, self.vocab_size` "
        "([V, r], its size asserted by the loader)"
        if dspark
        else f"{SG_DFLASH} (no Markov head)",
        "draft_vocab_above_vocab": f"{model_py} (draft_vocab_size unread)",
        # V <= Vt is asserted (not equality): a V < Vt bias covers the first V logits
        "vocab_is_target_width": f"{SG_MARKOV_SAMPLE}:269 "
        "`assert bias.shape[1] <= base_logits.shape[1]` (the Markov bias [V] on the target "
        "head's logits: V <= Vt, not V == Vt)"
        if dspark
        else f"{SG_DFLASH} (no Markov head: the target head's logits as they are)",
        "mask_token_keys": f'{SG_DSPARK_CFG}:206-211,277-289 `**_get_nested_config(config, "dspark_config"),` '
        "`prefixed_noise_token_id` (dspark_noise_token_id, dspark_config over dflash_config, "
        "text_config, then the top level)"
        if dspark
        else f'{SG_DFLASH_CFG}:688-690 `"mask_token_id", _cfg_get(draft_hf_config, '
        '"mask_token_id", None)`',
        "missing_mask_token": f"{SG_DSPARK_CFG}:119-122 "
        "`DSpark requires mask_token_id to be set in the draft model config.`"
        if dspark
        else f"{SG_DFLASH_WORKER}:1424-1446 `resolved_id = vocab.get(mask_token, None)` (the "
        "tokenizer's mask token, added to it when absent)",
        "top_level_keys": f'{SG_DSPARK}:386-391 `markov_rank = int(getattr(config, "markov_rank", 0))`'
        if dspark
        else f'{SG_DFLASH_CFG}:657-660,688-690 `"target_layer_ids",` `"mask_token_id", '
        '_cfg_get(draft_hf_config, "mask_token_id", None)` (dflash_config, else the top '
        "level: no key is read at the top level only)",
        "aux_layer_keys": f'{SG_DFLASH_CFG}:657-675 `"target_layer_ids",`; '
        f"{SG_DFLASH}:750-759 `draft_config.resolve_target_layer_ids(`",
        "aux_default": f"{SG_DFLASH}:750-755 `target_num_layers = num_layers`; "
        f"{SG_DFLASH_CFG}:348-356 `def build_target_layer_ids`",
        "fc_input_hidden": f"{SG_DFLASH}:764-774 `self.num_context_features * hidden_size`",
        "norm_before_fc_keys": f"{model_py} (no input_norm)",
        "prefixed_names": f'{SG_DSPARK}:633 `normalized_name = name.removeprefix("model.")`; '
        f"{SG_DFLASH}:905-915 `def resolve_param_name`",
        "strict_names": f"{unknown} (unknown names ignored)"
        + (
            f"; {SG_DSPARK}:653-658 `DSpark unexpected markov weight` (except Markov names)"
            if dspark
            else ""
        ),
        "reads_speculators_format": f"{SG_DFLASH_CFG}:588-591 `def parse_dflash_draft_config` "
        "(dflash_config and the top level: SGLang has no speculators-format translation); "
        f"{SG_REGISTRY}:93-104 `def resolve_model_cls` (the class from architectures[0])",
        "stray_files_loaded": SG_WEIGHT_FILES,
        "stray_names": SG_BLOCK_STRAY
        if model_py == SG_DSPARK
        else f"{SG_DFLASH}:944-946 `Ignore unexpected weights`",
        **_fields_18_unjudged(model_py),
    }


# --- how SGLang 0.5.23 feeds the target's hidden states ----------------------------
SGLANG_CAPTURE = (
    "python/sglang/srt/models/qwen3.py:524-532,778-805, llama.py:929-953 (captures the "
    "state entering layer i < N at id + 1)"
)
EAGLE3_HIDDEN = HiddenStates(
    "target_hidden_size",
    (("eagle_config.eagle_aux_hidden_state_layer_ids", 1),),
    "0..N-1",
    None,
    "unless_target_hidden_size",
    (
        "python/sglang/srt/models/llama_eagle3.py:151-166 (fc input = "
        "target_hidden_size (default hidden_size) x n_aux)",
        "python/sglang/srt/model_executor/model_runner_components/"
        "spec_aux_hidden_state.py:186-196 (only eagle_config's ids are read)",
        SGLANG_CAPTURE,
        "python/sglang/srt/models/llama.py:910-916 (set_embed: the target's embedding "
        "unless target_hidden_size != hidden_size)",
        "python/sglang/srt/models/llama.py:933-936 `[2, num_layers // 2, num_layers - 3]` "
        "(no ids: the states entering these layers)",
        "python/sglang/srt/models/deepseek_v2.py:3466-3473 `if layer_ids and layer_ids[0] == 1:` "
        "(id + 1 only where the first id is 1, else the ids as they are; DeepSeek V3 / V3.2, "
        "GLM MoE DSA (glm4_moe.py:1284), Mistral Large 3 (mistral_large_3.py:12) and Kimi "
        "K2.5's language model (kimi_k25.py:693) are this class), glm4_moe_lite.py (the same)",
        "python/sglang/srt/models/gpt_oss.py:1345-1352 `max(layer_ids) == num_layers` (the ids "
        "as they are where the largest is N, else id + 1), :728-738 `self.end_layer in "
        "self.layers_to_capture` (the final boundary captured)",
    ),
    default_ids="2,N//2,N-3",
    by_target=(
        *(
            (arch, "as_is_unless_first_is_1")
            for arch in (
                "DeepseekV2ForCausalLM",
                "DeepseekV3ForCausalLM",
                "DeepseekV32ForCausalLM",
                "GlmMoeDsaForCausalLM",
                "MistralLarge3ForCausalLM",
                "KimiK25ForConditionalGeneration",
                "Glm4MoeLiteForCausalLM",
            )
        ),
        ("GptOssForCausalLM", "as_is_when_max_is_n"),
    ),
)
# DFlash, and DSpark (dspark.py builds on dflash)
DFLASH_HIDDEN = HiddenStates(
    "hidden_size",
    (("dflash_config.target_layer_ids", 1), ("target_layer_ids", 1)),
    "0..N-1",
    "0..N-1",
    "always",
    (
        "python/sglang/srt/models/dflash.py:750-775 (fc input = hidden_size x the "
        "target layer ids), 830-841 (a feature-width mismatch raises)",
        "python/sglang/srt/speculative/dflash_utils.py:556-585 (ids outside "
        "[0, num_hidden_layers) raise at start-up)",
        SGLANG_CAPTURE,
        "python/sglang/srt/speculative/dflash_utils.py:348-385 `def build_target_layer_ids` "
        "(no ids: one per drafter layer, spread over target layers 1 .. N - 3)",
    ),
    default_ids="draft_layers",
)
# DSpark: the runner feeds dspark_target_layer_ids first, while the model builds fc from
# the DFlash ids (dflash.py:750-759)
DSPARK_HIDDEN = HiddenStates(
    "hidden_size",
    (("dspark_target_layer_ids", 1), *DFLASH_HIDDEN.aux_ids),
    "0..N-1",
    "0..N-1",
    "always",
    (
        *DFLASH_HIDDEN.sources,
        "python/sglang/srt/model_executor/model_runner_components/"
        "spec_aux_hidden_state.py:260-274 `dspark_draft_config.target_layer_ids` (the "
        "runner's ids: dspark_target_layer_ids first)",
    ),
    default_ids="draft_layers",
)

# SGLang's DSpark and DFlash loaders (dflash.py, dflash_utils.py): the head and the
# embedding always the target's
# the names SGLang's loaders map onto their model's: the decoder layer's q/k/v and gate/up
# stored fused (stacked_params_mapping), EAGLE-3's legacy names, DFlash's (and DSpark's, its
# subclass) vendor encoder.* names
SG_FUSED_MAPS = (
    "self_attn.qkv_proj>self_attn.q_proj",
    "self_attn.qkv_proj>self_attn.k_proj",
    "self_attn.qkv_proj>self_attn.v_proj",
    "mlp.gate_up_proj>mlp.gate_proj",
    "mlp.gate_up_proj>mlp.up_proj",
)
SG_EAGLE3_MAPS = (
    "midlayer>layers.0",
    "aux_norm_low>fc_norm.0",
    "aux_norm_mid>fc_norm.1",
    "aux_norm_high>fc_norm.2",
    *SG_FUSED_MAPS,
)
SG_BLOCK_MAPS = ("encoder.fc>fc", "encoder.output_norm_enc>hidden_norm", *SG_FUSED_MAPS)
SG_EAGLE3_MAPS_CITE = (
    f"{SG_EAGLE3}:328-335 `stacked_params_mapping = [`; {SG_EAGLE3}:338-343 "
    '`"aux_norm_low": "fc_norm.0"` (legacy_name_map)'
)
SG_BLOCK_MAPS_CITE = (
    f"{SG_DFLASH}:887-894 `stacked_params_mapping = [`; {SG_DFLASH}:899-903 "
    '`"encoder.fc.weight": "fc.weight"`; '
    f"{SG_DSPARK}:967 `class DSparkDraftModel(DSparkDraftMixin, DFlashDraftModel)`"
)

SGLANG_BLOCK_RULES = dict(
    quantised_fc=SGLANG_QUANTISED_FC_VALUE["dflash"],  # DSpark's model is DFlash's subclass
    hidden_states=DFLASH_HIDDEN,
    missing_d2t="unused",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    own_embed_kept=False,
    draft_vocab_above_vocab=True,
    d2t_param="ignored",
    aux_layer_keys=("dflash_config.target_layer_ids", "target_layer_ids"),
    aux_default="num_hidden_layers",
    fc_input_hidden="hidden_size",
    prefixed_names="stripped",
    reads_speculators_format=False,
    stray_names="skipped",
    missing_tensors="default_init",
    name_maps=SG_BLOCK_MAPS,
)

# --- issue 25, task B: what a true tie_word_embeddings does ----------------------------------
SG_TIED_EAGLE3 = (
    f"{SG_EAGLE3}:300-304 `self.lm_head = self.model.embed_tokens` (the head is the embedding); "
    f"{SG_EAGLE3}:370-378 `if param_name in params_dict:` (lm_head.weight names no parameter: "
    f"skipped); {SG_EAGLE3}:316-320 `config_.draft_vocab_size` (its logits cut to Vd); "
    f"{S}models/llama.py:910-916 `def set_embed(self, embed):` (the target's embedding unless "
    "target_hidden_size != hidden_size)"
)
SG_TIED_BLOCK = (
    f"{SG_DFLASH}:1280-1282 `self.lm_head: Optional[nn.Module] = None` (always the target's "
    "head; tie_word_embeddings never read)"
)

PROFILES = (
    Profile(
        name="sglang-eagle3",
        runtime="SGLang",
        family=EAGLE3,
        release=SGLANG,
        sources=(SG_EAGLE3, S + "speculative/eagle_worker_v2.py"),
        cites={
            "reduced_when": f"{SG_EAGLE3}:316-320 `config_.draft_vocab_size` (draft logits Vd "
            f"wide); {SG_EAGLE_WORKER}:757-758 `topk_index = self.hot_token_id[topk_index]` "
            "(draft ids are target ids unless a shipped d2t maps them: Vd < Vt needs one)",
            "reduced_against": f"{SG_EAGLE_WORKER}:261-269 `target_vocab_size = "
            "self.target_worker.model_config.vocab_size` (SGLang's own draft-vs-target "
            "vocab comparison)",
            "missing_d2t": f"{SG_EAGLE3}:323 `self.hot_token_id = None` (ids used as is); "
            f"{SG_EAGLE_WORKER}:757-758 `if self.hot_token_id is not None:`",
            "d2t_param": f"{SG_EAGLE3}:350-353 "
            "`self.hot_token_id = loaded_weight + torch.arange(loaded_weight.shape[0])`",
            "missing_lm_head": f"{SG_EAGLE3}:302-311,370-378 `self.load_lm_head_from_target = "
            "True` `if param_name in params_dict:` (an explicit draft_vocab_size: a head "
            f"nothing loads); {SG_EAGLE_WORKER}:356-363 `self.draft_runner.model.set_embed(embed)` "
            "(the head is not replaced)",
            "lm_head_from_target": f"{SG_EAGLE3}:305-308 `self.load_lm_head_from_target = True`; "
            f"{SG_EAGLE_WORKER}:356-361 `self.draft_runner.model.set_embed_and_head(embed, head)`",
            "requires_embed_when_expanded": f"{SG_EAGLE3} (no check)",
            "own_embed_kept": f"{SG_EAGLE_WORKER}:363 `self.draft_runner.model.set_embed(embed)`; "
            f"{S}models/llama.py:910-916 `def set_embed(self, embed):` (the target's, unless "
            "target_hidden_size != hidden_size)",
            "omni_vocab_check": f"{SG_EAGLE3} (none)",
            "markov_w2_rows": f"{SG_EAGLE3} (no Markov head)",
            "draft_vocab_above_vocab": f"{SG_EAGLE3}:316-320 `config_.draft_vocab_size` (own "
            "logits processor)",
            "vocab_is_target_width": f"{SG_EAGLE3}:316-320 `config_.draft_vocab_size`",
            "mask_token_keys": f"{SG_EAGLE3} (none)",
            "missing_mask_token": f"{SG_EAGLE3} (none)",
            "top_level_keys": f"{SG_EAGLE3} (none)",
            "aux_layer_keys": f'{SG_EAGLE3}:156-161 `getattr(config, "num_aux_hidden_states", '
            'None)` `eagle_config.get("eagle_aux_hidden_state_layer_ids")`',
            "aux_default": f"{SG_EAGLE3}:161 `len(layer_ids) if layer_ids else 3`",
            "fc_input_hidden": f"{SG_EAGLE3}:151-152,163-164 "
            "`self.hidden_size_in = config.target_hidden_size` "
            "`self.hidden_size_in * self.num_aux_hidden_states`",
            "norm_before_fc_keys": f"{SG_EAGLE3}:169-182 "
            '`eagle_config.get("norm_before_fc", getattr(config, "norm_before_fc", False))`',
            "prefixed_names": f"{SG_EAGLE3}:372 "
            '`param_name = name if name in params_dict else f"model.{name}"`',
            "strict_names": f"{SG_EAGLE3}:370-378 `if param_name in params_dict:` (unknown names "
            "skipped)",
            "reads_speculators_format": f"{SG_EAGLE3} (LlamaForCausalLMEagle3 config only; "
            "SGLang has no speculators-format translation); "
            f"{SG_REGISTRY}:93-104 `def resolve_model_cls` (the class from architectures[0])",
            "stray_files_loaded": SG_WEIGHT_FILES,
            "stray_names": f"{SG_EAGLE3}:372-373 `if param_name in params_dict:` (else "
            "nothing: the name is skipped)",
            **_fields_18_unjudged(SG_EAGLE3),
            "target_hidden_size_null": f"{SG_EAGLE3}:151-152,163-164 "
            '`if hasattr(config, "target_hidden_size"):` '
            "`self.hidden_size_in * self.num_aux_hidden_states` (a present null: None * n_aux); "
            f'{SG_KIMI}:208-209 `getattr(config, "target_hidden_size", None) or '
            "config.hidden_size` (the MLA class: a null is hidden_size)",
            **_sglang_issue18_cites(
                SG_EAGLE3,
                f"{SG_EAGLE3}:387 `EntryClass = [LlamaForCausalLMEagle3]`; "
                f"{S}models/kimi_k25_eagle3.py:523 `EntryClass = [Eagle3DeepseekV2ForCausalLM]`",
            ),
            "tied_head": SG_TIED_EAGLE3,
            "name_maps": SG_EAGLE3_MAPS_CITE,
            "first_qkv_input": SGLANG_FIRST_QKV_EAGLE3,
            "mla_architectures": f"{SG_KIMI}:91-98 `self.self_attn = DeepseekV2AttentionMLA(`; "
            f"{SG_KIMI}:137 `self.mlp = DeepseekV2MLP(`; {SG_KIMI}:479-486 "
            '`fused_name = q_name.replace("q_a_proj", "fused_qkv_a_proj_with_mqa")` (q_a_proj '
            f"and kv_a_proj_with_mqa load only as a pair); {SG_KIMI}:493-495 "
            '`logger.warning("Eagle3 MLA: skipping unexpected weight %s", name)`; '
            f'{SG_KIMI}:350-358 `draft_vocab_size = getattr(config, "draft_vocab_size", None)` '
            "(a missing key is None: the target's head, as llama_eagle3.py:305-308 with an "
            "explicit draft_vocab_size: a head nothing loads)",
            "mla_one_layer": f"{SG_KIMI}:114-117 `if attn.q_lora_rank is None:` `Eagle3 MLA layer "
            f"requires q_lora_rank`; {SG_KIMI}:243-244 `if config.num_hidden_layers != 1:`",
        },
        hidden_states=EAGLE3_HIDDEN,
        releases=SGLANG_RELEASES,
        reduced_when=LT,
        d2t_param="hot_token_id",
        missing_lm_head="uninitialised",
        lm_head_from_target="no_draft_vocab_size",
        own_embed_kept=False,
        draft_vocab_above_vocab=True,
        aux_layer_keys=SG_EAGLE3_AUX,
        aux_default="3",
        norm_before_fc_keys=SG_EAGLE3_NORM,
        prefixed_names="stripped",
        reads_speculators_format=False,
        stray_names="skipped",
        architectures=SG_EAGLE3_ARCHS,
        missing_draft_vocab_size="attribute_error",
        missing_tensors="default_init",
        tied_head="embedding",
        name_maps=SG_EAGLE3_MAPS,
        mla_architectures=("Eagle3DeepseekV2ForCausalLM",),
        target_hidden_size_null="type_error_unless_mla",
        mla_one_layer=True,
        quantised_fc=SGLANG_QUANTISED_FC_VALUE["eagle3"],
        first_qkv_input="2_hidden_size",
    ),
    Profile(
        name="sglang-dspark",
        runtime="SGLang",
        family=DSPARK,
        release=SGLANG,
        sources=(SG_DSPARK, SG_DFLASH, SG_DFLASH_CFG, SG_DSPARK_CFG),
        cites={
            **_sglang_block_cites(SG_DSPARK),
            **_sglang_issue18_cites(
                SG_DSPARK,
                f"{SG_DSPARK}:995 `EntryClass = [Qwen3DSparkModel, LingDSparkModel, "
                f"DSparkDraftModel]`; {S}models/dspark_minimax.py:326 `EntryClass`; "
                f"{S}models/lfm2_dspark.py:16 `EntryClass`; {S}models/deepseek_v4_dspark.py:1217 "
                "`EntryClass`",
            ),
            "tied_head": SG_TIED_BLOCK,
            "name_maps": SG_BLOCK_MAPS_CITE,
        },
        releases=SGLANG_RELEASES,
        markov_w2_rows="vocab_size",
        missing_mask_token="error",
        top_level_keys=("markov_rank",),
        **{
            **SGLANG_BLOCK_RULES,
            "hidden_states": DSPARK_HIDDEN,
            "mask_token_keys": SG_DSPARK_MASK,
            "mask_token_null_stops": SG_DSPARK_MASK[1:],
            "mask_token_bound": "target_padded_vocab",
            "markov_head_type_keys": SG_MARKOV_TYPE_KEYS,
            "markov_head_types": SG_MARKOV_TYPES,
            "markov_bias_width": "at_most_target",
            "architectures": SG_DSPARK_ARCHS,
        },
    ),
    Profile(
        name="sglang-dflash",
        runtime="SGLang",
        family=DFLASH,
        release=SGLANG,
        sources=(SG_DFLASH, SG_DFLASH_CFG, S + "speculative/dflash_worker_v2.py"),
        cites={
            **_sglang_block_cites(SG_DFLASH),
            **_sglang_issue18_cites(
                SG_DFLASH, f"{SG_DFLASH}:1317-1324 `EntryClass = [` (DFlashDraftModel, ...)"
            ),
            "tied_head": SG_TIED_BLOCK,
            "name_maps": SG_BLOCK_MAPS_CITE,
        },
        mask_token_keys=("dflash_config.mask_token_id", "mask_token_id"),
        releases=SGLANG_RELEASES,
        missing_mask_token="tokenizer",
        mask_token_null_stops=("dflash_config.mask_token_id",),
        mask_token_bound="target_vocab",
        architectures=SG_DFLASH_ARCHS,
        **SGLANG_BLOCK_RULES,
    ),
)
