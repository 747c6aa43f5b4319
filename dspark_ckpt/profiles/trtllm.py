"""TensorRT-LLM's profiles: one ``Profile`` entry per release and drafter family.

No release wheel was read: the entries mirror stored commits of TensorRT-LLM main,
found through source search. No release on the package index carries these files in a form
that can be read here: PyPI's ``tensorrt-llm`` (newest 1.2.1) is a stub source archive whose
build downloads the wheel from NVIDIA's own index, so the citation test cannot check these
cites as it does vLLM's and SGLang's (issue 30 item 5). A new release (or commit) is
``Profile.derive`` of the entry before it in ``PROFILES`` below: the fields that changed,
each citing the ``file:line`` (or function) it was read from.

What each entry read, by commit:

- trtllm-dspark: modeling_dspark.py @008b54fe, the newest main read: ``_build_dspark_draft``
  sends a standalone DSpark drafter (its weights not in the target's ``mtp.*``) to
  GQADSparkForCausalLM, DFlashForCausalLM (modeling_dflash.py @009d8fa4) plus the DSpark
  heads: the head keys read nested too, a vanilla Markov head only, partial loading. Its
  hidden-state capture: llmapi/llm_args.py @00043967 (TorchLlmArgs validation fills
  target_layer_ids from dspark_config, dflash_config, dspark_target_layer_ids, then the top
  level) and speculative/utils.py get_spec_metadata (DFlash's capture for it).
- trtllm-dspark-legacy: modeling_dspark_qwen3.py @40289c86, an earlier main's
  Qwen3DSparkForCausalLM (top-level keys, a strict load); dspark/heads.py @06ec703b.
- trtllm-eagle3: modeling_speculative.py @00679c66 (Eagle3DraftModel, Eagle3ForCausalLM,
  _build_eagle3_one_model_draft), speculative/eagle3.py @001e6700 (the default capture
  layers), llmapi/llm_args.py @00043967 (EagleDecodingConfig.eagle3_layers_to_capture and
  num_capture_layers), models/modeling_utils.py (the weight loader; the tie at cb4c622c).
- trtllm-dflash: modeling_dflash.py @009d8fa4 (DFlashForCausalLM, _build_dflash_draft),
  llmapi/llm_args.py @00043967 (DFlashDecodingConfig.target_layer_ids).
"""

from __future__ import annotations

from dspark_ckpt.profiles.families import DFLASH, DSPARK, EAGLE3
from dspark_ckpt.profiles.schema import FIELDS_18, LT, NE, HiddenStates, Profile

T = "tensorrt_llm/_torch/models/"
TRT_DSPARK = T + "modeling_dspark_qwen3.py@40289c86"
TRT_SPEC = T + "modeling_speculative.py@00679c66"
TRT_HEADS = T + "dspark/heads.py@06ec703b"
# the config loader: no speculators-format translation (checked by hand, like every cite here)
TRT_CONFIG = "tensorrt_llm/_torch/pyexecutor/config_utils.py@00679c66:load_pretrained_config()"
TRT_NO_SPECULATORS = (
    f"{TRT_CONFIG} (config classes by model_type, else AutoConfig: nothing reads "
    "speculators_model_type or transformer_layer_config)"
)
DSPARK_INIT = f"{TRT_DSPARK}:Qwen3DSparkDraftModel.__init__()"
DSPARK_LOAD = f"{TRT_DSPARK}:Qwen3DSparkDraftModel.load_weights()"
DSPARK_SHARE = f"{TRT_DSPARK}:Qwen3DSparkForCausalLM.load_weights_from_target_model()"
EAGLE3_INIT = f"{TRT_SPEC}:Eagle3DraftModel.__init__()"
EAGLE3_LOAD = f"{TRT_SPEC}:Eagle3ForCausalLM.load_weights()"
EAGLE3_SHARE = f"{TRT_SPEC}:Eagle3ForCausalLM.load_weights_from_target_model()"
# read in a stored main-branch copy whose commit the search index does not name
WEIGHTS_PER_MODULE = (
    "through models/modeling_utils.py _load_weights_impl (main, autumn 2026: weights are "
    "looked up per module; a module with none is left as it is, other names are unread)"
)
# the draft weights: ModelLoader.load reads checkpoint_loader.load_weights(
# spec_config.speculative_model), whose HF loader globs every *.safetensors of the folder
# and never reads an index (only 'consolidated' files are set aside)
TRT_WEIGHT_FILES = (
    "tensorrt_llm/_torch/pyexecutor/model_loader.py@004b733e `ModelLoader.load` "
    "(load_weights(self.spec_config.speculative_model)); "
    "tensorrt_llm/_torch/models/checkpoints/hf/weight_loader.py@02086d89 "
    '`HfWeightLoader.load_weights` (glob.glob(f"{checkpoint_dir}/*.safetensors"), no index)'
)


