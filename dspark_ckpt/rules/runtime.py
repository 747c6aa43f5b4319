"""The load-time rules of one runtime release: every rule here is parameterised by a
``Profile`` (profiles.py) and reads only the ``Facts`` gathered up front (rules.py).

A finding's message says what the runtime will do (a load error and its message, an
index error at the first step, silent garbage); its hint is safe to follow.
"""

from __future__ import annotations

import re

from dspark_ckpt.profiles.registry import DSPARK, Profile
from dspark_ckpt.rules.common import (
    D2T,
    EMBED,
    LM_HEAD,
    PADDED,
    PRUNED,
    T2D,
    Facts,
    new_finding,
    rank_of,
    t2d_problem,
)
from dspark_ckpt.rules.findings import Finding
from dspark_ckpt.source.checkpoint import NAME_PREFIXES


def profile_findings(f: Facts, p: Profile) -> list[Finding]:
    """The load-time findings of one runtime: every rule below, parameterised by ``p``."""
    return [finding for rule in PROFILE_RULES for finding in rule(f, p)]


def _rule_text(f: Facts, p: Profile) -> str:
    other = ("V", f.V) if p.reduced_against == "vocab_size" else ("Vt", f.Vt)
    return f"Vd {p.reduced_when} {other[0]}: {f.Vd} {p.reduced_when} {other[1]}"


def _reduced(f: Facts, p: Profile) -> bool:
    return p.reduced(f.Vd, f.Vt, f.V)


def _tied(f: Facts) -> bool:
    return f.cfg.raw.get("tie_word_embeddings") is True


def _embed_rule(f: Facts, p: Profile) -> list[Finding]:
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


def _own_embed_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 4: an own embedding of V < Vt rows is kept, and target ids >= V overrun it."""
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


def _lm_head_rule(f: Facts, p: Profile) -> list[Finding]:
    if f.lm_head is not None:
        return []
    reduced = _reduced(f, p)
    if p.missing_lm_head == "refused" and reduced:
        return [
            new_finding(
                "DSC102",
                f"{p.name} treats the draft vocab as reduced ({_rule_text(f, p)}) and refuses "
                "to load it without lm_head ('Reduced-vocabulary ... checkpoints must include "
                "lm_head weights; the full target lm_head cannot be shared')",
                tensor=LM_HEAD,
            )
        ]
    if p.missing_lm_head == "refused" and f.classification == PADDED:
        return [
            new_finding(
                "DSC104",
                f"padded drafter (Vd {f.Vd} > Vt {f.Vt}) without lm_head: {p.name} shares the "
                "target head only when Vd == Vt, so the draft head stays uninitialised "
                "(acceptance rate zero, no error)",
                tensor=LM_HEAD,
            )
        ]
    if p.missing_lm_head == "target" and reduced:
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
                f"no lm_head and the draft vocab is reduced ({_rule_text(f, p)}): {p.name} "
                f"shares the target's lm_head {what}",
                tensor=LM_HEAD,
            )
        ]
    if (
        p.missing_lm_head == "uninitialised"
        and not f.cfg.draft_vocab_size_defaulted
        and not _tied(f)
    ):
        return [
            new_finding(
                "DSC601",
                f"no lm_head, yet draft_vocab_size {f.Vd} is set: {p.name} creates a "
                f"[{f.Vd}, H] head that nothing loads (uninitialised memory, no error)",
                tensor=LM_HEAD,
            )
        ]
    return []


def _head_replaced_rule(f: Facts, p: Profile) -> list[Finding]:
    if f.lm_head is None:
        return []
    if p.lm_head_from_target == "always" and f.Vd != f.Vt:
        why = "always uses the target's lm_head"
    elif (
        p.lm_head_from_target == "no_draft_vocab_size"
        and f.cfg.draft_vocab_size_defaulted
        and not _tied(f)
    ):
        why = "uses the target's lm_head because the config has no draft_vocab_size"
    else:
        return []
    return [
        new_finding(
            "DSC602",
            f"the drafter ships lm_head {list(f.lm_head.shape)} but {p.name} {why}: the "
            "trained head is ignored",
            f.lm_head,
        )
    ]


def _missing_d2t_rule(f: Facts, p: Profile) -> list[Finding]:
    if f.d2t is not None or p.missing_d2t == "unused":
        return []
    reduced = _reduced(f, p)
    how = {
        "error": f"{p.runtime} refuses to load it ('... must include a d2t mapping so sampled "
        "draft ids can be converted to target ids')",
        "zeros": f"{p.runtime} silently maps draft id i to target id i (an all-zero d2t)",
        "uninitialised": f"{p.runtime} creates an uninitialised int32 d2t [{f.Vd}] "
        "(torch.empty) that nothing loads: sampled ids map through garbage",
    }[p.missing_d2t]
    fires = reduced if p.missing_d2t != "zeros" else f.classification == PRUNED
    if not fires:
        return []
    if f.classification != PRUNED:  # the hint says what `fix --emit-d2t` (fix.plan_fix) does
        hint = (
            f"`dspark-ckpt fix --emit-d2t` writes the identity d2t (all zeros) {p.name} "
            "needs; profiles that create no d2t parameter here then refuse it (DSC105)"
        )
    elif (problem := t2d_problem(f)) is None:
        hint = "`dspark-ckpt fix --emit-d2t` derives d2t from the t2d this checkpoint has"
    else:
        hint = (
            f"ship the d2t the drafter was trained with: {problem}, so "
            "`dspark-ckpt fix --emit-d2t` refuses"
        )
    return [
        new_finding(
            "DSC103",
            f"no d2t mapping ({f.classification} drafter, {_rule_text(f, p)}): {how}",
            tensor=D2T,
            hint=hint,
        )
    ]


def _d2t_param_rule(f: Facts, p: Profile) -> list[Finding]:
    if p.d2t_param == "reduced" and f.d2t is not None and not _reduced(f, p):
        return [
            new_finding(
                "DSC105",
                f"d2t is present but {p.name} creates no draft_id_to_target_id parameter "
                f"for Vd {f.Vd} vs Vt {f.Vt} under its rule ({p.reduced_when}): the weight "
                "loader raises 'There is no module or parameter named ...'",
                f.d2t,
                hint=f"drop d2t for {p.name}: its map is the identity here (a padded drafter "
                "cannot satisfy both vllm and vllm-legacy with one checkpoint)",
            )
        ]
    return []


def _omni_rule(f: Facts, p: Profile) -> list[Finding]:
    if p.omni_vocab_check and f.target.is_omni and f.Vd > f.Vt:
        return [
            new_finding(
                "DSC106",
                f"draft_vocab_size {f.Vd} exceeds the Qwen3-Omni target's thinker vocab_size "
                f"{f.Vt}: {p.runtime} refuses it at config time",
                tensor="draft_vocab_size",
            )
        ]
    return []


def _draft_above_vocab_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 3: Vd > V is an index error inside the drafter at the first draft step."""
    if p.draft_vocab_above_vocab or f.Vd <= f.V:
        return []
    if p.family == DSPARK:
        how = (
            f"{p.runtime} feeds each sampled draft id back into markov_w1 ({f.V} rows) at "
            f"the next step: ids in [{f.V}, {f.Vd}) are an index error"
        )
    elif _reduced(f, p):
        how = (
            f"compute_logits scatters the {f.Vd} draft logits into a {f.V}-wide row at "
            "arange(Vd) + d2t: an index error at the first draft step"
        )
    else:
        how = (
            f"compute_logits asserts the {f.Vd} draft logits are vocab_size ({f.V}) wide: "
            "an assertion error at the first draft step"
        )
    return [
        new_finding(
            "DSC603",
            f"draft_vocab_size {f.Vd} > vocab_size {f.V}: {how}",
            tensor="draft_vocab_size",
        )
    ]


