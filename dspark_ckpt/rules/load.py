"""What a runtime's loader does with the drafter: its head, its embedding, its tensor
names, the config keys it reads, its mask token.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``, parameterised by a ``Profile``. A
finding's message says what the runtime will do (a load error and its message, an
index error at the first step, silent garbage); its hint is safe to follow.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import BIAS_TENSOR, D2T, EMBED, LM_HEAD, MASK_TENSOR, PADDED, T2D
from dspark_ckpt.facts.weight_files import WeightFile
from dspark_ckpt.profiles.registry import EAGLE3, Profile
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, rule
from dspark_ckpt.rules.repairs import (
    ASKS,
    SAFE,
    UNSAFE,
    Drop,
    Fix,
    Needs,
    NewConfig,
    Rename,
    SetKey,
    repair,
)
from dspark_ckpt.rules.vocab import reduced, reduced_text, write_draft_vocab_size
from dspark_ckpt.source.layout import NAME_PREFIXES


@rule(
    "DSC101",
    ERROR,
    "embed_tokens missing for an expanded input vocab",
    scope=PROFILE,
    hint="ship embed_tokens.weight [V, H] with the drafter",
)
def embed_missing(f: Facts, p: Profile) -> list[Finding]:
    """The drafter's vocab_size V is larger than the target's Vt, so the target's embedding cannot
    be shared: vLLM refuses to load a Qwen3 DSpark drafter whose input vocab_size is larger than the
    target vocabulary without embed_tokens."""
    if p.requires_embed_when_expanded and f.expanded_input_vocab and f.embed is None:
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
)
def lm_head_missing(f: Facts, p: Profile) -> list[Finding]:
    """The runtime treats this drafter's output vocab as reduced (under its rule, < or !=), so the
    full target lm_head cannot stand in for the drafter's: vLLM's DSpark loader refuses to load
    without it. vLLM's DFlash and EAGLE-3 loaders share the target's head instead and keep its first
    Vd logits: draft id i is scored with target token i's row, then proposed as target id i + d2t[i]
    (wrong proposals, no error); a padded drafter whose Vd exceeds the target head's rows fails at
    the first proposal."""
    if f.lm_head is not None or not reduced(f, p):
        return []
    if p.missing_lm_head == "refused":
        return [
            new_finding(
                "DSC102",
                f"{p.name} treats the draft vocab as reduced ({reduced_text(f, p)}) and "
                "refuses to load it without lm_head ('Reduced-vocabulary ... checkpoints must "
                "include lm_head weights; the full target lm_head cannot be shared')",
                tensor=LM_HEAD,
            )
        ]
    if p.missing_lm_head != "target":
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
    # where the draft vocab counts as reduced, DSC102 says it instead
    if f.lm_head is not None or p.missing_lm_head != "refused" or reduced(f, p):
        return []
    if f.classification != PADDED:
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
    hint="copy the key to the top level of config.json (`dspark-ckpt fix` does)",
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
                hint=f"copy {nested} to the top level of config.json (`dspark-ckpt fix` does)"
                if nested
                else f"write {key} at the top level of config.json (`dspark-ckpt fix --set "
                f"{key}=VALUE`): the value the drafter was trained with",
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
    if p.own_embed_kept and f.embed is not None and f.Vt > f.V:
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


def _unprefixed(name: str) -> str:
    prefix = max((x for x in NAME_PREFIXES if name.startswith(x)), key=len)
    return name[len(prefix) :]


@repair("strip-prefix", SAFE)
def strip_prefix(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """Tensor names under a wrapper prefix (model.lm_head.weight) are stored without it
    (lm_head.weight), their bytes unchanged. Not done where the plain name is taken."""
    renames = {name: _unprefixed(name) for name in f.prefixed}
    new = list(renames.values())
    if any(n in f.tensors for n in new) or len(set(new)) < len(new):
        return None
    return Fix(
        tuple(Rename(a, b) for a, b in renames.items()),
        f"store {len(renames)} tensor(s) without their wrapper prefix",
    )


@rule(
    "DSC111",
    ERROR,
    "tensor names under a wrapper prefix",
    scope=PROFILE,
    hint=(
        "rename the tensors without the wrapper prefix (lm_head.weight, d2t, embed_tokens.weight, "
        "layers.N....): `dspark-ckpt fix` does"
    ),
    repair=strip_prefix,
)
def wrapper_prefix(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's drafter loaders prepend 'model.' to every name but lm_head and d2t, and TensorRT-LLM
    loads names as stored with a strict state dict: a stored model.lm_head.weight, model.d2t or
    model.embed_tokens.weight is no parameter of theirs and fails the load ('There is no module or
    parameter named ...' / 'Unexpected key(s)')."""
    # names under a wrapper prefix are not the tensors a strict loader maps
    names = f.prefixed
    if p.prefixed_names != "rejected" or not names:
        return []
    how = (
        "loads names as stored with load_state_dict(strict=True): 'Unexpected key(s)'"
        if p.strict_names
        else "prepends 'model.' to every name but lm_head and d2t itself: its weight loader "
        "raises 'There is no module or parameter named ...'"
    )
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return [
        new_finding(
            "DSC111",
            f"{len(names)} tensor name(s) carry a wrapper prefix ({shown}): {p.runtime} {how}",
            f.tensors[names[0]],
        )
    ]