def _not_modelled(source: str) -> dict[str, str]:
    """The cites of the fields issue 18 added for SGLang's loaders, at their defaults here."""
    return dict.fromkeys(
        (
            "architectures",
            "missing_draft_vocab_size",
            "missing_tensors",
            "markov_head_type_keys",
            "markov_head_types",
            "markov_bias_width",
            "mask_token_null_stops",
            "mask_token_bound",
        ),
        f"{source} (not modelled for this commit: the rule is off; mask ids: DSC208's [0, V))",
    )


def _trt_18_cites(source: str, **read: str) -> dict[str, str]:
    """The citations of issue 18's fields: ``read`` for those this file decides, the rest
    not judged here (their defaults)."""
    return {name: read.get(name, f"{source} (not judged here)") for name in FIELDS_18}


# how TensorRT-LLM's DSpark drafter takes the target's hidden states
DSPARK_HIDDEN = HiddenStates(
    "hidden_size",
    (("target_layer_ids", 0),),
    None,
    None,
    "always",
    (
        "tensorrt_llm/_torch/models/modeling_dspark_qwen3.py (Qwen3DSparkDraftModel: fc "
        "input = hidden_size x len(target_layer_ids); embed_tokens / lm_head shared with "
        "the target)",
    ),
)

# --- issue 25, task B: what a true tie_word_embeddings does ----------------------------------
# the tie was read in modeling_utils.py at cb4c622c (no copy at 00679c66 is stored) and re-read
# in the newest stored main copy (issue 30): the same code, the key read with getattr(..., False)
TRT_UTILS = "tensorrt_llm/_torch/models/modeling_utils.py@cb4c622c"
TRT_TIED_EAGLE3 = (
    f"{TRT_UTILS}:DecoderModelForCausalLM.__init__() (a true tie_word_embeddings asserts "
    "lm_head.tp_size == model.embed_tokens.tp_size, then lm_head.weight = "
    f"model.embed_tokens.weight; unchanged on the newest stored main); {EAGLE3_INIT} "
    "(embed_tokens is None, shared with the target, unless hidden_size_in != hidden_size: "
    "the tie reads None.tp_size); "
    f"{TRT_UTILS}:DecoderModelForCausalLM.load_weights() (a tied lm_head is skipped at load)"
)

# --- issue 30: TensorRT-LLM's capture layers, its d2t load, what it builds for P-EAGLE -------
TRT_EAGLE3_META = "tensorrt_llm/_torch/speculative/eagle3.py@001e6700"
TRT_LLM_ARGS = "tensorrt_llm/llmapi/llm_args.py@00043967"
TRT_DEFAULT_CAPTURE = (
    f"{TRT_EAGLE3_META}:Eagle3OneModelSpecMetadata.__post_init__() (layers_to_capture None: "
    "(1, num_layers // 2 - 1, num_layers - 4), not deduplicated; num_layers <= 5 raises "
    "'Not enough hidden layers for default EAGLE3 capture'; maybe_capture_hidden_states saves "
    "a layer's output, hidden_states + residual, into the first slot naming it); "
    f"{TRT_LLM_ARGS}:EagleDecodingConfig (eagle3_layers_to_capture, default None: the serving "
    "config only, nothing reads the drafter's ids)"
)
TRT_CAPTURE_COUNT = (
    f"{TRT_LLM_ARGS}:EagleDecodingConfig.num_capture_layers() (len(eagle3_layers_to_capture), "
    f"else 3); {EAGLE3_INIT} (fc = Linear(hidden_size_in * spec_config.num_capture_layers))"
)
TRT_LOADER_ASSERT = (
    "the weight loader of models/modeling_utils.py, read in the newest stored main copy (autumn "
    "2026; the index names no commit): _load_weights_impl asserts `n in module_weights` for each "
    "parameter of a module it loads, _load_weights_impl_v2's handle_manual_copy likewise"
)
TRT_EAGLE3_HIDDEN = HiddenStates(
    "target_hidden_size",
    (),
    "0..N",
    None,
    "unless_target_hidden_size",
    (
        f"{EAGLE3_INIT} (fc input = hidden_size_in (target_hidden_size if present, else "
        "hidden_size) x spec_config.num_capture_layers)",
        TRT_DEFAULT_CAPTURE,
        f"{EAGLE3_SHARE} (embed_tokens the target's unless the drafter built its own)",
    ),
)
TRT_TIED_DSPARK = f"{DSPARK_LOAD} (embed_tokens. and lm_head. skipped: the target's are shared)"

