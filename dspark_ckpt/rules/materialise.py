"""Materialise what the runtime will not share: the target's ``lm_head`` / ``embed_tokens``
rows copied into the drafter, as the repair of the findings where the runtime refuses the
load or leaves the head uninitialised for want of them (DSC101, DSC102, DSC601). A padded
drafter's (DSC104) is not copied: trim-padding, safe, cuts it to Vt rows, and the runtime
then shares the target's head.

Unsafe (``fix --unsafe-fixes``): the copy is right only when the drafter was trained
against the target's tensor (its head frozen to the target's, as speculators' DFlash
converter and SpecForge's ``--embedding-source`` assume when they copy it); a drafter
trained with its own head gets the target's rows instead of the ones it learned.
"""

from __future__ import annotations

from collections.abc import Sequence

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import EMBED, LM_HEAD
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import Finding
from dspark_ckpt.rules.repairs import UNSAFE, Fix, TargetRows, repair

ASSUMES = "assumes the drafter was trained against the target's {what}"


def target_tensor(f: Facts, name: str):
    """The target's tensor stored as ``name`` or under a prefix (``model.``), 2-D; the
    shortest such name (a multimodal target's text model before its towers)."""
    ckpt = f.target.checkpoint
    if ckpt is None:
        return None
    found = [
        info
        for key, info in ckpt.tensors.items()
        if (key == name or key.endswith("." + name)) and len(info.shape) == 2
    ]
    return min(found, key=lambda i: (len(i.name), i.name)) if found else None


def draft_ids(f: Facts) -> Sequence[int]:
    """The target id each draft row scores: ``i + d2t[i]`` where d2t is read, the ids t2d
    selects where only t2d is, else the row itself (a ``range``: a declared size costs
    nothing until it is checked against the tensors)."""
    if f.d2t_values is not None and len(f.d2t_values) == f.Vd:
        return [i + int(o) for i, o in enumerate(f.d2t_values)]
    if f.t2d_selected is not None and len(f.t2d_selected) == f.Vd:
        return [int(x) for x in f.t2d_selected]
    return range(f.Vd)


def _copy(f: Facts, name: str, sources: tuple[str, ...], rows: Sequence[int], what: str):
    """The change copying ``rows`` of the first of the target's ``sources`` found, or None
    where the target holds no such tensor, too few rows, or rows of another width."""
    if f.Vd > f.Vt:
        return None  # padded: trim-padding (safe) settles Vd and V first, then a round copies
    src = next((t for s in sources if (t := target_tensor(f, s)) is not None), None)
    hidden = f.cfg.hidden_size
    if src is None or not len(rows) or hidden is None or src.shape[1] != hidden:
        return None
    whole = isinstance(rows, range)
    lo, hi = (rows[0], rows[-1]) if whole else (min(rows), max(rows))
    if lo < 0 or hi >= src.shape[0]:
        return None
    if whole:
        picked = "every row" if len(rows) == src.shape[0] else f"rows [0, {len(rows)})"
    elif f.d2t_values is not None:
        picked = f"the {len(rows)} rows d2t selects (target id i + d2t[i])"
    else:
        picked = f"the {len(rows)} rows t2d selects"
    summary = (
        f"copy {picked} of the target's {src.name} {src.dtype} [{src.shape[0]}, "
        f"{src.shape[1]}] as {name}; {ASSUMES.format(what=what)}"
    )
    return Fix((TargetRows(name, src, rows, summary),), summary)


@repair("copy-target-head", UNSAFE)
def copy_target_head(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """The target's lm_head rows the drafter scores are copied in as its lm_head (all of
    them, or for a pruned drafter the rows d2t selects: target id i + d2t[i]; the target's
    embedding where its head is tied), read by offset (a Hub target by range requests),
    its dtype kept. Unsafe: it assumes the drafter was trained against the target's head."""
    if f.lm_head is not None:
        return None
    return _copy(f, LM_HEAD, (LM_HEAD, EMBED), draft_ids(f), "lm_head")


@repair("copy-target-embedding", UNSAFE)
def copy_target_embedding(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """The first V rows of the target's embed_tokens are copied in as the drafter's, where
    the target's embedding holds that many (a padded target embedding), its dtype kept.
    Unsafe: it assumes the drafter was trained against the target's embedding."""
    if f.embed is not None:
        return None
    return _copy(f, EMBED, (EMBED,), range(f.V), "embed_tokens")
