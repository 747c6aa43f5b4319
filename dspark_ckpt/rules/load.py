"""What a runtime's loader does with the drafter: its head, its embedding, its tensor
names, the config keys it reads, its mask token.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``, parameterised by a ``Profile``. A
finding's message says what the runtime will do (a load error and its message, an
index error at the first step, silent garbage); its hint is safe to follow.
"""

from __future__ import annotations

from typing import Any

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import EMBED, LM_HEAD
from dspark_ckpt.loader.heads import REFUSED, SHIPPED, TARGET, UNINITIALISED, heads
from dspark_ckpt.loader.view import architecture, architectures, native_config, written_names_judged
from dspark_ckpt.profiles.registry import EAGLE3, Profile
from dspark_ckpt.rules.findings import ERROR, WARNING, Finding, new_finding
from dspark_ckpt.rules.materialise import copy_target_embedding, copy_target_head
from dspark_ckpt.rules.registry import PROFILE, rule
from dspark_ckpt.rules.repairs import (
    ASKS,
    SAFE,
    Fix,
    Needs,
    NewConfig,
    SetKey,
    fix_command,
    repair,
)
from dspark_ckpt.rules.vocab import reduced, reduced_text, write_draft_vocab_size


@rule(
    "DSC101",
    ERROR,
    "embed_tokens missing for an expanded input vocab",
    scope=PROFILE,
    hint="ship embed_tokens.weight [V, H] with the drafter",
    repair=copy_target_embedding,
)
def embed_missing(f: Facts, p: Profile) -> list[Finding]:
    """The drafter's vocab_size V is larger than the target's Vt, so the target's embedding cannot
    be shared: vLLM refuses to load a Qwen3 DSpark drafter whose input vocab_size is larger than the
    target vocabulary without embed_tokens."""
    if heads(f, p).embed_source.source == REFUSED:  # the loader model decides (loader/heads.py)
        return [
            new_finding(
                "DSC101",
                f"input vocab_size {f.V} is larger than the target's {f.Vt} and the "
                f"drafter has no embed_tokens: {p.runtime} refuses to load it ('... whose "
                "input vocab_size is larger than the target vocabulary must include "
                "embed_tokens weights')",
                tensor=EMBED,
            )
        ]
    return []


@rule(
    "DSC102",
    ERROR,
    "lm_head missing for a reduced vocab",
    scope=PROFILE,
    hint="ship lm_head.weight [Vd, H] with the drafter",
    repair=copy_target_head,
)
def lm_head_missing(f: Facts, p: Profile) -> list[Finding]:
    """The runtime treats this drafter's output vocab as reduced (under its rule, < or !=), so the
    full target lm_head cannot stand in for the drafter's: vLLM's DSpark loader refuses to load
    without it. vLLM's DFlash and EAGLE-3 loaders share the target's head instead and keep its first
    Vd logits: draft id i is scored with target token i's row, then proposed as target id i + d2t[i]
    (wrong proposals, no error); a padded drafter whose Vd exceeds the target head's rows fails at
    the first proposal."""
    head = heads(f, p).head_source  # the loader model decides (loader/heads.py)
    if head.field != "missing_lm_head":
        return []
    if head.source == REFUSED:
        return [
            new_finding(
                "DSC102",
                f"{p.name} treats the draft vocab as reduced ({reduced_text(f, p)}) and "
                "refuses to load it without lm_head ('Reduced-vocabulary ... checkpoints must "
                "include lm_head weights; the full target lm_head cannot be shared')",
                tensor=LM_HEAD,
            )
        ]
    if head.source != TARGET or head.value != "target" or not reduced(f, p):
        return []
    et = f.target.embedding_rows
    if f.Vd > f.Vt and et is not None and et < f.Vd:
        what = (
            f"its {et} rows give {et} logits for a {f.Vd}-wide scatter: a shape error "
            "at the first proposal"
        )
    else:
        what = (
            f"and keeps its first {f.Vd} logits: draft id i is scored with target "
            "token i's row, then proposed as target id i + d2t[i]. No error; the "
            "proposals are wrong and acceptance collapses"
        )
    return [
        new_finding(
            "DSC102",
            f"no lm_head and the draft vocab is reduced ({reduced_text(f, p)}): {p.name} "
            f"shares the target's lm_head {what}",
            tensor=LM_HEAD,
        )
    ]