# the names a TensorRT-LLM Qwen3 DSpark drafter has (modeling_dspark_qwen3.py __init__)
_LAYER = re.compile(
    r"layers\.(\d+)\.(self_attn\.[qkvo]_proj\.weight|self_attn\.[qk]_norm\.weight|"
    r"mlp\.(gate|up|down)_proj\.weight|input_layernorm\.weight|post_attention_layernorm\.weight)"
)
_BACKBONE = {"fc.weight", "hidden_norm.weight", "norm.weight"}


def _expected_name(name: str, f: Facts) -> bool:
    raw = f.cfg.raw
    if name in _BACKBONE or name.startswith(("embed_tokens.", "lm_head.")):
        return True
    if m := _LAYER.fullmatch(name):
        layers = f.cfg.value("num_hidden_layers")
        return not isinstance(layers, int) or int(m.group(1)) < layers
    if name.startswith("markov_head."):
        rank = raw.get("markov_rank")
        if not isinstance(rank, int) or rank <= 0:
            return False
        kind = str(raw.get("markov_head_type", "vanilla")).lower()
        return kind != "vanilla" or name in (
            "markov_head.markov_w1.weight",
            "markov_head.markov_w2.weight",
        )
    if name in ("confidence_head.proj.weight", "confidence_head.proj.bias"):
        return raw.get("enable_confidence_head") is True
    return False