# --- issue 30: the DFlash drafter (modeling_dflash.py) ------------------------------------
TRT_DFLASH = T + "modeling_dflash.py@009d8fa4"
DFLASH_INIT = f"{TRT_DFLASH}:DFlashForCausalLM.__init__()"
DFLASH_LOAD = f"{TRT_DFLASH}:DFlashForCausalLM.load_weights()"
DFLASH_SHARE = f"{TRT_DFLASH}:DFlashForCausalLM.load_weights_from_target_model()"
DFLASH_BUILD = f"{TRT_DFLASH}:_build_dflash_draft()"
DFLASH_PROJECT = f"{TRT_DFLASH}:DFlashForCausalLM.project_target_hidden()"
DFLASH_CAPTURE = (
    f"{TRT_LLM_ARGS}:DFlashDecodingConfig (target_layer_ids: the serving config's, else the "
    "drafter's dflash_config.target_layer_ids); tensorrt_llm/_torch/speculative/utils.py"
    "@00679c66:get_spec_metadata() (DFlashSpecMetadata(layers_to_capture=target_layer_ids): "
    "the target saves the output of each such layer, the state entering id + 1)"
)
TRT_DFLASH_HIDDEN = HiddenStates(
    "hidden_size",
    (("dflash_config.target_layer_ids", 1),),
    "0..N",
    None,
    "always",
    (
        f"{DFLASH_LOAD} (fc = Linear from the shipped fc.weight's own shape; hidden_norm likewise)",
        DFLASH_CAPTURE,
        f"{DFLASH_SHARE} (embed_tokens and lm_head: the target's)",
    ),
)
TRTLLM_DFLASH = Profile(
    name="trtllm-dflash",
    runtime="TensorRT-LLM",
    family=DFLASH,
    release="TensorRT-LLM main (modeling_dflash.py @009d8fa4, autumn 2026)",
    sources=(TRT_DFLASH,),
    cites={
        **_not_modelled(TRT_DFLASH),
        "reduced_when": f"{TRT_DFLASH} (draft_vocab_size never read)",
        "reduced_against": f"{TRT_DFLASH} (draft_vocab_size never read)",
        "missing_d2t": f"{DFLASH_SHARE} (no d2t path: the head is the target's)",
        "d2t_param": f"{DFLASH_LOAD} (draft_model_full.load_weights(allow_partial_loading="
        f"True): a d2t or t2d matches no module and is never read); {WEIGHTS_PER_MODULE}",
        "missing_lm_head": f"{DFLASH_SHARE} (lm_head = target_model.lm_head)",
        "lm_head_from_target": f"{DFLASH_SHARE} (a shipped lm_head is loaded, then replaced)",
        "requires_embed_when_expanded": f"{DFLASH_SHARE} (embed_tokens = "
        "target_model.model.embed_tokens)",
        "own_embed_kept": f"{DFLASH_SHARE} (a shipped embed_tokens is replaced by the target's)",
        "omni_vocab_check": f"{TRT_DFLASH} (none)",
        "markov_w2_rows": f"{DFLASH_BUILD} (no Markov head: a drafter declaring the DSpark "
        "heads raises)",
        "draft_vocab_above_vocab": f"{TRT_DFLASH} (draft_vocab_size never read)",
        "vocab_is_target_width": f"{TRT_DFLASH} (no Markov head: the target's head alone)",
        "mask_token_keys": f"{DFLASH_INIT} (dflash_config.get('mask_token_id', getattr(config, "
        "'mask_token_id', config.vocab_size)))",
        "missing_mask_token": f"{DFLASH_INIT} (else config.vocab_size)",
        "top_level_keys": f"{DFLASH_INIT} (dflash_config first, then the top level)",
        "aux_layer_keys": f"{DFLASH_LOAD} (fc = nn.Linear(fc.weight.shape[1], shape[0]): built "
        "from the shipped tensor, no count checked at load)",
        "aux_default": f"{DFLASH_LOAD} (no count: fc is the shipped tensor)",
        "fc_input_hidden": f"{DFLASH_LOAD} (target_hidden_size never read)",
        "norm_before_fc_keys": f"{TRT_DFLASH} (no input_norm)",
        "prefixed_names": f"{DFLASH_LOAD} (a name without 'model.' gets it, one with it is kept)",
        "strict_names": f"{DFLASH_LOAD} (allow_partial_loading=True); {WEIGHTS_PER_MODULE}",
        "reads_speculators_format": f"{TRT_NO_SPECULATORS}; {DFLASH_INIT}",
        "stray_files_loaded": TRT_WEIGHT_FILES,
        "stray_names": f"{DFLASH_LOAD} (draft_model_full.load_weights: {WEIGHTS_PER_MODULE})",
        **_trt_18_cites(
            TRT_DFLASH,
            missing_tensors=f"{DFLASH_LOAD} (draft_model_full.load_weights(..., "
            "allow_partial_loading=True): a module without its weights keeps its allocation, "
            'no error; fc and hidden_norm are built only `if "fc.weight" in remapped` and '
            f"likewise); {DFLASH_PROJECT} (`self.fc.weight.dtype`: no fc attribute, an "
            "AttributeError at the first forward)",
            markov_head_type=f"{DFLASH_BUILD} (`if declares_dspark_heads(...)`: raise "
            "ValueError, 'declares the DSpark head set ... which decoding_type 'DFlash' does not "
            f"implement'); {TRT_DFLASH}:declares_dspark_heads() (projector_type == 'dspark', "
            "shift_label, use_confidence_head, markov_rank > 0); "
            f"{TRT_DFLASH}:resolve_dspark_head_config() (dspark_config, dflash_config, "
            "dspark_<key>, then <key>; use_confidence_head also as enable_confidence_head)",
            mask_hidden=f"{TRT_DFLASH} (no mask_hidden parameter; the name is never read)",
        ),
        "tied_head": f"{DFLASH_SHARE} (the head is always the target's)",
    },
    hidden_states=TRT_DFLASH_HIDDEN,
    releases="main",
    reduced_when=LT,
    missing_d2t="unused",
    d2t_param="ignored",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    own_embed_kept=False,
    draft_vocab_above_vocab=True,
    mask_token_keys=("dflash_config.mask_token_id", "mask_token_id"),
    missing_mask_token="vocab_size",
    fc_input_hidden="hidden_size",
    prefixed_names="stripped",
    reads_speculators_format=False,
    stray_files_loaded="all",
    stray_names="skipped",
    missing_tensors="partial_fc_required",
    markov_head_type="refused",
)

