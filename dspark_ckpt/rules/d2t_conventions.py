"""d2t's conventions: offsets, not ids; the identity is zeros; t2d as trained (DSC311-DSC314).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts`` (d2t's values and t2d's selection).
"""

from __future__ import annotations

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import D2T, PRUNED, same
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.d2t import (
    ADDS_DRAFT_ID,
    _consistent_t2d,
    _increasing,
    _is_arange,
    _outcome,
    _selected,
    _t2d_other_ids,
)
from dspark_ckpt.rules.findings import ERROR, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import COMMON, rule
from dspark_ckpt.rules.repairs import SAFE, UNSAFE, Fix, Put, repair

# --- d2t conventions: offsets, not ids; the identity is zeros; t2d as trained (DSC311-314) --


# what the runtimes do with d2t, and what the producers write, for the messages below
@repair("d2t-offsets", UNSAFE)
def d2t_as_offsets(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """A d2t that holds absolute target ids is stored as offsets (each id minus its draft
    id). Safe where it equals the ids t2d selects (the producer's own map says so); unsafe
    where only its shape says so (strictly increasing, past the vocab as offsets)."""
    offsets = f.d2t_values
    if offsets is None:
        return None
    proved = _selected(f) is not None

    def values():
        import numpy as np

        return np.asarray(offsets, dtype=np.int64) - np.arange(len(offsets), dtype=np.int64)

    what = "absolute ids minus arange(Vd)"
    return Fix(
        (Put(D2T, values, what),), f"store d2t as offsets ({what})", SAFE if proved else None
    )


@rule(
    "DSC311",
    ERROR,
    "d2t holds absolute target ids, not offsets",
    scope=COMMON,
    hint="store offsets: d2t[i] = target_id[i] - i (the ids d2t holds now, minus arange(Vd))",
    repair=d2t_as_offsets,
)
def d2t_absolute_ids(f: Facts) -> list[Finding]:
    """d2t holds the selected target ids themselves instead of offsets: it equals the ids t2d
    selects, or (without a t2d to compare) it is strictly increasing and valid as target ids but
    runs past the target's vocab as offsets. SpecForge (d2t = used_tokens[i] - i) and speculators
    (selected ids - arange) write offsets, and every runtime adds the draft id back (vLLM's
    compute_logits, SGLang's hot_token_id = d2t + arange), so each draft id i is proposed as i +
    its target id: an index error past Vt, or another token."""
    offsets, ids = f.d2t_values, f.d2t_ids
    if offsets is None or f.classification != PRUNED or _is_arange(offsets):
        return []  # an arange is DSC313's
    if len(offsets) < 2:
        return []  # draft id 0 only: 0 + d2t[0] is d2t[0], an offset and an id alike
    sel = _selected(f)
    if sel is not None:
        if not same(offsets, sel):
            return []
        why = "d2t equals the target ids t2d selects"
    elif _increasing(offsets) and offsets[0] >= 0 and offsets[-1] < f.Vt and ids[-1] >= f.Vt:
        why = (
            f"d2t is strictly increasing and within [0, {f.Vt}) as target ids are, but as "
            "offsets it runs past the target's vocab"
        )
    else:
        return []
    return [
        new_finding(
            "DSC311",
            f"{why}: it holds absolute target ids, not offsets. {ADDS_DRAFT_ID}, so draft id i is proposed as i + its target id: "
            + _outcome(f, ids),
            f.d2t,
        )
    ]


# DSC312 fires only where a uniformly random selection of Vd of Vt ids would have at
# least this many adjacent pairs (about Vd * Vd / Vt): then offsets that never repeat
# (no two selected ids adjacent) are implausible, not just unusual
ADJACENT_PAIRS = 20


@rule(
    "DSC312",
    WARNING,
    "d2t strictly increasing: may hold absolute target ids",
    scope=COMMON,
    hint=(
        "check d2t against the ids the drafter was trained on (offsets: d2t[i] = target_id[i] - "
        "i) and ship the t2d it was trained with, so the two can be compared"
    ),
)
def d2t_maybe_absolute_ids(f: Facts) -> list[Finding]:
    """d2t is strictly increasing, as absolute target ids are, and the checkpoint has no t2d to
    say which ids were selected. Offsets from a sorted selection (what SpecForge and speculators
    write) increase at every step only where no two selected ids are adjacent: their
    frequency-ranked selections do not rule that out, but for a draft vocab this large against
    the target's (a random selection would hold about Vd * Vd / Vt adjacent pairs, at least 20)
    it is implausible. A warning, not an error: nothing proves which it is. If d2t does hold
    ids, every proposal but draft id 0's is another token, silently."""
    offsets = f.d2t_values
    if (
        offsets is None
        or f.t2d is not None  # a t2d of any layout: DSC303, DSC310, DSC311 or DSC314 judge
        or f.classification != PRUNED
        or _is_arange(offsets)
        or not _increasing(offsets)
        or offsets[0] < 0
    ):
        return []
    vd, vt = len(offsets), f.Vt
    pairs = vd * vd / vt
    if pairs < ADJACENT_PAIRS or f.d2t_ids[-1] >= vt:  # past Vt as offsets: DSC311/DSC301
        return []
    shown = ", ".join(str(x) for x in offsets[:4]) + (", ..." if vd > 4 else "")
    return [
        new_finding(
            "DSC312",
            f"d2t is strictly increasing ({shown}) and the checkpoint has no t2d to compare "
            f"it with: as offsets it selects {vd} of {vt} target ids with no two adjacent "
            f"(a random selection has about {pairs:.0f} adjacent pairs), so it likely holds "
            f"absolute target ids. {ADDS_DRAFT_ID}: if these are ids, every proposal but draft "
            "id 0's is another token (no error, acceptance collapses)",
            f.d2t,
        )
    ]


@repair("d2t-identity", UNSAFE)
def d2t_identity(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """An arange d2t becomes the identity it was most likely meant as: all zeros. Unsafe:
    for a pruned drafter the map it was trained with is unknown (ship it), and the zeros
    only say that draft ids are target ids."""
    if f.d2t_values is None:
        return None

    def values():
        import numpy as np

        return np.zeros(len(f.d2t_values), dtype=np.int64)

    return Fix((Put(D2T, values, "the identity (all zeros)"),), "write d2t as the identity")


@rule(
    "DSC313",
    ERROR,
    "d2t is arange(Vd): the identity is all zeros",
    scope=COMMON,
    hint=(
        "write the identity d2t as all zeros; for a pruned drafter, d2t[i] = selected[i] - i "
        "over the ids it was trained on"
    ),
    repair=d2t_identity,
)
def d2t_arange(f: Facts) -> list[Finding]:
    """d2t is 0, 1, 2, ...: the identity written as ids. d2t holds offsets, so the identity is all
    zeros (SpecForge and speculators initialise it so), and an arange maps draft id i to target id
    2i: every proposal but draft id 0's is another token, and ids past Vt / 2 are out of range. Not
    reported where a t2d selects exactly those ids (0, 2, 4, ...): then it is a real map."""
    offsets = f.d2t_values
    if offsets is None or not _is_arange(offsets) or _consistent_t2d(f):
        return []
    return [
        new_finding(
            "DSC313",
            f"d2t is arange({len(offsets)}) (0, 1, 2, ...): the identity d2t is all zeros. "
            f"{ADDS_DRAFT_ID}, so draft id i is proposed as 2i: " + _outcome(f, f.d2t_ids),
            f.d2t,
        )
    ]


@rule(
    "DSC314",
    ERROR,
    "t2d selects other target ids than d2t maps to",
    scope=COMMON,
    hint=(
        "ship the d2t of the t2d the head was trained with: d2t[i] = selected[i] - i over t2d's "
        "selected ids, in ascending order"
    ),
)
def t2d_other_ids(f: Facts) -> list[Finding]:
    """t2d and d2t name the same number of target ids, but not the same ones. The head was trained
    on t2d's: SpecForge's loss takes the target's distribution over t2d's columns
    (target_head[..., t2d]) and speculators' takes the verifier head's t2d rows (d2t only scores
    accuracy), so draft row j stands for t2d's j-th selected id. The runtimes read only d2t, and
    propose row j as j + d2t[j]: for every id where the two differ, another token than the head
    scored. No error; acceptance collapses."""
    offsets = f.d2t_values
    if not _t2d_other_ids(f) or _is_arange(offsets):  # an arange is DSC313's
        return []
    sel = _selected(f)
    if list(offsets) == list(sel):  # d2t holds t2d's ids themselves: DSC311
        return []
    ids = f.d2t_ids_sorted
    differ = [j for j, (a, b) in enumerate(zip(ids, sel, strict=True)) if a != b]
    j = differ[0]
    return [
        new_finding(
            "DSC314",
            f"t2d selects other target ids than d2t maps to ({len(differ)} of {len(sel)} "
            f"differ; first: draft row {j} was trained as t2d's id {sel[j]}, d2t "
            f"proposes {ids[j]}). The head was trained on t2d's ids (SpecForge "
            "and speculators take the target distribution over t2d); the runtime proposes "
            "through d2t: another token than the head scored, no error, acceptance collapses",
            f.d2t,
        )
    ]