def _target_width_rule(f: Facts, p: Profile) -> list[Finding]:
    """TensorRT-LLM DSpark: the Markov bias [V] is added to the target head's logits."""
    width = f.target.embedding_rows  # the target head's rows: unknown without its weights
    if not p.vocab_is_target_width or width is None or width == f.V:
        return []
    what = f"the target's {f.target.embedding_tensor} rows"
    return [
        new_finding(
            "DSC605",
            f"vocab_size {f.V} differs from {what} ({width}): {p.runtime} adds a Markov bias "
            f"of {f.V} columns to the target head's {width} logits, a shape error at the "
            "first draft step",
            tensor="vocab_size",
        )
    ]


def _markov_w2_rule(f: Facts, p: Profile) -> list[Finding]:
    w2 = f.markov_w2
    if w2 is None or p.family != DSPARK:
        return []
    rows = f.Vd if p.markov_w2_rows == "draft_vocab_size" else f.V
    r = rank_of(f)
    if len(w2.shape) != 2 or w2.shape[0] != rows or (r and w2.shape[1] != r):
        return [
            new_finding(
                "DSC205",
                f"markov_w2 is {list(w2.shape)}; {p.name} expects "
                f"[{p.markov_w2_rows} {rows}, markov_rank {r or 'r'}] (a shape mismatch at load)",
                w2,
            )
        ]
    return []


def _mask_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 2: the mask id the runtime reads (its key order) is an input id, in [0, V)."""
    if not p.mask_token_keys:
        return []
    declared = dict(f.cfg.mask_tokens)
    key = next((k for k in p.mask_token_keys if k in declared), None)
    if key is None:
        if p.missing_mask_token != "error":
            return []
        return [
            new_finding(
                "DSC109",
                f"no mask token id: {p.runtime} reads {', '.join(p.mask_token_keys)} and "
                "refuses a DFlash/DSpark drafter without one",
                tensor=p.mask_token_keys[0],
            )
        ]
    mask_id = declared[key]
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


def _top_level_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 6: keys the runtime reads only at the top level of the config."""
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
                hint=f"copy {nested} to the top level of config.json (SpecForge ships a "
                "script that does this for serving)"
                if nested
                else None,
            )
        )
    return out