# the Qwen3 DSpark drafter of an earlier main: modeling_dspark_qwen3.py's own model
TRTLLM_DSPARK_QWEN3 = Profile(
    name="trtllm-dspark-legacy",
    runtime="TensorRT-LLM",
    family=DSPARK,
    release="TensorRT-LLM main (modeling_dspark_qwen3.py @40289c86, autumn 2026)",
    sources=(TRT_DSPARK, TRT_HEADS),
    cites={
        **_not_modelled(TRT_DSPARK),
        "reduced_when": f"{TRT_DSPARK} (draft_vocab_size never read)",
        "reduced_against": f"{TRT_DSPARK} (draft_vocab_size never read)",
        "missing_d2t": f"{TRT_DSPARK} (no d2t path: the head is the target's)",
        "d2t_param": f"{DSPARK_LOAD} (load_state_dict(sd, strict=True): d2t, t2d unexpected)",
        "missing_lm_head": f"{DSPARK_SHARE} (lm_head = target_model.lm_head)",
        "lm_head_from_target": f"{DSPARK_LOAD} (skips lm_head.*); {DSPARK_SHARE}",
        "requires_embed_when_expanded": f"{DSPARK_LOAD} (skips embed_tokens.*); " + DSPARK_SHARE,
        "own_embed_kept": f"{DSPARK_SHARE} (embed_tokens = target_model.model.embed_tokens)",
        "omni_vocab_check": f"{TRT_DSPARK} (none)",
        "markov_w2_rows": f"{TRT_HEADS}:VanillaMarkov.__init__() (markov_w1 Embedding(V, r), "
        "markov_w2 Linear(r, V): both [V, r]); "
        f"{TRT_DSPARK}:Qwen3DSparkDraftModel.__init__() (build_markov_head(vocab_size=V))",
        "draft_vocab_above_vocab": f"{TRT_DSPARK} (draft_vocab_size never read)",
        "vocab_is_target_width": f"{TRT_DSPARK}:Qwen3DSparkDraftModel.forward_batched() "
        "(base_logits = self.lm_head(h), the target's, then dspark_propose adds the Markov "
        "bias [V])",
        "mask_token_keys": f"{DSPARK_INIT} (spec_config.mask_token_id, else config.mask_token_id)",
        "missing_mask_token": f"{DSPARK_INIT} (getattr(config, 'mask_token_id', "
        "config.vocab_size))",
        "top_level_keys": f"{DSPARK_INIT} (getattr(config, 'markov_rank', 0), "
        "config.target_layer_ids asserted)",
        "aux_layer_keys": f"{DSPARK_INIT} (num_capture_layers = len(target_layer_ids))",
        "aux_default": f"{DSPARK_INIT} (assert num_capture_layers > 0)",
        "fc_input_hidden": f"{DSPARK_INIT} (fc = Linear(num_capture_layers * hidden_size))",
        "norm_before_fc_keys": f"{TRT_DSPARK} (no input_norm)",
        "prefixed_names": f"{DSPARK_LOAD} (names as stored, strict)",
        "strict_names": f"{DSPARK_LOAD} (load_state_dict(sd, strict=True, assign=True))",
        "reads_speculators_format": f"{TRT_NO_SPECULATORS}; {DSPARK_INIT} (reads "
        "pretrained_config's top-level attributes)",
        "stray_files_loaded": TRT_WEIGHT_FILES,
        "stray_names": f"{TRT_DSPARK} `load_weights`: load_state_dict(strict=True) "
        "('Unexpected key(s)')",
        **_trt_18_cites(
            TRT_DSPARK,
            missing_tensors=f"{TRT_DSPARK} Qwen3DSparkDraftModel.load_weights "
            "`self.load_state_dict(sd, strict=True, assign=True)` (a name the model has "
            "and the checkpoint lacks: 'Missing key(s) in state_dict')",
            mask_token_null_read=f"{TRT_DSPARK} Qwen3DSparkDraftModel.__init__ "
            '`getattr(config, "mask_token_id", config.vocab_size)` (a present null is '
            "int(None))",
            markov_head_type=f"{TRT_DSPARK} Qwen3DSparkDraftModel.__init__ "
            "`build_markov_head(`; {TRT_HEADS} build_markov_head `Unsupported markov_head_type`".replace(
                "{TRT_HEADS}", TRT_HEADS
            ),
            confidence_head_shape=f"{TRT_DSPARK} _ConfidenceHead "
            "`nn.Linear(int(input_dim), 1, bias=True, dtype=torch.float32)`; load_weights "
            "`strict=True` (a size mismatch fails the load)",
        ),
        "tied_head": TRT_TIED_DSPARK,
    },
    hidden_states=DSPARK_HIDDEN,
    releases="main@40289c86",
    reduced_when=LT,
    d2t_param="rejected",
    markov_w2_rows="vocab_size",
    vocab_is_target_width=True,
    mask_token_keys=("mask_token_id",),
    missing_mask_token="vocab_size",
    top_level_keys=("markov_rank", "target_layer_ids"),
    aux_layer_keys=("target_layer_ids",),
    aux_default="required",
    fc_input_hidden="hidden_size",
    strict_names=True,
    # the head and the embedding always the target's
    missing_d2t="unused",
    missing_lm_head="target-always",
    lm_head_from_target="always",
    own_embed_kept=False,
    draft_vocab_above_vocab=True,
    reads_speculators_format=False,
    stray_files_loaded="all",
    missing_tensors="strict",
    mask_token_null_read=("mask_token_id",),
    markov_head_type="built",
    confidence_head_shape=True,
)

