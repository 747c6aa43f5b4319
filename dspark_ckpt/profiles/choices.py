"""The values each string-valued field of a profile may hold: one ``Literal`` per field,
each value documented here, once (``schema.py`` builds the records from them; a value
outside its ``Literal`` fails when the profile entry is built, naming the profile and the
field)."""

# no ``from __future__ import annotations``: the types stay objects (schema.py reads them)
from typing import Literal

Family = Literal[
    "dspark",  # DSpark: a DFlash block drafter with a Markov head (markov_rank)
    "dflash",  # DFlash block drafters
    "eagle3",  # EAGLE-3 (P-EAGLE is served as EAGLE-3)
    "eagle",  # classic EAGLE (EAGLE-1): fc over [embedding, the target's last hidden state]
]
"""The drafter family a profile's loader reads."""

Runtime = Literal["vLLM", "SGLang", "TensorRT-LLM"]
"""The runtime a profile's release belongs to."""

ReducedWhen = Literal[
    "<",  # reduced when Vd < the other size
    "!=",  # reduced when Vd != the other size
]
"""How Vd is compared (with ``ReducedAgainst``) to decide the draft vocab is reduced: a
draft_id_to_target_id / d2t parameter is created; the DSpark loader also requires
lm_head and d2t."""

ReducedAgainst = Literal[
    "target",  # Vt, the target's vocab size
    "vocab_size",  # V, the drafter's own vocab_size
]
"""What Vd is compared with to decide the draft vocab is reduced."""

MissingD2t = Literal[
    "error",  # refused at load
    "zeros",  # silently all zero: draft id i becomes target id i
    "uninitialised",  # an int32 parameter that nothing loads
    # an int32 parameter made with torch.empty that the weight loader requires, as every
    # parameter of a module it loads ('assert n in module_weights'): refused at load
    "load_assert",
    "unused",  # the runtime has no d2t path
]
"""What a reduced drafter without d2t gets."""

D2tParam = Literal[
    "reduced",  # a parameter exists only for a reduced vocab; otherwise the loader raises
    "always",  # the parameter always exists
    "hot_token_id",  # turned into hot_token_id = d2t + arange, never a parameter
    "ignored",  # skipped
    "rejected",  # strict state-dict load
    "none",  # no such parameter: the weight loader refuses a shipped d2t / t2d by name
]
"""Where a checkpoint's d2t goes."""

MissingLmHead = Literal[
    "refused",  # load error
    "target",  # the target's head is shared silently
    "uninitialised",  # an explicit draft_vocab_size creates a head nothing loads
    "unshared",  # the own head nothing loads unless Vd == Vt (then the target's)
    "target-always",  # the head always comes from the target
    "unchecked",  # not read here
]
"""What a reduced drafter without lm_head gets."""

LmHeadFromTarget = Literal[
    "never",
    "no_draft_vocab_size",  # when the config has no draft_vocab_size
    "always",
    "unbuilt",  # always, and the model has no lm_head: a shipped one is a name it lacks
]
"""When a shipped lm_head is replaced by the target's."""

MarkovW2Rows = Literal["draft_vocab_size", "vocab_size"]
"""The rows of markov_head.markov_w2.weight."""

MissingMaskToken = Literal[
    "error",  # refused
    "tokenizer",  # resolved from the tokenizer
    "vocab_size",  # defaults to V
    "",  # the family has no mask token
]
"""What a drafter without a mask (noise) token id gets."""

AuxDefault = Literal[
    "3",  # three aux hidden states
    "num_hidden_layers",  # the drafter's num_hidden_layers
    "required",  # no default: the key must be there
    "",  # no fc check
]
"""The count n_aux of target hidden states fc takes when no ``aux_layer_keys`` key is set."""

HiddenWidth = Literal[
    "target_hidden_size",  # that key, else hidden_size
    "hidden_size",  # target_hidden_size is not read
]
"""The width of each target hidden state the drafter's fc is built for (fc takes
n_aux * this width)."""

PrefixedNames = Literal[
    "rejected",  # load error
    "stripped",  # the prefix is removed
    # names are read as stored, under model. (lm_head at the top level): a name without the
    # prefix names no module of the model and fails the load
    "required",
    # model. is the model's own root, reached through the loader's renames (the profile's
    # name_maps patterns): a stored name, under model. or not, meets the model as they make
    # it (loaded as stored where they pass it, skipped or refused where they do not: vLLM's
    # and SGLang's Mistral EAGLE)
    "model_root",
]
"""What the loader does with tensor names under a wrapper prefix (``model.``)."""

Captures = Literal[
    "0..N",  # every layer boundary, the final pre-norm state included
    "0..N-1",  # the state entering each layer
    None,  # unknown
]
"""The capture points a target produces."""

CheckedIds = Literal[
    "0..N-1",  # ids outside [0, N) are refused at start-up
    None,  # the runtime does not check them
]
"""The aux layer ids a runtime accepts at start-up."""

EmbedFromTarget = Literal[
    "missing",  # the target's, when the drafter ships none
    "unless_target_hidden_size",  # the target's unless target_hidden_size != hidden_size
    "always",  # always the target's
]
"""Where the drafter's embed_tokens comes from."""