def _aux_count(f: Facts, p: Profile) -> tuple[int, str] | None:
    """n_aux and where it came from, resolved in the profile's key order."""
    for key in p.aux_layer_keys:
        value = f.cfg.value(key)
        if isinstance(value, list) and value:
            return len(value), f"len({key})"
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value, key
    if p.aux_default == "3":
        return 3, "the default 3"
    if p.aux_default == "num_hidden_layers":
        n = f.cfg.value("num_hidden_layers")
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return n, "num_hidden_layers"
    return None


def _fc_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 5: fc [H, n_aux * Ht] and input_norm [n_aux * Ht], as the runtime builds them."""
    h = f.cfg.hidden_size
    if not p.aux_layer_keys or h is None or (resolved := _aux_count(f, p)) is None:
        return []
    n, source = resolved
    ht = h
    if p.fc_input_hidden == "target_hidden_size":
        ht = f.cfg.value("target_hidden_size") or h
    width = n * ht
    out = []
    fc = f.fc
    packed = fc is not None and f.cfg.quantized and fc.dtype in ("U8", "I8")
    if fc is not None and not packed and fc.shape != (h, width):
        top = f.cfg.value("eagle_aux_hidden_state_layer_ids")
        note, hint = "", None
        if isinstance(top, list) and len(fc.shape) == 2 and fc.shape[1] == len(top) * ht:
            note = (
                f"; the config's top-level eagle_aux_hidden_state_layer_ids lists "
                f"{len(top)} layers, but the model does not count them"
            )
            hint = (
                f"set num_aux_hidden_states: {len(top)} in config.json, so the model "
                "builds fc for the hidden states the runner feeds"
            )
        out.append(
            new_finding(
                "DSC210",
                f"{fc.name} is {list(fc.shape)}; {p.runtime} builds fc for {n} target "
                f"hidden states ({source}) of width {ht}: [{h}, {width}], and the load "
                f"fails on the shape{note}",
                fc,
                hint=hint,
            )
        )
    norm = f.input_norm
    # vLLM/SGLang: eagle_config.norm_before_fc, else the top-level key
    norm_on = next((v for k in p.norm_before_fc_keys if (v := f.cfg.value(k)) is not None), False)
    if norm is not None and norm_on and norm.shape != (width,):
        out.append(
            new_finding(
                "DSC211",
                f"{norm.name} is {list(norm.shape)}; with norm_before_fc {p.runtime} builds "
                f"input_norm [{width}] ({n} x {ht}): the load fails on the shape",
                norm,
            )
        )
    return out


def _prefix_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 7: names under a wrapper prefix are not the tensors a strict loader maps."""
    if p.prefixed_names != "rejected":
        return []
    prefixes = tuple(x for x in NAME_PREFIXES if x)
    names = sorted(n for n in f.ckpt.tensors if n.startswith(prefixes))
    if not names:
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
            f.ckpt.tensors[names[0]],
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


def _strict_rule(f: Facts, p: Profile) -> list[Finding]:
    """Point 10: TensorRT-LLM's strict state-dict load rejects every name its model lacks."""
    if not p.strict_names:
        return []
    out = []
    rejected = [n for n in sorted(f.ckpt.tensors) if not _expected_name(n, f)]
    for role in (D2T, T2D):
        if (info := f.ckpt.tensors.get(role)) is not None:
            out.append(
                new_finding(
                    "DSC105",
                    f"{role} is present but {p.name} loads the drafter with a strict state "
                    "dict that has no such key: load_state_dict raises 'Unexpected key(s)'",
                    info,
                    hint=f"drop d2t and t2d for {p.runtime}: it uses the target's head, "
                    "whose ids are target ids",
                )
            )
    others = [
        n
        for n in rejected
        if n not in (D2T, T2D) and not n.startswith(tuple(x for x in NAME_PREFIXES if x))
    ]
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        out.append(
            new_finding(
                "DSC112",
                f"{len(others)} tensor(s) the {p.runtime} model does not have ({shown}): "
                "load_state_dict(strict=True) raises 'Unexpected key(s)' (a confidence head "
                "or Markov head counts only when enable_confidence_head / markov_rank are set "
                "at the top level of config.json)",
                f.ckpt.tensors[others[0]],
            )
        )
    return out


def _format_rule(f: Facts, p: Profile) -> list[Finding]:
    """SGLang reads no speculators-format config."""
    if p.reads_speculators_format or not f.cfg.speculators_format:
        return []
    return [
        new_finding(
            "DSC604",
            f"this is a speculators-format config (speculators_model_type): {p.release} "
            "reads only the LlamaForCausalLMEagle3 config format and cannot build the "
            "drafter from it",
            tensor="speculators_model_type",
        )
    ]


PROFILE_RULES = (
    _format_rule,
    _top_level_rule,
    _embed_rule,
    _own_embed_rule,
    _lm_head_rule,
    _missing_d2t_rule,
    _d2t_param_rule,
    _omni_rule,
    _markov_w2_rule,
    _head_replaced_rule,
    _draft_above_vocab_rule,
    _target_width_rule,
    _mask_rule,
    _fc_rule,
    _prefix_rule,
    _strict_rule,
)