TRTLLM_EAGLE3 = Profile(
    name="trtllm-eagle3",
    runtime="TensorRT-LLM",
    family=EAGLE3,
    release="TensorRT-LLM main (modeling_speculative.py @00679c66, autumn 2026)",
    sources=(TRT_SPEC,),
    cites={
        **_not_modelled(TRT_SPEC),
        "first_qkv_input": f"{TRT_SPEC} (not read here: no loader model for this profile, "
        "its layer shapes are not judged)",
        "reduced_when": f"{EAGLE3_INIT} (d2t when config.vocab_size != "
        f"config.draft_vocab_size: Vd > V too); {TRT_SPEC}:_ensure_draft_vocab_size() "
        "(a missing draft_vocab_size defaults to vocab_size, with a warning)",
        "reduced_against": f"{EAGLE3_INIT} (compares with the drafter's vocab_size)",
        "missing_d2t": f"{EAGLE3_INIT} (torch.empty((draft_vocab_size,), dtype=torch.int32), "
        f"a parameter of the draft model, which always gets other weights); {EAGLE3_LOAD} "
        f"(super().load_weights, no partial loading); {TRT_LOADER_ASSERT}",
        "d2t_param": f"{EAGLE3_INIT} (a d2t parameter when V != Vd); {EAGLE3_LOAD} ('model.' + "
        "name: a shipped d2t without that parameter matches no module)",
        "missing_lm_head": f"{EAGLE3_LOAD} (load_lm_head_from_target unless a name holds "
        f"'lm_head'); {EAGLE3_SHARE} (lm_head = target_model.lm_head)",
        "lm_head_from_target": f"{EAGLE3_LOAD} (a shipped lm_head clears "
        "load_lm_head_from_target: it is kept)",
        "requires_embed_when_expanded": f"{EAGLE3_INIT} (embed_tokens None: shared with the "
        f"target); {EAGLE3_SHARE}",
        "own_embed_kept": f"{EAGLE3_INIT} (an own embed_tokens only when hidden_size_in != "
        "hidden_size)",
        "omni_vocab_check": f"{TRT_SPEC} (none)",
        "markov_w2_rows": f"{EAGLE3_INIT} (no Markov head)",
        "draft_vocab_above_vocab": f"{EAGLE3_INIT} (d2t [Vd]: no V-wide scatter)",
        "vocab_is_target_width": f"{EAGLE3_INIT} (no Markov head)",
        "mask_token_keys": f"{TRT_SPEC} (none)",
        "missing_mask_token": f"{TRT_SPEC} (none)",
        "top_level_keys": f"{TRT_SPEC} (none)",
        "aux_layer_keys": f"{EAGLE3_INIT} (fc from the serving config's "
        "spec_config.num_capture_layers: no drafter key)",
        "aux_default": TRT_CAPTURE_COUNT,
        "fc_input_hidden": f"{EAGLE3_INIT} (hidden_size_in = target_hidden_size if "
        "present, else hidden_size; fc = Linear(hidden_size_in * num_capture_layers))",
        "norm_before_fc_keys": f"{EAGLE3_INIT} (eagle_config.get('norm_before_fc', False): "
        "the top-level key is not read)",
        "prefixed_names": f"{EAGLE3_LOAD} (layers.N -> midlayer, then 'model.' + name)",
        "strict_names": f"{EAGLE3_LOAD} (super().load_weights); {WEIGHTS_PER_MODULE}",
        "reads_speculators_format": TRT_NO_SPECULATORS,
        "stray_files_loaded": TRT_WEIGHT_FILES,
        "stray_names": f"{TRT_SPEC} `Eagle3ForCausalLM.load_weights` (super().load_weights: "
        "modeling_utils.py `_load_weights_impl` walks the model's modules and reads the "
        "names each asks for, any other name is never read)",
        **_trt_18_cites(
            TRT_SPEC,
            aux_default_layers=TRT_DEFAULT_CAPTURE,
            trained_aux_ids=f"{TRT_DEFAULT_CAPTURE}: neither the speculators top-level "
            "eagle_aux_hidden_state_layer_ids (capture points) nor SpecForge's "
            "eagle_config.eagle_aux_hidden_state_layer_ids (SGLang captures id + 1) is read",
            mask_hidden=f"{TRT_SPEC}:_build_eagle3_one_model_draft() (Eagle3ForCausalLM "
            "whatever architectures says, for eagle3_model_arch llama3); "
            f"{EAGLE3_INIT} (no mask_hidden parameter); "
            f"{TRT_EAGLE3_META}:Eagle3OneModelWorker.forward() (one draft token per step, "
            "max_draft_len steps)",
            target_hidden_size_null=f"{TRT_SPEC} Eagle3DraftModel.__init__ "
            "`self.hidden_size_in = config.target_hidden_size` (hasattr: a present null "
            "is None * num_capture_layers, a TypeError)",
        ),
        "tied_head": TRT_TIED_EAGLE3,
    },
    hidden_states=TRT_EAGLE3_HIDDEN,
    releases="main",
    reduced_when=NE,
    reduced_against="vocab_size",
    missing_d2t="load_assert",
    aux_default="3",
    aux_default_layers="1,N//2-1,N-4",
    trained_aux_ids=(
        ("eagle_aux_hidden_state_layer_ids", 0),
        ("eagle_config.eagle_aux_hidden_state_layer_ids", 1),
    ),
    mask_hidden="as_eagle3",
    d2t_param="ignored",
    missing_lm_head="target",
    own_embed_kept=False,
    draft_vocab_above_vocab=True,
    prefixed_names="stripped",
    norm_before_fc_keys=("eagle_config.norm_before_fc",),
    reads_speculators_format=False,
    stray_files_loaded="all",
    stray_names="skipped",
    target_hidden_size_null="type_error",
    tied_head="embedding_or_refused",
)