@rule(
    "DSC104",
    ERROR,
    "padded drafter without lm_head: uninitialised head",
    scope=PROFILE,
    hint="ship lm_head.weight [Vd, H] with the drafter",
)
def padded_lm_head_missing(f: Facts, p: Profile) -> list[Finding]:
    """Vd > Vt and no lm_head: vLLM shares the target head only when Vd == Vt, raises nothing, and
    the draft head stays uninitialised memory: acceptance rate zero with no error."""
    # where the draft vocab counts as reduced, the load is refused (DSC102)
    head = heads(f, p).head_source
    if head.source != UNINITIALISED or head.value != "refused":
        return []
    return [
        new_finding(
            "DSC104",
            f"padded drafter (Vd {f.Vd} > Vt {f.Vt}) without lm_head: {p.name} shares the "
            "target head only when Vd == Vt, so the draft head stays uninitialised "
            "(acceptance rate zero, no error)",
            tensor=LM_HEAD,
        )
    ]


@repair("move-key", SAFE)
def move_key(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """A key the runtime reads at the top level of config.json, found only nested
    (dflash_config.markov_rank), is copied to the top level with its value; the nested copy
    stays for the tools that read it there."""
    nested = finding.tensor
    if not nested or "." not in nested:
        return None  # missing altogether: nothing to copy
    key = nested.rsplit(".", 1)[1]
    value = f.cfg.value(nested)
    return Fix((SetKey(key, value),), f"copy {nested} ({value!r}) to the top-level {key}")


@rule(
    "DSC107",
    ERROR,
    "config key missing where the runtime reads it",
    scope=PROFILE,
    hint=f"copy the key to the top level of config.json ({fix_command()} does)",
    repair=move_key,
)
def key_not_top_level(f: Facts, p: Profile) -> list[Finding]:
    """The runtime reads this key at the top level of the drafter's config.json (vLLM and SGLang:
    config.markov_rank; TensorRT-LLM also config.target_layer_ids). SpecForge's training configs
    nest them under dflash_config, where nothing reads them: the drafter fails to build (no Markov
    head, no captured layers)."""
    # keys the runtime reads only at the top level of the config
    out = []
    for key in p.top_level_keys:
        if f.cfg.raw.get(key) is not None:
            continue
        nested = f.cfg.nested_copy(key)
        where = f"only nested as {nested}" if nested else "missing"
        out.append(
            new_finding(
                "DSC107",
                f"{key} is {where}: {p.runtime} reads config.{key} at the top level of "
                "config.json and cannot build the drafter without it",
                tensor=nested or key,
                hint=f"copy {nested} to the top level of config.json ({fix_command()} does)"
                if nested
                else f"write {key} at the top level of config.json ({fix_command(key=key)}): "
                "the value the drafter was trained with",
            )
        )
    return out


def _raw_at(raw: dict, dotted: str) -> tuple[bool, Any]:
    """(present, value) of a dotted key of the raw config."""
    node: Any = raw
    *nests, leaf = dotted.split(".")
    for part in nests:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or leaf not in node:
        return False, None
    return True, node[leaf]


def _null_mask_key(f: Facts, p: Profile) -> str | None:
    """The key whose present null ends the runtime's search for a mask id, else None."""
    for key in p.mask_token_keys:
        present, value = _raw_at(f.raw, key)
        if present and value is not None:
            return None
        if present and key in p.mask_token_null_stops:
            return key
    return None


def _mask_token(f: Facts, p: Profile) -> tuple[str, int] | None:
    """The mask token id the runtime reads (its key order) and its key; None if none
    (a present null at a key of ``mask_token_null_stops`` ends the search)."""
    declared = dict(f.cfg.mask_tokens)
    for key in p.mask_token_keys:
        if key in declared:
            return key, declared[key]
        present, value = _raw_at(f.raw, key)
        if type(value) is int:  # a key the config parser does not read (text_config.)
            return key, value
        if present and value is None and key in p.mask_token_null_stops:
            return None
    return None


@repair("set-mask-token", ASKS)
def needs_mask_token(f: Facts, p: Profile | None, finding: Finding) -> Needs | None:
    """The mask token id is the drafter's own training choice: never guessed. ``fix --set
    KEY=VALUE`` writes it (the plan then checks it against the input vocab)."""
    if p is None or not p.mask_token_keys:
        return None
    return Needs(p.mask_token_keys[0], "the mask token id the drafter was trained with")


@rule(
    "DSC109",
    ERROR,
    "mask token id missing",
    scope=PROFILE,
    hint=(
        "set the mask token id the drafter was trained with (SpecForge: "
        "dflash_config.mask_token_id)"
    ),
    repair=needs_mask_token,
)
def mask_token_missing(f: Facts, p: Profile) -> list[Finding]:
    """DFlash and DSpark drafters feed a mask (noise) token id as an input id. vLLM reads
    dflash_config.mask_token_id, mask_token_id, dspark_noise_token_id, pard_token, ptd_token_id in
    that order and its proposer raises when none is set; SGLang's DSpark refuses a config without
    mask_token_id."""
    if not p.mask_token_keys or p.missing_mask_token != "error" or _mask_token(f, p):
        return []
    null = _null_mask_key(f, p)
    what = f"{null} is null, and {p.runtime} takes it as set" if null else "no mask token id"
    return [
        new_finding(
            "DSC109",
            f"{what}: {p.runtime} reads {', '.join(p.mask_token_keys)} and "
            "refuses a DFlash/DSpark drafter without one",
            tensor=null or p.mask_token_keys[0],
        )
    ]


@rule(
    "DSC110",
    ERROR,
    "own embed_tokens smaller than the target vocab",
    scope=PROFILE,
    hint=(
        "export embed_tokens with a row for every target id ([Vt, H]), or drop it so the target's "
        "embedding is shared (what SGLang and TensorRT-LLM do anyway)"
    ),
)
def own_embed_too_small(f: Facts, p: Profile) -> list[Finding]:
    """The drafter ships embed_tokens with V < Vt rows. vLLM keeps a drafter's own embedding when
    its shape differs from the target's, and the drafter is fed target token ids: any id in [V, Vt)
    indexes past its end (an index error, a device-side assert on GPU)."""
    # an own embedding of V < Vt rows is kept, and target ids >= V overrun it
    embed = heads(f, p).embed_source
    if embed.source == SHIPPED and embed.field == "own_embed_kept" and f.Vt > f.V:
        return [
            new_finding(
                "DSC110",
                f"{f.embed.name} has {f.V} rows but the target's vocab is {f.Vt}: "
                f"{p.runtime} keeps the drafter's own embedding (its shape differs from the "
                f"target's) and feeds it target token ids: the first id in [{f.V}, {f.Vt}) "
                "is an index error (a device-side assert on GPU)",
                f.embed,
            )
        ]
    return []


@rule(
    "DSC208",
    ERROR,
    "mask token id outside the range the runtime allows",
    scope=PROFILE,
    hint="set the mask token id the drafter was trained with: an id of the drafter's input "
    "vocab, and where the runtime embeds it with the target's embedding, a target token",
)
def mask_token_outside_vocab(f: Facts, p: Profile) -> list[Finding]:
    """The mask/noise token id is an input id. Where the drafter embeds it (vLLM, TensorRT-LLM)
    it must lie in [0, V) with V the drafter's vocab_size (not [0, Vd): a pruned Qwen3 drafter
    with Vd 32000 and mask id 151669 is valid); vLLM checks this at config time for Qwen3-Omni
    targets, elsewhere the lookup indexes out of range. SGLang embeds it with the target's
    embedding and refuses at start-up an id outside the target's vocab: DFlash bounds it by the
    target's vocab_size, DSpark by the target's padded_vocab_size when its config declares one
    (Inkling: 201024 over 200058), else its vocab_size; a negative id is refused by both config
    parsers."""
    if not p.mask_token_keys or (found := _mask_token(f, p)) is None:
        return []
    key, mask_id = found
    if p.mask_token_bound != "vocab_size":
        return _outside_target(f, p, key, mask_id)
    key, mask_id = found
    if 0 <= mask_id < f.V:
        return []
    return [
        new_finding(
            "DSC208",
            f"{key} {mask_id} (the mask id {p.runtime} reads) is outside the input vocab "
            f"[0, {f.V}): its embedding lookup indexes out of range",
            tensor=key,
        )
    ]


@rule(
    "DSC601",
    ERROR,
    "lm_head missing and never loaded: uninitialised head",
    scope=PROFILE,
    hint="ship lm_head.weight [Vd, H], or drop draft_vocab_size so SGLang uses the target's head",
    repair=copy_target_head,
)
def lm_head_never_loaded(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's EAGLE-3 loader creates an lm_head of draft_vocab_size rows whenever the config sets
    draft_vocab_size (and does not tie embeddings); its weight loader skips names it lacks and the
    worker only shares the target's embedding, so without an lm_head in the checkpoint the head
    stays uninitialised memory: acceptance rate zero, no error. vLLM's Gemma 4 DSpark model
    builds its own lm_head and takes the target's in its place only when Vd == Vt: otherwise,
    without an lm_head in the checkpoint, the same."""
    head = heads(f, p).head_source
    if head.source != UNINITIALISED or head.value not in ("uninitialised", "unshared"):
        return []
    if head.value == "unshared":
        return [
            new_finding(
                "DSC601",
                f"no lm_head and Vd {f.Vd} is not Vt {f.Vt}: {p.name} takes the target's "
                "head only when they are equal, and its own stays uninitialised (no error)",
                tensor=LM_HEAD,
                hint="ship the drafter's lm_head.weight, or serve a full-vocab draft (Vd == Vt)",
            )
        ]
    return [
        new_finding(
            "DSC601",
            f"no lm_head, yet draft_vocab_size {f.Vd} is set: {p.name} creates a "
            f"[{f.Vd}, H] head that nothing loads (uninitialised memory, no error)",
            tensor=LM_HEAD,
        )
    ]


@repair("write-draft-vocab-size", SAFE)
def keep_own_head(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """Where the runtime takes the target's head for want of draft_vocab_size, writing it
    (the shipped head's rows) makes it load the drafter's own head."""
    if p is None or heads(f, p).head_source.value != "no_draft_vocab_size":
        return None
    return write_draft_vocab_size.plan(f, p, finding)


@rule(
    "DSC602",
    WARNING,
    "shipped lm_head replaced by the target's",
    scope=PROFILE,
    hint=(
        "where the runtime always takes the target's head, train the drafter against that "
        "head; where it does so for want of draft_vocab_size, write draft_vocab_size"
    ),
    repair=keep_own_head,
)
def lm_head_replaced(f: Facts, p: Profile) -> list[Finding]:
    """The runtime takes the draft head from the target: TensorRT-LLM's Qwen3 DSpark loader and
    SGLang's DSpark and DFlash loaders always do (they skip lm_head.*), SGLang's EAGLE-3 loader
    does when the config has no draft_vocab_size. The lm_head trained with the drafter is
    ignored, so the drafter proposes from a head it was not trained with."""
    head = heads(f, p).head_source
    if f.lm_head is None or head.source != TARGET or head.field != "lm_head_from_target":
        return []
    if head.value == "always" and f.Vd != f.Vt:
        why = "always uses the target's lm_head"
        hint = (
            f"{p.name} never loads a drafter's own head: train the drafter against the "
            "target's head, or serve it where its own head is loaded"
        )
    elif head.value == "no_draft_vocab_size":
        why = "uses the target's lm_head because the config has no draft_vocab_size"
        hint = (
            f"write draft_vocab_size: {f.lm_head.shape[0]} (the shipped head's rows) in "
            f"config.json, so that {p.name} loads the drafter's own head"
        )
    else:
        return []
    return [
        new_finding(
            "DSC602",
            f"the drafter ships lm_head {list(f.lm_head.shape)} but {p.name} {why}: the "
            "trained head is ignored",
            f.lm_head,
            hint=hint,
        )
    ]


@repair("native-config", SAFE)
def to_native_config(f: Facts, p: Profile | None, finding: Finding) -> Fix | Needs | None:
    """A speculators-format config is rewritten as the native config vLLM itself translates
    it into on load (the transformer layer config, with the algorithm's fields where the
    runtimes read them), for a runtime that reads no speculators format (SGLang,
    TensorRT-LLM). The weights do not change."""
    native = native_config(f.raw)
    if isinstance(native, tuple):
        return Needs(*native)
    if native is None:
        return None
    kind = f.raw["speculators_model_type"]
    return Fix(
        (NewConfig(native, f"the native {kind} config vLLM translates it into"),),
        f"rewrite the speculators-format config as the native {kind} config "
        f"({native['architectures'][0]})",
    )


@rule(
    "DSC604",
    ERROR,
    "config format the runtime does not read",
    scope=PROFILE,
    hint=(
        "export a native config (the backbone sizes and model_type at the top level, "
        "draft_vocab_size, the algorithm's keys): `dspark-ckpt fix DRAFTER --target T --out DIR` "
        "writes it, the weights unchanged"
    ),
    repair=to_native_config,
)
def config_format_unread(f: Facts, p: Profile) -> list[Finding]:
    """SGLang 0.5.23 and TensorRT-LLM have no translation for a speculators-format config
    (speculators_model_type, transformer_layer_config, no model_type). SGLang's EAGLE-3 loader
    reads only the LlamaForCausalLMEagle3 config format, its DFlash and DSpark loaders only
    configs with the backbone sizes at the top level and dflash_config; TensorRT-LLM picks the
    config class by model_type (else AutoConfig) and reads the top-level attributes, and nothing
    there reads speculators_model_type or transformer_layer_config. The drafter cannot be built
    from it, for any family."""
    # SGLang and TensorRT-LLM read no speculators-format config, for any family
    if p.reads_speculators_format or not f.cfg.speculators_format:
        return []
    if p.family == EAGLE3:
        reads = (
            "the LlamaForCausalLMEagle3 config format"
            if p.runtime == "SGLang"
            else "configs with a model_type and the backbone sizes at the top level"
        )
        hint = None
    else:
        reads = (
            "configs whose top level holds the backbone sizes and a model_type, with "
            "dflash_config (DFlashDraftModel / DSparkDraftModel, SpecForge's format)"
        )
        hint = (
            "export a SpecForge-format config: the transformer_layer_config keys at the top "
            "level with its model_type, architectures [DFlashDraftModel] or "
            "[DSparkDraftModel], dflash_config.target_layer_ids and mask_token_id"
        )
    return [
        new_finding(
            "DSC604",
            f"this is a speculators-format config (speculators_model_type): {p.release} "
            f"has no translation for it and reads only {reads}: it cannot build the "
            "drafter from it",
            tensor="speculators_model_type",
            hint=hint,
        )
    ]


# --- SGLang 0.5.23 as it is (issue 18) --------------------------------------------------


@rule(
    "DSC680",
    ERROR,
    "drafter class not registered",
    scope=PROFILE,
    hint="export the drafter for a class the runtime registers, or serve it where its class is",
)
def architecture_not_registered(f: Facts, p: Profile) -> list[Finding]:
    """SGLang builds the drafter from the class config.json's architectures names, looked up in its
    model registry (each model file's EntryClass). A name it does not register goes to the
    transformers fallback, which has no drafter classes: 'Cannot find model module ... is not a
    registered model'. A drafter exported under another runtime's or producer's class name
    (vLLM's Qwen3DSparkForCausalLM, speculators' Eagle3DraftModel, SpecForge's PEagleDraftModel:
    P-EAGLE is not served) is refused at start-up. A target model's own class (LlamaForCausalLM,
    as the EAGLE authors publish their drafters) is registered: SGLang builds that plain model,
    whose load_weights skips every name it lacks (models/llama.py ``if name in params_dict``),
    so no draft layer or fc is loaded and it drafts garbage. vLLM renames the class by the
    method first (``Profile.architecture_rename``): LlamaForCausalLM is EagleLlamaForCausalLM,
    and under EAGLE-3 Qwen2ForCausalLM is Eagle3Qwen2ForCausalLM, which vLLM does not register
    ('Model architectures [...] are not supported for now'). A config whose class the runtime
    names itself is not judged by the names written (``written_names_judged``)."""
    looked_up = architectures(f, p)  # as the runtime renames them by the method
    judged = p.architectures and written_names_judged(f, p)  # else the runtime names it
    if not judged or any(a in p.architectures for a in looked_up):
        return []
    named = ", ".join(f.cfg.architectures) or "none"
    if looked_up != f.cfg.architectures:
        named += f", looked up as {', '.join(looked_up)}"
    refused = (  # vLLM's registry, else SGLang's transformers fallback
        "'Model architectures [...] are not supported for now')"
        if p.architecture_rename
        else "'Cannot find model module ... is not a registered model'); or, for a target "
        "model's class it registers, builds that plain model, which loads none of the "
        "drafter's own layers and drafts garbage"
    )
    return [
        new_finding(
            "DSC680",
            f"architectures [{named}]: {p.release} registers no such {p.family} drafter class "
            f"(it registers {', '.join(p.architectures)}): its model registry refuses the "
            f"drafter at start-up ({refused}",
            tensor="architectures",
            hint=f"{p.name} serves {p.family} drafters of the classes it registers: export "
            f"this one as {p.architectures[0]} if it has that layout, or serve it on a "
            "runtime that registers its class",
        )
    ]


@rule(
    "DSC681",
    ERROR,
    "draft_vocab_size key missing where the loader reads it",
    scope=PROFILE,
    hint='write "draft_vocab_size": null in config.json (the target\'s head is used)',
)
def draft_vocab_size_key_missing(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's EAGLE-3 loader reads config.draft_vocab_size as an attribute whenever the
    embeddings are not tied: a config.json without the key fails to build the drafter with an
    AttributeError ('LlamaConfig' object has no attribute 'draft_vocab_size'). An explicit null is
    read: the head is then the target's and Vd = V. Its EAGLE-3 over DeepSeek MLA
    (``mla_architectures``, kimi_k25_eagle3.py) reads the key with a default: no error."""
    if p.missing_draft_vocab_size != "attribute_error" or f.cfg.speculators_format:
        return []
    if "draft_vocab_size" in f.raw or heads(f, p).head_source.field == "tied_head":
        return []
    if architecture(f, p) in p.mla_architectures:  # getattr(config, "draft_vocab_size", None)
        return []
    if f.lm_head is not None and len(f.lm_head.shape) == 2:
        hint = (
            f'write "draft_vocab_size": {f.lm_head.shape[0]} (the shipped head\'s rows) in '
            "config.json, so that the drafter's own head is loaded"
        )
    else:
        hint = 'write "draft_vocab_size": null in config.json: the target\'s head is used'
    return [
        new_finding(
            "DSC681",
            f"config.json has no draft_vocab_size key: {p.release} reads "
            "config.draft_vocab_size (embeddings not tied) and fails to build the drafter "
            "with AttributeError ('LlamaConfig' object has no attribute 'draft_vocab_size')",
            tensor="draft_vocab_size",
            hint=hint,
        )
    ]


def _outside_target(f: Facts, p: Profile, key: str, mask_id: int) -> list[Finding]:
    """DSC208 where the runtime bounds the mask id by the target's (padded) vocab."""
    model = f.target.model
    padded = model.padded_vocab_size if model else None
    if p.mask_token_bound == "target_padded_vocab" and padded:
        bound, what = padded, "padded_vocab_size"
    else:
        bound, what = f.Vt, "vocab_size"
    if 0 <= mask_id < bound:
        return []
    if mask_id < 0:
        refused = "its config parser refuses it ('mask_token_id must be non-negative')"
    else:
        refused = "refuses it at start-up ('mask_token_id ... is outside the target vocab size')"
    return [
        new_finding(
            "DSC208",
            f"{key} {mask_id} (the mask id {p.runtime} reads) is outside the target's vocab "
            f"[0, {bound}) (its {what}): {p.release} {refused}",
            tensor=key,
        )
    ]