@repair("drop-unexpected", UNSAFE)
def drop_unexpected(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """The tensors a strict loader has no name for are dropped. Unsafe: another runtime may
    use them (a confidence head), or the config should enable them instead."""
    names = _unexpected(f, p) if p is not None else []
    if not names:
        return None
    return Fix(tuple(Drop(n) for n in names), f"drop {len(names)} tensor(s) the model lacks")


def _unexpected(f: Facts, p: Profile) -> list[str]:
    """The names a strict loader has no parameter for: d2t and t2d are DSC105's, names
    under a wrapper prefix DSC111's, a stray file's DSC620's (which names the file)."""
    stray = {n for w, why in loaded_strays(f, p) if why == FOREIGN for n in w.tensors or ()}
    skip = set(f.prefixed) | stray | {D2T, T2D}
    return [n for n in sorted(f.tensors) if not _expected_name(n, f) and n not in skip]


@rule(
    "DSC112",
    ERROR,
    "tensor the runtime's strict load rejects",
    scope=PROFILE,
    hint=(
        "drop the tensors the TensorRT-LLM model does not have, or enable them in the top level "
        "of config.json"
    ),
    repair=drop_unexpected,
)
def strict_load_rejects(f: Facts, p: Profile) -> list[Finding]:
    """TensorRT-LLM loads a Qwen3 DSpark drafter with load_state_dict(strict=True): any name its
    model lacks (mask_embedding, a confidence head the config does not enable at the top level, a
    Markov head without a top-level markov_rank, quantisation scales) is an 'Unexpected key(s)'
    error at load."""
    # TensorRT-LLM's strict state-dict load rejects every name its model lacks; d2t and
    # t2d are DSC105, names under a wrapper prefix DSC111
    if not p.strict_names:
        return []
    others = _unexpected(f, p)
    if not others:
        return []
    shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
    return [
        new_finding(
            "DSC112",
            f"{len(others)} tensor(s) the {p.runtime} model does not have ({shown}): "
            "load_state_dict(strict=True) raises 'Unexpected key(s)' (a confidence head "
            "or Markov head counts only when enable_confidence_head / markov_rank are set "
            "at the top level of config.json)",
            f.tensors[others[0]],
        )
    ]


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
)
def lm_head_never_loaded(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's EAGLE-3 loader creates an lm_head of draft_vocab_size rows whenever the config sets
    draft_vocab_size (and does not tie embeddings); its weight loader skips names it lacks and the
    worker only shares the target's embedding, so without an lm_head in the checkpoint the head
    stays uninitialised memory: acceptance rate zero, no error."""
    if (
        f.lm_head is not None
        or p.missing_lm_head != "uninitialised"
        or f.cfg.draft_vocab_size_defaulted
        or f.tied
    ):
        return []
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
    if p is None or p.lm_head_from_target != "no_draft_vocab_size":
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
    if f.lm_head is None:
        return []
    if p.lm_head_from_target == "always" and f.Vd != f.Vt:
        why = "always uses the target's lm_head"
        hint = (
            f"{p.name} never loads a drafter's own head: train the drafter against the "
            "target's head, or serve it where its own head is loaded"
        )
    elif (
        p.lm_head_from_target == "no_draft_vocab_size"
        and f.cfg.draft_vocab_size_defaulted
        and not f.tied
    ):
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


# the architecture of each speculators algorithm's native config: vLLM's translation
# (transformers_utils/configs/speculators/algos.py), EAGLE-3 under the name SGLang and vLLM
# both register (LlamaForCausalLMEagle3)
NATIVE_ARCHITECTURE = {
    "eagle3": "LlamaForCausalLMEagle3",
    "dflash": "DFlashDraftModel",
    "dspark": "Qwen3DSparkModel",
}
DSPARK_ARCHITECTURES = ("Qwen3DSparkModel", "Qwen3OmniDSparkModel")
DSPARK_KEYS = (
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


def native_config(raw: dict) -> dict | Needs | None:
    """A speculators-format config as the native config vLLM translates it into (its
    ``transformer_layer_config`` updated by the algorithm's fields); ``Needs`` where a key
    vLLM requires is missing (vLLM: a KeyError), None for an algorithm it has no
    translation for."""
    kind = raw.get("speculators_model_type")
    base = raw.get("transformer_layer_config")
    if kind not in NATIVE_ARCHITECTURE or not isinstance(base, dict):
        return None
    out = dict(base)
    for key in ("mask_token_id", "aux_hidden_state_layer_ids"):
        if kind != "eagle3" and key not in raw:
            return Needs(key, f"vLLM's {kind} translation requires it (a KeyError without it)")
    aux = raw.get("aux_hidden_state_layer_ids") or raw.get("eagle_aux_hidden_state_layer_ids")
    if kind == "eagle3":
        if out.get("model_type", "llama") not in ("llama", "qwen3"):
            return None  # vLLM: ValueError (Unsupported model_type)
        out["draft_vocab_size"] = raw.get("draft_vocab_size")
        if raw.get("target_hidden_size") is not None:
            out["target_hidden_size"] = raw["target_hidden_size"]
        out["norm_before_residual"] = raw.get("norm_before_residual", True)
        out["norm_before_fc"] = raw.get("norm_before_fc", False)
        out["fc_norm"] = raw.get("fc_norm", False)
        out["norm_output"] = raw.get("norm_output", False)
        eagle = {"norm_before_fc": out["norm_before_fc"]}
        if aux:
            out["eagle_aux_hidden_state_layer_ids"] = aux
            eagle["eagle_aux_hidden_state_layer_ids"] = aux  # where SGLang reads them
        out["eagle_config"] = eagle
    elif kind == "dflash":
        out["draft_vocab_size"] = raw.get("draft_vocab_size")
        if raw.get("target_hidden_size") is not None:
            out["target_hidden_size"] = raw["target_hidden_size"]
        out["eagle_aux_hidden_state_layer_ids"] = aux
        out["dflash_config"] = {
            "mask_token_id": raw["mask_token_id"],
            "target_layer_ids": [i - 1 for i in aux],
            "sample_from_anchor": raw.get("sample_from_anchor", False),
            "causal": not raw.get("sliding_window_non_causal", True),
        }
    else:
        archs = [a for a in raw.get("architectures") or [] if a in DSPARK_ARCHITECTURES]
        out["sample_from_anchor"] = raw.get("sample_from_anchor", False)
        out["dspark_bonus_anchor"] = not out["sample_from_anchor"]
        out["eagle_aux_hidden_state_layer_ids"] = aux
        out["target_layer_ids"] = [i - 1 for i in aux]
        out.update({k: raw[k] for k in DSPARK_KEYS if raw.get(k) is not None})
        out["architectures"] = archs or [NATIVE_ARCHITECTURE[kind]]
        return out
    out["architectures"] = [NATIVE_ARCHITECTURE[kind]]
    return {k: v for k, v in out.items() if v is not None}


@repair("native-config", SAFE)
def to_native_config(f: Facts, p: Profile | None, finding: Finding) -> Fix | Needs | None:
    """A speculators-format config is rewritten as the native config vLLM itself translates
    it into on load (the transformer layer config, with the algorithm's fields where the
    runtimes read them), for a runtime that reads no speculators format (SGLang,
    TensorRT-LLM). The weights do not change."""
    native = native_config(f.raw)
    if native is None or isinstance(native, Needs):
        return native
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
        "export an SGLang config: architectures [LlamaForCausalLMEagle3], the backbone sizes at "
        "the top level, draft_vocab_size, eagle_config: `dspark-ckpt fix` writes the native "
        "config vLLM translates it into"
    ),
    repair=to_native_config,
)
def config_format_unread(f: Facts, p: Profile) -> list[Finding]:
    """SGLang 0.5.23 has no translation for a speculators-format config (speculators_model_type,
    transformer_layer_config, no model_type): its EAGLE-3 loader reads only the
    LlamaForCausalLMEagle3 config format, its DFlash and DSpark loaders only configs with the
    backbone sizes at the top level and dflash_config. The drafter cannot be built from it, for
    any family."""
    # SGLang reads no speculators-format config, for any family
    if p.reads_speculators_format or not f.cfg.speculators_format:
        return []
    if p.family == EAGLE3:
        reads, hint = "the LlamaForCausalLMEagle3 config format", None
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
    P-EAGLE is not served) is refused at start-up."""
    if not p.architectures or any(a in p.architectures for a in f.cfg.architectures):
        return []
    named = ", ".join(f.cfg.architectures) or "none"
    return [
        new_finding(
            "DSC680",
            f"architectures [{named}]: {p.release} registers no such {p.family} drafter class "
            f"(it registers {', '.join(p.architectures)}): its model registry refuses the "
            "drafter at start-up ('Cannot find model module ... is not a registered model')",
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
    read: the head is then the target's and Vd = V."""
    if p.missing_draft_vocab_size != "attribute_error" or f.cfg.speculators_format:
        return []
    if "draft_vocab_size" in f.raw or f.tied:
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


_ATTN = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj")
_MLP = ("mlp.gate_proj", "mlp.up_proj", "mlp.down_proj")
_NORMS = ("input_layernorm", "post_attention_layernorm")
# a stored name -> the one the loader maps it to (SGLang's EAGLE-3 legacy names; DFlash's
# vendor aliases)
_EAGLE3_LEGACY = (
    ("midlayer", "layers.0"),
    ("aux_norm_low", "fc_norm.0"),
    ("aux_norm_mid", "fc_norm.1"),
    ("aux_norm_high", "fc_norm.2"),
)
_BLOCK_ALIASES = {
    "encoder.fc.weight": "fc.weight",
    "encoder.output_norm_enc.weight": "hidden_norm.weight",
}
# fused parameters a checkpoint may store instead of their parts
_FUSED = {
    "self_attn.q_proj": "self_attn.qkv_proj",
    "self_attn.k_proj": "self_attn.qkv_proj",
    "self_attn.v_proj": "self_attn.qkv_proj",
    "mlp.gate_proj": "mlp.gate_up_proj",
    "mlp.up_proj": "mlp.gate_up_proj",
}
# the tensors of each DSpark Markov head type beyond markov_w1 / markov_w2
MARKOV_EXTRA = {
    "vanilla": (),
    "gated": ("markov_head.gate_proj.weight", "markov_head.gate_proj.bias"),
    "rnn": ("markov_head.joint_proj.weight", "markov_head.joint_proj.bias"),
}
MARKOV_W = ("markov_head.markov_w1.weight", "markov_head.markov_w2.weight")


def _loaded_name(name: str, family: str) -> str:
    """A stored tensor name as the SGLang loader maps it to a parameter."""
    if family == EAGLE3:
        for legacy, new in _EAGLE3_LEGACY:
            if legacy in name:
                name = name.replace(legacy, new)
        return name.removeprefix("model.")
    name = name.removeprefix("model.")
    return _BLOCK_ALIASES.get(name, name)


def _markov_built(f: Facts) -> str | None:
    """The Markov head type the DSpark model builds: from the top-level keys only
    (config.markov_rank, config.markov_head_type, default vanilla); None: none built."""
    rank = f.raw.get("markov_rank")
    if type(rank) is not int or rank <= 0:
        return None
    return str(f.raw.get("markov_head_type", "vanilla")).lower()


def _built_tensors(f: Facts, p: Profile) -> list[str]:
    """The weights the runtime's drafter model builds and loads from the checkpoint (its
    embedding and head aside: DSC601 says a missing head, and the target's are shared)."""
    from dspark_ckpt.rules.shapes import _aux_count  # the fc count, as DSC210 resolves it

    raw, layers = f.raw, f.cfg.value("num_hidden_layers")
    layers = layers if type(layers) is int and layers > 0 else 0
    per_layer = [*_ATTN, *_MLP]
    if p.family == EAGLE3:
        names = ["fc.weight", "norm.weight"]
        if raw.get("bias"):  # fc = Linear(..., bias=config.bias)
            names.append("fc.bias")
        if next((v for k in p.norm_before_fc_keys if (v := f.cfg.value(k)) is not None), False):
            names.append("input_norm.weight")
        counted = _aux_count(f, p)
        if (raw.get("fc_norm") or raw.get("use_aux_norm")) and counted:
            names += [f"fc_norm.{i}.weight" for i in range(counted[0])]
        norms = (*_NORMS, "hidden_norm")
        own = raw.get("target_hidden_size", f.cfg.hidden_size)
        if own != f.cfg.hidden_size and raw.get("draft_vocab_size") is not None:
            names.append(EMBED)  # set_embed keeps the drafter's own embedding
    else:
        names = ["fc.weight", "hidden_norm.weight", "norm.weight"]
        per_layer += ["self_attn.q_norm", "self_attn.k_norm"]
        norms = _NORMS
        kind = _markov_built(f) if p.markov_head_types else None
        if kind in p.markov_head_types:
            names += [*MARKOV_W, *MARKOV_EXTRA.get(kind, ())]
    for i in range(layers):
        names += [f"layers.{i}.{part}.weight" for part in (*per_layer, *norms)]
    return names


def default_initialised(f: Facts, p: Profile) -> list[str]:
    """The weights a runtime whose loader checks nothing after loading (SGLang: its model
    builds them, ``load_weights`` fills what it is given) gets no tensor for: DSC652's
    SGLang half (``missing_tensors`` "default_init")."""
    if f.cfg.quantized or f.cfg.speculators_format:
        return []
    stored = {_loaded_name(n, p.family) for n in f.tensors}

    def missing(name: str) -> bool:
        if name in stored:
            return False
        layer = re.match(r"layers\.\d+\.", name)  # a fused q/k/v or gate/up counts
        fused = layer and _FUSED.get(name[layer.end() :].removesuffix(".weight"))
        return not (fused and f"{layer.group(0)}{fused}.weight" in stored)

    return [n for n in _built_tensors(f, p) if missing(n)]


def _parsed_markov(f: Facts, p: Profile) -> tuple[int, tuple[str, Any] | None, bool]:
    """(markov_rank, (key, markov_head_type) or None, whether the dspark_* keys are used) as
    SGLang's DSpark config parser reads them."""
    raw = f.raw
    prefixed = any(
        raw.get(k) is not None
        for k in (
            "dspark_block_size",
            "dspark_markov_rank",
            "dspark_noise_token_id",
            "dspark_target_layer_ids",
        )
    )
    rank = raw.get("dspark_markov_rank")
    if type(rank) is not int:
        rank = f.cfg.markov_rank or 0
    found = next(
        ((k, v) for k in p.markov_head_type_keys if (v := _raw_at(raw, k)[1]) is not None), None
    )
    return rank, found, prefixed


@rule(
    "DSC683",
    ERROR,
    "Markov head type missing or unsupported",
    scope=PROFILE,
    hint='set "markov_head_type": "vanilla" (or the head type the drafter was trained with)',
)
def markov_head_type_unread(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's DSpark config parser needs markov_head_type whenever markov_rank > 0 (read from the
    dspark_* keys, dspark_config / dflash_config, text_config or the top level), unless the config
    uses the dspark_* keys, and accepts only vanilla, gated and rnn: otherwise it refuses the
    drafter at start-up ('DSpark requires markov_head_type when markov_rank > 0')."""
    if not p.markov_head_type_keys:
        return []
    rank, found, prefixed = _parsed_markov(f, p)
    if found is None:
        if rank <= 0 or prefixed:
            return []
        return [
            new_finding(
                "DSC683",
                f"markov_rank is {rank} and no markov_head_type is set (read from "
                f"{', '.join(p.markov_head_type_keys)}): {p.release} refuses the drafter "
                "('DSpark requires markov_head_type when markov_rank > 0, got None')",
                tensor="markov_head_type",
            )
        ]
    key, kind = found
    if str(kind).lower() in p.markov_head_types:
        return []
    return [
        new_finding(
            "DSC683",
            f"{key} is {kind!r}: {p.release} supports {', '.join(p.markov_head_types)} and "
            "refuses the drafter ('Unsupported DSpark markov_head_type')",
            tensor=key,
        )
    ]


@rule(
    "DSC684",
    ERROR,
    "Markov head of another type than the model builds",
    scope=PROFILE,
    hint=(
        "set the top-level markov_head_type to the head the checkpoint holds (the model reads "
        "it there only)"
    ),
)
def markov_head_of_another_type(f: Facts, p: Profile) -> list[Finding]:
    """SGLang's DSpark model builds its Markov head from the top-level markov_head_type only
    (default vanilla), whatever the nested copy the config parser accepted says, and refuses any
    markov_head.* tensor that head lacks ('DSpark unexpected markov weight ... not found in model
    parameters'), or a head type it does not know ('Unsupported DSpark markov_head_type')."""
    if not p.markov_head_types or (built := _markov_built(f)) is None:
        return []
    if markov_head_type_unread(f, p):  # DSC683: the parser refuses it first
        return []
    if built not in p.markov_head_types:
        return [
            new_finding(
                "DSC684",
                f"the top-level markov_head_type is {json.dumps(f.raw.get('markov_head_type'))}: "
                f"{p.release}'s DSpark model builds its head from it and refuses it "
                "('Unsupported DSpark markov_head_type')",
                tensor="markov_head_type",
            )
        ]
    known = {*MARKOV_W, *MARKOV_EXTRA.get(built, ())}
    stored = sorted(n for n in f.tensors if n.startswith("markov_head."))
    other = [n for n in stored if n not in known]
    if not other:
        return []
    return [
        new_finding(
            "DSC684",
            f"{', '.join(other[:3])}: {p.release}'s DSpark model builds a {built} Markov head "
            "(from the top-level markov_head_type, default vanilla) and refuses a Markov "
            "weight it lacks ('DSpark unexpected markov weight ... not found in model "
            "parameters')",
            f.tensors[other[0]],
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


# --- stray weight files: loaded with the drafter's weights (DSC620, DSC621) ---------------

FOREIGN, UNREADABLE, BESIDE = "foreign", "unreadable", "beside"


def loaded_strays(f: Facts, p: Profile) -> list[tuple[WeightFile, str]]:
    """Each ``*.safetensors`` of the drafter's folder that ``p``'s loader reads although it
    is not the drafter's weights, with why: FOREIGN (it holds no drafter tensor, beside
    files that do), UNREADABLE (its header cannot be read), BESIDE (an index does not name
    it, and the loader reads it anyway with its drafter tensors)."""
    out = []
    for w in f.weight_files:
        if not w.listed and p.stray_files_loaded != "all":
            continue  # beside an index that does not name it: not read
        if w.tensors is None:
            out.append((w, UNREADABLE))
        elif w.tensors and not w.drafter_tensors:
            out.append((w, FOREIGN))
        elif not w.listed and w.drafter_tensors:
            out.append((w, BESIDE))
    return out


def _shown(names: tuple[str, ...]) -> str:
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _why_loaded(w: WeightFile, p: Profile) -> str:
    if not w.listed:
        return (
            f"model.safetensors.index.json does not name it, but {p.runtime} loads every "
            "*.safetensors of the folder, index or not"
        )
    if w.indexed:
        return f"model.safetensors.index.json names it, so {p.runtime} loads it"
    if p.stray_files_loaded == "all":
        return f"{p.runtime} loads every *.safetensors of the folder"
    return (
        f"the folder has no model.safetensors.index.json, so {p.runtime} loads every "
        "*.safetensors in it"
    )


def _own_output(w: WeightFile) -> str:
    ours = {MASK_TENSOR, BIAS_TENSOR} & set(w.tensors or ())
    if not ours:
        return ""
    return (
        " (the padded-row mask `dspark-ckpt fix --emit-mask` writes: a side file for the "
        "serving code, never a weight)"
    )


def _stray_finding(code: str, message: str, w: WeightFile, hint: str) -> Finding:
    names = w.foreign_tensors or w.drafter_tensors
    return replace(
        new_finding(code, message, tensor=names[0] if names else w.name, hint=hint),
        file=str(w.path),
    )


@rule(
    "DSC620",
    ERROR,
    "stray weight file loaded with the drafter",
    scope=PROFILE,
    hint="move the file out of the drafter's folder",
)
def stray_weight_file(f: Facts, p: Profile) -> list[Finding]:
    """A *.safetensors file beside the drafter's weights that is not one of them (the mask `fix
    --emit-mask` writes, a trainer's training_state.safetensors). vLLM and SGLang load every
    *.safetensors of a folder without model.safetensors.index.json, TensorRT-LLM every one even
    with an index. vLLM has no parameter for its names and raises 'There is no module or parameter
    named ...'; TensorRT-LLM's strict DSpark load raises 'Unexpected key(s)'. A file beside an
    index that TensorRT-LLM loads anyway with drafter tensors in it mixes them with the index's
    shards (a name in both: whichever file loads last wins), and one it cannot read fails the
    load."""
    out = []
    for w, why in loaded_strays(f, p):
        if why == FOREIGN and p.stray_names != "refused":
            continue  # skipped by the loader: DSC621
        loaded = _why_loaded(w, p)
        if why == FOREIGN:
            fails = (
                "load_state_dict(strict=True) raises 'Unexpected key(s)'"
                if p.strict_names
                else "its weight loader raises 'There is no module or parameter named ...'"
            )
            what = (
                f"{w.name} holds no tensor of the drafter ({_shown(w.foreign_tensors)})"
                f"{_own_output(w)}; {loaded}: it has no parameter for them and {fails}"
            )
        elif why == UNREADABLE:
            what = f"{w.name} cannot be read as safetensors; {loaded}: the load fails"
        else:
            what = (
                f"{w.name} holds drafter tensors ({_shown(w.drafter_tensors)}); {loaded}: "
                "they are loaded with the index's shards (a name in both: whichever file "
                "loads last wins)"
            )
        hint = f"move {w.name} out of the drafter's folder"
        if w.listed and w.indexed:
            hint = f"drop {w.name} from model.safetensors.index.json and the drafter's folder"
        elif w.listed and p.stray_files_loaded == "index_or_all":
            hint += " (or write a model.safetensors.index.json that names only the weight files)"
        out.append(_stray_finding("DSC620", what, w, hint))
    return out


@rule(
    "DSC621",
    INFO,
    "stray weight file loaded, its names skipped",
    scope=PROFILE,
    hint="move the file out of the drafter's folder",
)
def stray_weight_file_skipped(f: Facts, p: Profile) -> list[Finding]:
    """A *.safetensors file beside the drafter's weights that is not one of them is loaded (every
    *.safetensors of a folder without an index, or every one for TensorRT-LLM), and this runtime
    skips the names it has no parameter for (SGLang, TensorRT-LLM EAGLE-3): harmless here, read for
    nothing. vLLM refuses the same folder (DSC620)."""
    if p.stray_names != "skipped":
        return []
    return [
        _stray_finding(
            "DSC621",
            f"{w.name} holds no tensor of the drafter ({_shown(w.foreign_tensors)})"
            f"{_own_output(w)}; {_why_loaded(w, p)}, and it skips names it has no parameter "
            "for: read for nothing (vLLM refuses the load)",
            w,
            f"move {w.name} out of the drafter's folder",
        )
        for w, why in loaded_strays(f, p)
        if why == FOREIGN
    ]