# --- issue 30: the standalone DSpark route of a later main -------------------------------
# _build_dspark_draft sends a DSpark drafter that is not embedded in the target checkpoint to
# GQADSparkForCausalLM (MLADSparkForCausalLM for an MLA backbone): DFlashForCausalLM (read at
# 009d8fa4, the copy beside it) plus the DSpark heads. Its hidden states: TorchLlmArgs
# validation fills DSparkDecodingConfig.target_layer_ids (when the serving config leaves it
# unset) from the first non-null of dspark_config, dflash_config, dspark_target_layer_ids and
# the top-level target_layer_ids; get_spec_metadata gives a standalone drafter DFlash's
# metadata (DFlashSpecMetadata(layers_to_capture=target_layer_ids)), so it is fed as DFlash is.
TRT_DSPARK_B = T + "modeling_dspark.py@008b54fe"
DSPARK_CAPTURE = (
    f"{TRT_LLM_ARGS}:TorchLlmArgs.validate_speculative_config() (DSparkDecodingConfig: "
    '`_dspark_get("target_layer_ids", "dspark_target_layer_ids")`, the first non-null of '
    "dspark_config.KEY, dflash_config.KEY, the top-level dspark_ name, then KEY; a serving "
    "override that differs raises ValueError); tensorrt_llm/_torch/speculative/utils.py "
    "(main, autumn 2026, a stored copy whose commit the search index does not name):"
    "get_spec_metadata() (a DSpark drafter not embedded in the target gets DFlashSpecMetadata("
    "layers_to_capture=target_layer_ids), as DFlash: the state entering id + 1)"
)
TRT_DSPARK_ROUTE_HIDDEN = HiddenStates(
    "hidden_size",
    tuple(
        (key, 1)
        for key in (
            "dspark_config.target_layer_ids",
            "dflash_config.target_layer_ids",
            "dspark_target_layer_ids",
            "target_layer_ids",
        )
    ),
    "0..N",
    None,
    "always",
    (
        f"{DFLASH_LOAD} (fc = Linear from the shipped fc.weight's own shape; hidden_norm likewise)",
        DSPARK_CAPTURE,
        f"{DFLASH_SHARE} (embed_tokens and lm_head: the target's)",
    ),
)
DSPARK_ROUTE = (
    f"{TRT_DSPARK_B}:_build_dspark_draft() (not embedded in the target: GQADSparkForCausalLM, "
    "MLADSparkForCausalLM for an MLA drafter; both DFlashForCausalLM subclasses)"
)
HEADS_INIT = f"{TRT_DSPARK_B}:_DSparkHeadMixin._init_dspark_heads()"
HEADS_TAKE = f"{TRT_DSPARK_B}:_DSparkHeadMixin._take_dspark_head_weights()"
HEADS_RESOLVE = (
    f"{TRT_DFLASH}:resolve_dspark_head_config() (dspark_config, dflash_config, dspark_<key>, "
    "then <key>)"
)
TRTLLM_DSPARK = TRTLLM_DSPARK_QWEN3.derive(
    name="trtllm-dspark",
    release="TensorRT-LLM main (modeling_dspark.py @008b54fe, GQADSparkForCausalLM; its "
    "DFlash base modeling_dflash.py @009d8fa4)",
    releases="main",
    sources=(TRT_DSPARK_B, TRT_DFLASH),
    cites={
        "d2t_param": f"{DSPARK_ROUTE}; {TRT_DSPARK_B}:GQADSparkForCausalLM.load_weights() (the "
        f"heads taken, the rest to DFlashForCausalLM.load_weights); {DFLASH_LOAD} "
        f"(allow_partial_loading=True: d2t and t2d match no module); {WEIGHTS_PER_MODULE}",
        "mask_token_keys": f"{DSPARK_ROUTE}; {DFLASH_INIT} (dflash_config.get('mask_token_id', "
        "getattr(config, 'mask_token_id', config.vocab_size)))",
        "missing_mask_token": f"{DFLASH_INIT} (else config.vocab_size)",
        "top_level_keys": f"{HEADS_INIT} (markov_rank, markov_head_type: {HEADS_RESOLVE}); "
        f"{DFLASH_INIT} (target_layer_ids from dflash_config, for its log only)",
        "aux_layer_keys": f"{DFLASH_LOAD} (fc = nn.Linear(fc.weight.shape[1], shape[0]): built "
        "from the shipped tensor, no count checked at load)",
        "aux_default": f"{DFLASH_LOAD} (no count: fc is the shipped tensor)",
        "fc_input_hidden": f"{DFLASH_LOAD} (target_hidden_size never read)",
        "prefixed_names": f"{DFLASH_LOAD} (a name without 'model.' gets it, one with it is kept)",
        "strict_names": f"{DFLASH_LOAD} (allow_partial_loading=True); {WEIGHTS_PER_MODULE}",
        "stray_names": f"{DFLASH_LOAD} (draft_model_full.load_weights: {WEIGHTS_PER_MODULE})",
        "missing_tensors": f"{DFLASH_LOAD} (allow_partial_loading=True: a backbone weight the "
        "checkpoint lacks keeps its allocation; fc and hidden_norm exist only when shipped) "
        "(not modelled for this route: no loader-model checks)",
        "mask_token_null_read": f"{DFLASH_INIT} (a null dflash_config.mask_token_id is kept as "
        "None) (not judged here)",
        "markov_head_type": f"{HEADS_INIT} ('only 'vanilla' is supported' for another "
        f"markov_head_type when markov_rank > 0; {HEADS_RESOLVE}); {HEADS_TAKE} (markov_w1/"
        "markov_w2, as markov_head.* or bare, required [V, markov_rank] when markov_rank > 0, "
        "a ValueError for a shipped head whose markov_rank resolves to 0)",
        "confidence_head_shape": f"{HEADS_TAKE} (confidence_head.proj.* loaded as given, "
        "unused: no shape check)",
        "markov_w2_rows": f"{HEADS_TAKE} (`tuple(dspark_weights[k].shape) != (vocab, rank)` "
        "raises for markov_w1 and markov_w2)",
        "vocab_is_target_width": f"{TRT_SPEC}:dspark_markov_chain_logits() (the Markov bias "
        "[V] is added to the target head's logits)",
        "lm_head_from_target": f"{DFLASH_SHARE} (a shipped lm_head is loaded, then replaced)",
        "missing_lm_head": f"{DFLASH_SHARE} (lm_head = target_model.lm_head)",
        "own_embed_kept": f"{DFLASH_SHARE} (embed_tokens = target_model.model.embed_tokens)",
        "tied_head": f"{DFLASH_SHARE} (the head is always the target's)",
    },
    hidden_states=TRT_DSPARK_ROUTE_HIDDEN,
    d2t_param="ignored",
    mask_token_keys=("dflash_config.mask_token_id", "mask_token_id"),
    top_level_keys=(),
    aux_layer_keys=(),
    aux_default="",
    prefixed_names="stripped",
    strict_names=False,
    stray_names="skipped",
    missing_tensors="unchecked",
    mask_token_null_read=(),
    markov_head_type="vanilla_checked",
    confidence_head_shape=False,
)

PROFILES = (TRTLLM_DSPARK, TRTLLM_DSPARK_QWEN3, TRTLLM_EAGLE3, TRTLLM_DFLASH)