StrayFilesLoaded = Literal[
    "index_or_all",  # the index's shards; without an index, every *.safetensors of the folder
    "all",  # every *.safetensors of the folder, whether an index names it or not
]
"""Which ``*.safetensors`` files of the drafter's folder the loader reads: a file the
drafter's weights are not in (a mask, a training state) is loaded with them."""

StrayNames = Literal[
    "refused",  # a name the drafter has no parameter for fails the load
    "skipped",  # such a name is skipped silently
]
"""What the loader does with a tensor name the drafter has no parameter for (the names
of a stray weight file)."""


MissingDraftVocab = Literal[
    "vocab_size",  # a missing draft_vocab_size key means V, as null does
    "attribute_error",  # the loader reads config.draft_vocab_size: a missing key raises
]
"""What a drafter config without a draft_vocab_size key (not a null one) gets."""

MissingTensors = Literal[
    "unchecked",  # not judged here
    "default_init",  # a parameter the checkpoint lacks keeps its initial value, no error
    "uninitialised",  # the loader checks nothing: the parameter keeps its initial memory
    "strict",  # load_state_dict(strict=True): a missing name fails the load
    # TensorRT-LLM's DFlash: a missing backbone weight keeps its allocation (as uninitialised),
    # but fc and hidden_norm exist only when shipped: without one the first forward raises
    "partial_fc_required",
    # checked after the load: a parameter nothing filled fails it (SGLang's M3.1 DSpark)
    "refused",
]
"""What a tensor the runtime's model has and the checkpoint lacks gets."""

QuantisedFc = Literal[
    # fc is built through the drafter's quantization config (a ReplicatedLinear / parallel
    # linear given quant_config): a quantised fc's tensors (weight_packed, weight_scale,
    # qweight, ...) are its parameters and load
    "quantised",
    # fc is a plain torch Linear: only fc.weight (and fc.bias) load; a quantised fc's tensors
    # are no parameter of it, and fc keeps its initial values (SGLang's DFlash, EAGLE-3, EAGLE)
    "plain",
    # plain, but where the config is SGLang's Nemotron 3.5 draft layout
    # (is_nemotron_35_draft_config: quant_algo W4A16_NVFP4 and its aux ids): quantised
    "nemotron35",
]
"""How the drafter's model builds fc where the config declares quantised weights."""

# as written; SGLang's M3.1 DSpark normalisation; vLLM's MuseSparkDSparkConfig (its MoE layers)
MUSE_MOE_LAYERS = "muse_moe_layers"
"""The ``muse_spark_dspark`` config view's key: the draft layers built as MoE."""

ConfigView = Literal[
    "",
    "minimax_m3_dspark",
    "muse_spark_dspark",
    # vLLM's Gemma4MTP: the sizes and layers of text_config, the assistant's own keys
    # (tie_word_embeddings default true, use_ordered_embeddings, backbone_hidden_size, ...)
    # read at the top level; its top modules and decoder layers shaped from them
    "gemma4_mtp",
]
"""The config the runtime's model is built from (loader/view.py ``model_config``)."""

MarkovBiasWidth = Literal[
    "",  # no such check
    # the V-wide Markov bias covers the first V of the target head's logits (asserted
    # V <= their width) and markov_w1 (V rows) embeds every sampled target id
    "at_most_target",
]
"""How the DSpark Markov bias meets the target head's logits."""

MaskTokenBound = Literal[
    "vocab_size",  # [0, V): embedded by the drafter's own embedding
    "target_vocab",  # [0, Vt): refused at start-up otherwise
    "target_padded_vocab",  # [0, the target's padded_vocab_size, else Vt): refused otherwise
]
"""The range a mask (noise) token id must lie in."""

DefaultAuxIds = Literal[
    "",  # not modelled
    "2,N//2,N-3",  # the states entering layers 2, N // 2 and N - 3 of an N-layer target
    "draft_layers",  # one per drafter layer, spread over the target's layers 1 .. N - 3
]
"""The target hidden states a runtime feeds when the config names no aux layer ids."""

TargetAuxIds = Literal[
    # the ids are the capture points, but where the first id is 1 (then id + 1): SGLang's
    # DeepSeek-V2 family and GLM-4 MoE Lite targets
    "as_is_unless_first_is_1",
    # the ids are the capture points where the largest is N (the final boundary, captured
    # before the final norm), else id + 1; every boundary 0..N is captured: SGLang's GPT-OSS
    "as_is_when_max_is_n",
]
"""How a target architecture turns the drafter's aux layer ids into capture points, where
it does so otherwise than its runtime's other targets (``HiddenStates.by_target``)."""

AuxDefaultLayers = Literal[
    "2,N//2,N-3",  # (2, N // 2, N - 3) of an N-layer target, deduplicated
    # the outputs of layers (1, N // 2 - 1, N - 4), the states entering (2, N // 2, N - 3),
    # not deduplicated; a ValueError at start-up for 2 <= N <= 5; the runtime reads no drafter
    # key for them (only its serving config)
    "1,N//2-1,N-4",
    "",  # no default judged
]
"""The aux layer ids the model runner feeds when the drafter's config names none (or only
keys it does not read), from the target's depth N."""

