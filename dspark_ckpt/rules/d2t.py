"""The draft-to-target map: ``d2t`` (``target_id = draft_id + d2t[draft_id]``) and its
companion ``t2d``, the membership mask over the target vocab.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``: ``d2t_values`` (read when the
layout is one runtimes load) and ``t2d_selected``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from operator import lt

from dspark_ckpt.facts.gather import Facts, t2d_problem
from dspark_ckpt.facts.known_vocabs import (
    known_at_least,
    other_family,
    same_tokenizer,
    vocab_family,
)
from dspark_ckpt.facts.tokenizer import SAME
from dspark_ckpt.facts.vocab import (
    D2T,
    PADDED,
    PRUNED,
    T2D,
    d2t_layout_problem,
    same,
    t2d_disagreement,
    t2d_layout_problem,
)
from dspark_ckpt.loader.heads import SHIPPED, heads
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import ERROR, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import COMMON, PROFILE, rule
from dspark_ckpt.rules.repairs import (
    SAFE,
    UNSAFE,
    Drop,
    Fix,
    Put,
    emit_command,
    fix_command,
    repair,
)
from dspark_ckpt.rules.vocab import reduced, reduced_text


@repair("add-d2t", SAFE)
def add_d2t(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """A missing d2t is written: derived from t2d for a pruned drafter (d2t[i] =
    nonzero(t2d)[i] - i, when t2d is BOOL [Vt] and selects exactly Vd ids), the identity
    (all zeros) for an equal one. A pruned drafter with no usable t2d is not repaired: no
    map can be invented. A padded one waits for trim-padding (DSC401 fires on every padded
    drafter), which makes Vd equal to Vt: a runtime that still needs a d2t then (one that
    holds Vd against a vocab_size the trim keeps) gets the identity of Vt ids in the next
    round; one that no longer does (vLLM 0.29's Vd != Vt) would refuse a d2t [Vd] (DSC105).
    A model with no d2t parameter at all refuses one (DSC105): none is added."""
    if f.d2t is not None or f.classification == PADDED:
        return None
    if p is not None and p.d2t_param == "none":
        return None
    derived = f.classification == PRUNED
    if derived and t2d_problem(f) is not None:
        return None
    what = "derived from t2d" if derived else "the identity (all zeros)"

    def values():  # numpy only where the change is made
        import numpy as np

        if derived:
            return np.asarray(f.t2d_selected, dtype=np.int64) - np.arange(f.Vd, dtype=np.int64)
        return np.zeros(f.Vd, dtype=np.int64)

    return Fix((Put(D2T, values, what),), f"add d2t int64 [{f.Vd}]: {what}")


@repair("drop-d2t", SAFE)
def drop_d2t(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """A d2t (or t2d) the runtime has no parameter for is dropped. Safe where the runtime
    maps draft ids as that d2t did: an all-zero d2t is the identity the runtime applies
    without one; a TensorRT-LLM DSpark drafter uses the target's head, whose ids are target
    ids. Unsafe otherwise (a non-zero d2t on an equal vocab: the map trained with is lost)."""
    name = finding.tensor  # DSC105 names a d2t or t2d the checkpoint stores
    if name not in (D2T, T2D):
        return None
    identity = f.d2t_values is not None and not any(f.d2t_values)
    safe = name == T2D or identity or p is not None and p.d2t_param in ("rejected", "none")
    why = "the identity the runtime applies without it" if identity else "no parameter for it"
    return Fix((Drop(name),), f"drop {name} ({why})", SAFE if safe else UNSAFE)


@repair("d2t-int64", SAFE)
def d2t_as_int64(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """An int32 d2t is stored as int64, the same values."""
    if f.d2t_values is None:
        return None
    return Fix((Put(D2T, f.d2t_values, "int32 values as int64"),), "d2t as int64")


@rule(
    "DSC103",
    ERROR,
    "d2t missing",
    scope=PROFILE,
    hint=(
        f"ship d2t [Vd] int64; {emit_command('--emit-d2t')} derives it from t2d, or writes "
        "the identity for an equal or padded drafter"
    ),
    repair=add_d2t,
)
def d2t_missing(f: Facts, p: Profile) -> list[Finding]:
    """Sampled draft ids must be converted to target ids through d2t (target_id = draft_id +
    d2t[draft_id]). Depending on the runtime, a missing d2t is a load error (vLLM DSpark's check;
    TensorRT-LLM EAGLE-3's weight loader, which requires the d2t parameter it creates) or is
    silently all zeros, which maps draft id i to target id i and collapses acceptance for a
    pruned drafter; a model with no d2t path at all (vLLM's Llama 4 classic EAGLE, whose own
    head has draft_vocab_size rows) proposes the shipped head's draft id i as target id i the
    same way (without a shipped head it drafts with the target's, whose ids are target ids)."""
    if f.d2t is not None or p.missing_d2t == "unused":
        return []
    how = {
        "error": f"{p.runtime} refuses to load it ('... must include a d2t mapping so sampled "
        "draft ids can be converted to target ids')",
        "zeros": f"{p.runtime} silently maps draft id i to target id i (an all-zero d2t)",
        "uninitialised": f"{p.runtime} creates an uninitialised int32 d2t [{f.Vd}] "
        "(torch.empty) that nothing loads: sampled ids map through garbage",
        "load_assert": f"{p.runtime} creates an int32 d2t [{f.Vd}] (torch.empty) and its weight "
        "loader requires every parameter of the module it loads ('assert n in module_weights'): "
        "the load fails",
    }[p.missing_d2t]
    if p.missing_d2t == "zeros" and p.d2t_param == "none":  # no d2t path at all
        if heads(f, p).head_source.source != SHIPPED:
            return []  # the target's head drafts: its ids are target ids
        how = (
            f"{p.runtime} has no d2t path: the shipped head's draft id i is proposed as target id i"
        )
    fires = reduced(f, p) if p.missing_d2t != "zeros" else f.classification == PRUNED
    if not fires:
        return []
    if p.d2t_param == "none":  # a shipped d2t is refused (DSC105): nothing to add
        hint = (
            f"{p.name} cannot map draft ids: serve a drafter whose head rows are the target's "
            "ids (a full-vocab head, or none: the target's is then shared)"
        )
    elif f.classification == PADDED:  # fix trims first (add_d2t waits for trim-padding)
        hint = (
            f"trim the padding: {fix_command()} cuts Vd to Vt first (a d2t is then added only "
            f"where {p.name} still needs one); {emit_command('--emit-d2t')} writes the "
            "identity d2t [Vd] instead, which profiles with no d2t parameter then refuse (DSC105)"
        )
    elif f.classification != PRUNED:  # the hint says what `fix --emit-d2t` (fix.plan_fix) does
        hint = (
            f"{emit_command('--emit-d2t')} writes the identity d2t (all zeros) {p.name} "
            "needs; profiles that create no d2t parameter here then refuse it (DSC105)"
        )
    elif (problem := t2d_problem(f)) is None:
        hint = f"{emit_command('--emit-d2t')} derives d2t from the t2d this checkpoint has"
    else:
        hint = (
            f"ship the d2t the drafter was trained with: {problem}, so "
            f"{emit_command('--emit-d2t')} refuses"
        )
    return [
        new_finding(
            "DSC103",
            f"no d2t mapping ({f.classification} drafter, {reduced_text(f, p)}): {how}",
            tensor=D2T,
            hint=hint,
        )
    ]


@rule(
    "DSC105",
    ERROR,
    "d2t present where the runtime has no parameter for it",
    scope=PROFILE,
    hint=(
        "drop d2t from the checkpoint for this runtime (one checkpoint cannot satisfy both vllm "
        "and vllm-legacy for a padded drafter)"
    ),
    repair=drop_d2t,
)
def d2t_without_parameter(f: Facts, p: Profile) -> list[Finding]:
    """The runtime creates draft_id_to_target_id only for a reduced vocab; for any other checkpoint
    tensor vLLM's weight loader raises 'There is no module or parameter named ...'. vLLM's classic
    EAGLE model has no such parameter at all (it drafts from the target's head). TensorRT-LLM
    loads a DSpark drafter with a strict state dict, where d2t and t2d are unexpected keys."""
    if p.d2t_param == "reduced":  # a parameter only for a reduced vocab
        if f.d2t is None or reduced(f, p):
            return []
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
    if p.d2t_param == "none":  # no such parameter: refused by name
        own = heads(f, p).head_source.source == SHIPPED  # a head of its own, no d2t path
        why = (
            "it has no d2t path: its own head's ids are proposed as target ids"
            if own
            else "it drafts from the target's head, with target ids"
        )
        return [
            new_finding(
                "DSC105",
                f"{role} is present but {p.name}'s model has no parameter for it ({why}): "
                "the weight loader raises 'There is no module or parameter named ...'",
                info,
                hint=f"drop d2t and t2d for {p.runtime}: "
                + (
                    "its own head's ids must be the target's"
                    if own
                    else "it uses the target's head, whose ids are target ids"
                ),
            )
            for role in (D2T, T2D)
            if (info := f.tensors.get(role)) is not None
        ]
    if p.d2t_param != "rejected":  # a strict state-dict load, which has no such key
        return []
    return [
        new_finding(
            "DSC105",
            f"{role} is present but {p.name} loads the drafter with a strict state "
            "dict that has no such key: load_state_dict raises 'Unexpected key(s)'",
            info,
            hint=f"drop d2t and t2d for {p.runtime}: it uses the target's head, "
            "whose ids are target ids",
        )
        for role in (D2T, T2D)
        if (info := f.tensors.get(role)) is not None
    ]


@rule(
    "DSC206",
    ERROR,
    "d2t is not rank-1 int64 of length Vd",
    scope=COMMON,
    hint="re-export d2t as int64 [Vd]",
)
def d2t_layout(f: Facts) -> list[Finding]:
    """d2t holds one integer offset per draft id (int64; int32 is converted on load, DSC305); any
    other dtype or shape fails the runtime's load or indexes the wrong ids."""
    if f.d2t is None or (problem := d2t_layout_problem(f.d2t, f.Vd)) is None:
        return []
    return [new_finding("DSC206", problem, f.d2t)]


def _padding(offsets: Sequence[int], vt: int, i: int) -> bool:
    """Draft id ``i`` is a padded row ``[Vt, Vd)`` that keeps the identity (offset 0):
    padding, not a mapping error (DSC401 reports them and the padded-row mask covers
    them)."""
    return i >= vt and offsets[i] == 0


def _is_arange(offsets: Sequence[int]) -> bool:
    n = len(offsets)
    return n > 1 and offsets[1] == 1 and same(offsets, range(n))


@rule(
    "DSC301",
    ERROR,
    "d2t maps to ids outside the target vocab",
    scope=COMMON,
    hint="rebuild d2t from the selected token ids: d2t[i] = selected[i] - i",
)
def d2t_out_of_range(f: Facts) -> list[Finding]:
    """Every draft id i must map to 0 <= i + d2t[i] < Vt; an out-of-range id is an illegal token or
    an out-of-bounds index in the target. A classic cause is an arange 'identity' (the identity d2t
    is all zeros)."""
    offsets, ids = f.d2t_values, f.d2t_ids
    if offsets is None or not ids or min(ids) >= 0 and max(ids) < f.Vt:
        return []
    vd, vt = len(offsets), f.Vt
    bad = [i for i, t in enumerate(ids) if not 0 <= t < vt and not _padding(offsets, vt, i)]
    if not bad:
        return []
    i = bad[0]
    arange = " (d2t looks like arange: the identity is all zeros)" if _is_arange(offsets) else ""
    return [
        new_finding(
            "DSC301",
            f"{len(bad)} of {vd} draft ids map outside [0, {vt}); first: draft id {i} "
            f"-> {ids[i]}{arange}",
            f.d2t,
        )
    ]


def _unsorted(f: Facts) -> list[int] | None:
    """The target ids ``i + d2t[i]`` when they are not strictly increasing, else None
    (a strictly increasing map is injective). Read by two rules: walked once."""
    if "d2t unsorted" not in f.memo:
        ids = f.d2t_ids
        unsorted = ids is not None and len(ids) > 1 and not _increasing(ids)
        f.memo["d2t unsorted"] = ids if unsorted else None
    return f.memo["d2t unsorted"]


@rule(
    "DSC302",
    ERROR,
    "d2t is not injective",
    scope=COMMON,
    hint="rebuild d2t from the selected token ids: d2t[i] = selected[i] - i",
)
def d2t_not_injective(f: Facts) -> list[Finding]:
    """Two draft ids map to the same target id: one target token is proposed twice and another can
    never be proposed."""
    if (ids := _unsorted(f)) is None or (unique := len(set(ids))) == len(ids):
        return []
    return [
        new_finding(
            "DSC302", f"d2t maps {len(ids)} draft ids onto {unique} distinct target ids", f.d2t
        )
    ]


@repair("drop-t2d", SAFE)
def drop_t2d(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """A t2d that contradicts d2t is dropped: no runtime serves with it (vLLM and SGLang skip
    it, TensorRT-LLM refuses it). Safe for an equal or padded drafter, whose draft ids are
    target ids whatever t2d says; unsafe for a pruned one, where either map may be the
    stale one; not done for a pruned drafter without d2t (t2d is all there is)."""
    if f.t2d is None or f.classification == PRUNED and f.d2t is None:
        return None
    why = "a pruned drafter: is d2t or t2d the stale one?" if f.classification == PRUNED else ""
    return Fix((Drop(T2D),), "drop t2d (no runtime serves with it)", UNSAFE if why else SAFE)


@rule(
    "DSC303",
    WARNING,
    "t2d inconsistent with d2t",
    scope=COMMON,
    hint="re-export d2t and t2d together",
    repair=drop_t2d,
)
def t2d_inconsistent(f: Facts) -> list[Finding]:
    """t2d (the membership mask over the target vocab) must select exactly the target ids that d2t
    maps to, with t2d.sum() == Vd. vLLM skips t2d, but a mismatch means one of the two is stale."""
    if f.t2d is None or any(w == T2D for w, _ in other_vocab_evidence(f)):  # DSC310 says it
        return []
    if _t2d_other_ids(f):  # as many ids as d2t, other ones: DSC311, DSC313 or DSC314
        return []
    if f.d2t is None:  # t2d alone: the map fix would derive from it must be possible
        problem = t2d_problem(f)
    elif f.d2t_values is None:  # d2t of another layout (DSC206): nothing to compare
        problem = None
    else:  # vLLM skips a t2d of another layout: a warning, and nothing to compare d2t with
        problem = t2d_layout_problem(f.t2d, f.Vt) or t2d_disagreement(
            f.t2d_selected, f.d2t_values, f.d2t_ids_sorted
        )
    if problem is None:
        return []
    t2d, hint = f.t2d, None
    if t2d.dtype == "BOOL" and len(t2d.shape) == 1 and t2d.shape[0] != f.Vt:
        # a membership mask over another vocab: exported for another target, not stale
        hint = (
            f"t2d has one entry per id of a {t2d.shape[0]}-id vocab, this target has {f.Vt}: "
            "the drafter was exported for another target; use the one made for this target"
        )
    return [new_finding("DSC303", problem, t2d, hint=hint)]


@rule(
    "DSC304",
    WARNING,
    "d2t not sorted",
    scope=COMMON,
)
def d2t_not_sorted(f: Facts) -> list[Finding]:
    """i + d2t[i] is not strictly increasing. Legal (ModelOpt's calibration does not sort), but
    SpecForge and speculators always sort: an unsorted map from those producers suggests corruption.
    """
    if (ids := _unsorted(f)) is None or len(set(ids)) != len(ids):  # not injective: DSC302
        return []
    return [new_finding("DSC304", "i + d2t[i] is not strictly increasing", f.d2t)]


@rule(
    "DSC305",
    WARNING,
    "d2t is int32: converted on load",
    scope=COMMON,
    hint="re-export d2t as int64 [Vd]",
    repair=d2t_as_int64,
)
def d2t_int32(f: Facts) -> list[Finding]:
    """d2t is stored as int32. vLLM's weight loader copies it into its int64 parameter and SGLang
    adds it to an int64 arange: it works, but producers write int64."""
    d2t = f.d2t
    if f.d2t_values is None or d2t.dtype == "I64":
        return []
    return [
        new_finding(
            "DSC305",
            f"d2t is {d2t.dtype} {list(d2t.shape)}: vLLM's weight loader converts it "
            "into its int64 parameter, SGLang adds it to an int64 arange",
            d2t,
        )
    ]


# --- a drafter made for another target's vocab (DSC310) ---------------------------------


def _t2d_other_target(f: Facts) -> str | None:
    """The known family of the vocab a ``BOOL [L]`` t2d was made for, where it is not
    the target's (``known_vocabs.other_family``); else None."""
    t2d = f.t2d
    if t2d is None or t2d.dtype != "BOOL" or len(t2d.shape) != 1:
        return None
    return other_family(t2d.shape[0], f.Vt)


def _d2t_reach(f: Facts) -> int | None:
    """The highest target id a pruned ``d2t`` maps to where it is past the target's
    vocab (padded rows that keep the identity are padding, not ids), else None."""
    offsets, ids, vt = f.d2t_values, f.d2t_ids, f.Vt
    if not ids or max(ids) < vt:
        return None
    top = max((t for i, t in enumerate(ids) if not _padding(offsets, vt, i)), default=-1)
    return top if top >= vt else None


def other_vocab_evidence(f: Facts) -> list[tuple[str, str]]:
    """What says the drafter was made for another vocab than the target's: one
    ``(tensor or key, sentence)`` per piece (its vocab_size, its t2d's length, the ids
    its d2t reaches), each naming the known vocab it fits. Empty where the tokenizer
    files were compared and are the same, or where a BOOL t2d has one entry per id of
    this target's vocab: both say more than a config's vocab_size does."""
    if f.tokenizer is not None and f.tokenizer.result == SAME:
        return []
    t2d = f.t2d
    bool_t2d = t2d is not None and t2d.dtype == "BOOL" and len(t2d.shape) == 1
    if bool_t2d and same_tokenizer(t2d.shape[0], f.Vt):  # its map was made over this vocab
        return []
    out = []
    if (family := other_family(f.V, f.Vt)) is not None:
        out.append(("vocab_size", f"vocab_size {f.V} is the {family} vocab ({f.V} ids)"))
    if (family := _t2d_other_target(f)) is not None:
        n = f.t2d.shape[0]
        out.append((T2D, f"t2d [{n}] has one entry per id of the {family} vocab ({n} ids)"))
    if (top := _d2t_reach(f)) is not None and (sizes := known_at_least(top + 1, f.Vt)):
        such = " or ".join(f"{vocab_family(n)} ({n} ids)" for n in sizes)
        out.append(
            (
                D2T,
                f"d2t maps draft ids to target ids up to {top}: a vocab of at least "
                f"{top + 1} ids, such as {such}",
            )
        )
    return out


@rule(
    "DSC310",
    ERROR,
    "drafter made for another target's vocab",
    scope=COMMON,
    hint="use the drafter made for this target; serve this one with the target it was made for",
)
def made_for_another_vocab(f: Facts) -> list[Finding]:
    """The drafter's vocab_size, its t2d (one entry per id of the vocab it was trained against)
    or the target ids its d2t reaches fit a known model family's vocab, and the target's vocab is
    another family's (a Llama 3.x drafter, vocab 128256, against a Qwen3 target, 151936). No
    runtime compares the vocabularies: the drafter loads, and its token ids name other tokens in
    this target's vocab, so every proposal is garbage. Sizes of one tokenizer padded to two widths
    (Qwen's 151936 and 152064) are the same vocab; a size of no known family is not judged here."""
    evidence = other_vocab_evidence(f)
    if not evidence:
        return []
    where, _ = evidence[0]
    info = f.t2d if where == T2D else f.d2t if where == D2T else None
    mine = vocab_family(f.Vt)
    return [
        new_finding(
            "DSC310",
            "; ".join(s for _, s in evidence)
            + f": the drafter was made for another target than this one (Vt {f.Vt}, the "
            f"{mine} vocab). No runtime compares vocabularies: it loads, and its token ids "
            "name other tokens here (proposals are garbage, acceptance collapses)",
            info,
            tensor=info.name if info else where,
            hint=f"use the drafter made for this target (a {mine} drafter), or serve this one "
            "with the target it was made for",
        )
    ]


# --- what d2t and t2d select (d2t_conventions.py's rules read these too) ------------------

ADDS_DRAFT_ID = (
    "Every runtime adds the draft id to d2t (target id = i + d2t[i]: vLLM's compute_logits, "
    "SGLang's hot_token_id = d2t + arange, TensorRT-LLM's d2t[id] + id)"
)


def _selected(f: Facts):
    """The target ids t2d selects where they can be held against d2t: a ``BOOL [Vt]``
    t2d selecting exactly ``Vd`` ids (else None: no t2d, another layout, the all-False
    placeholder or another count, which DSC303 reports)."""
    sel, offsets = f.t2d_selected, f.d2t_values
    if not sel or offsets is None or len(sel) != len(offsets):
        return None
    return sel


def _t2d_other_ids(f: Facts) -> bool:
    """A t2d that selects as many target ids as d2t maps to, but other ones (read by
    three rules: compared once)."""
    if "t2d other ids" not in f.memo:
        sel = _selected(f)
        f.memo["t2d other ids"] = sel is not None and not same(sel, f.d2t_ids_sorted)
    return f.memo["t2d other ids"]


def _increasing(values: Sequence[int]) -> bool:
    """Strictly increasing (and more than one value): each value below the next."""
    return len(values) > 1 and all(map(lt, values, islice(values, 1, None)))


def _consistent_t2d(f: Facts) -> bool:
    """A t2d that selects exactly the target ids d2t maps to: it confirms d2t as offsets."""
    return _selected(f) is not None and not _t2d_other_ids(f)


def _outcome(f: Facts, ids: Sequence[int]) -> str:
    """What proposing ``ids`` does: an index error past Vt, else other tokens, silently."""
    out = [i for i, t in enumerate(ids) if t >= f.Vt]
    if out:
        i = out[0]
        return (
            f"{len(out)} of {len(ids)} draft ids land outside [0, {f.Vt}) (first: draft id {i} "
            f"-> {ids[i]}), an index error, and the rest are other tokens"
        )
    return "each one but draft id 0 is another token: no error, acceptance collapses"