MaskHidden = Literal[
    "parallel_drafting",  # required when parallel drafting is on, skipped (warned) otherwise
    "refused",  # an assertion in load_weights
    "no_parameter",  # no parameter of that name: the weight loader raises
    # P-EAGLE is built as the plain EAGLE-3 model whatever architectures says: nothing creates
    # mask_hidden (a shipped one is never read) and the worker drafts one token per step
    "as_eagle3",
    "",  # not judged here
]
"""What the loader does with a ``mask_hidden`` tensor (P-EAGLE's parallel-drafting input)."""

NullTargetHidden = Literal[
    "type_error",  # a present null is read as is: None * n_aux, a TypeError at build
    # the same, but for the MLA architectures (mla_architectures), whose model reads it with
    # `or hidden_size`: a null falls back there
    "type_error_unless_mla",
    "hidden_size",  # a null falls back to hidden_size
]
"""What a ``target_hidden_size: null`` in the drafter config does."""

MarkovHeadType = Literal[
    "ignored",  # the vanilla w1/w2 head is built whatever markov_head_type says
    "built",  # vanilla, gated or rnn is built as named; another name raises at build
    # the DFlash-lineage DSpark head set: markov_rank and markov_head_type resolved from
    # dspark_config, dflash_config, dspark_<key>, then the top level; only vanilla is built
    # (another type raises at build), its two tensors required, [V, r], when markov_rank > 0
    # and refused when it is 0 (a ValueError at load)
    "vanilla_checked",
    # no DSpark head at all: a drafter declaring any (projector_type 'dspark', shift_label,
    # use_confidence_head, markov_rank > 0, resolved as vanilla_checked does) is refused at build
    "refused",
    "",  # not judged here
]
"""How ``markov_head_type`` is read."""

UnservedArchitecture = Literal[
    "deepseek_v4",  # rewritten to the DeepSeek-V4 DSpark drafter, weights from the target
    "",  # not judged here
]
"""What the runtime does with a drafter whose architecture its loader does not serve."""

ArchitectureRename = Literal[
    "",  # the config's architectures name the class as they stand
    "eagle",  # vLLM's EAGLEConfig, method eagle: Eagle<arch> unless it starts with Eagle
    # method eagle3: Eagle3<arch> unless it starts or ends with Eagle3
    "eagle3",
    # method dflash: DFlash<arch> unless it starts or ends with DFlash, or is LiLiCorrDraftModel
    "dflash",
]
"""How the runtime renames a drafter config's architectures by the method it serves the
drafter with, before its model registry looks them up."""


# --- issue 25, task B: silent replacements (DSC670) ---------------------------------------
TiedHead = Literal[
    "",  # tie_word_embeddings is not read: the drafter's head is built and loaded as without it
    # a true tie_word_embeddings makes lm_head the drafter's embed_tokens module ([V, H], the
    # target's embedding where the runtime shares it): a shipped lm_head is never loaded
    "embedding",
    # as "embedding", but the head is the drafter's own embed_tokens as the checkpoint ships
    # it, tied before the runtime puts the target's embedding in the input's place (vLLM's
    # Gemma4MTP): its draft-width head, never the target's embedding
    "own_embedding",
    # as "embedding", but the build fails where the drafter has no embedding of its own
    # (shared with the target): the tie reads the missing module's attributes
    "embedding_or_refused",
]
"""What a true ``tie_word_embeddings`` in the drafter config does to its ``lm_head`` (read
with Python truthiness; a missing key is the config class default, False for the Llama and
Qwen3 configs drafters use)."""

DecoderLayer = Literal[
    "",  # the family's own decoder layer
    # DeepSeek-V2's (vLLM deepseek_v2.py DeepseekV2DecoderLayer): MLA attention (q_a_proj and
    # kv_a_proj_with_mqa fused where q_lora_rank is set, else q_proj), and from
    # first_k_dense_replace on a MoE MLP: the router gate (its e_score_correction_bias under
    # topk_method noaux_tc), shared experts, and n_routed_experts experts
    "deepseek_v2_moe",
    # the same layer, each numbered after the target's layers (vLLM deepseek_eagle.py: draft
    # layer i is built with the prefix layers.<the target's num_hidden_layers + i>): whether
    # it is MoE (first_k_dense_replace) is decided at that number; its weights are layers.i
    "deepseek_v2_after_target",
]
"""The decoder layer a variant architecture builds where it is not its family's."""

FirstQkvInput = Literal[
    "hidden_size",  # decoder layer 0's q/k/v take hidden_size, as every later layer's
    # EAGLE-3: layer 0's q/k/v (one QKVParallelLinear) take 2 * hidden_size, the embedding and
    # the target's hidden state concatenated; later layers take hidden_size
    "2_hidden_size",
]
"""The input width of decoder layer 0's q/k/v projections (and of a stored fused qkv_proj):
a stored weight of another width fails the load (the weight loader asserts the shape)."""
