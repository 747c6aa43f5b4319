"""``fix --prune-vocab N --frequencies PATH``: a trained head cut to the K most frequent
target ids (frequency-ranked drafting), with the map each runtime needs.

The K ids are chosen as the producers choose them when they build a draft vocab at
training time, so a pruned checkpoint is one they could have written: speculators'
``build_vocab_mappings_from_distribution`` (speculators/train/vocab_mapping.py) sorts the
seen ids by count, ties by id, keeps the first K, and where fewer than K were seen adds the
lowest ids not yet chosen; SpecForge's ``process_token_dict_to_mappings``
(specforge/data/preprocessing.py) adds the low ids ``range(K)`` at count 0 the same way.
Neither adds ids a runtime needs (a mask or end-of-text token): they are kept only if
frequent, and so here. The ids are stored ascending; ``d2t`` holds int64 offsets
(target id = i + d2t[i]) and ``t2d`` a BOOL [Vt] membership mask, as both write them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.vocab import D2T, T2D
from dspark_ckpt.rules.materialise import draft_ids
from dspark_ckpt.rules.repairs import Change, Put, Rows, SetKey
from dspark_ckpt.source.safetensors import read_json_file

if TYPE_CHECKING:
    pass

NO_REDUCED = {
    "ignored": "skips d2t",
    "rejected": "refuses a d2t (strict state-dict load)",
}


def read_frequencies(path: Path, vt: int) -> dict[int, int]:
    """Target id -> count from FILE (a JSON object of id -> count, or a list of counts by
    id), read through the bounded JSON reader; an id outside [0, Vt) or a count that is
    not a non-negative integer is refused, naming the file."""
    obj = read_json_file(path, "frequencies file")
    if isinstance(obj, list):
        items: Any = enumerate(obj)
    elif isinstance(obj, dict):
        items = obj.items()
    else:
        raise CheckpointError(
            path, "a frequencies file is a JSON object (target id -> count) or a list of counts"
        )
    counts: dict[int, int] = {}
    for key, count in items:
        tid = key if isinstance(key, int) else int(key) if _decimal(key) else None
        if tid is None or not 0 <= tid < vt:
            raise CheckpointError(path, f"token id {key!r} is outside the target vocab [0, {vt})")
        if type(count) is not int or count < 0:
            raise CheckpointError(path, f"the count of id {tid} is not a non-negative integer")
        if count:
            counts[tid] = count
    return counts


def _decimal(key: str) -> bool:
    return key.isascii() and key.isdigit() and len(key) < 12


def top_ids(counts: dict[int, int], candidates: list[int], k: int) -> list[int]:
    """The K ids kept, ascending: the most frequent (ties by id), then, where fewer than K
    were seen, the lowest not yet chosen (speculators' and SpecForge's fill)."""
    seen = sorted((t for t in candidates if counts.get(t)), key=lambda t: (-counts[t], t))
    chosen = seen[:k]
    if len(chosen) < k:
        have = set(chosen)
        chosen += [t for t in sorted(candidates) if t not in have][: k - len(chosen)]
    return sorted(chosen)


def prune_plan(k: int, frequencies: Path) -> Callable[..., tuple[list[Change], str]]:
    """The changes ``--prune-vocab N --frequencies PATH`` asks for, planned from the
    drafter's facts under the deciding profiles."""

    def plan(f, profiles, root: Path) -> tuple[list[Change], str]:
        for p in profiles:
            why = NO_REDUCED.get(p.d2t_param)
            if why or p.missing_lm_head == "target-always":
                why = why or "always takes the target's lm_head"
                raise CheckpointError(
                    root,
                    f"refused: {p.name} serves no reduced draft vocab for this drafter (it "
                    f"{why}); a pruned head would be scored against the wrong ids",
                )
        if f.lm_head is None or f.lm_head.shape[0] != f.Vd:
            raise CheckpointError(
                root, f"refused: the drafter has no lm_head of Vd ({f.Vd}) rows to prune"
            )
        candidates = draft_ids(f)
        if not 0 < k < len(candidates):
            raise CheckpointError(
                root,
                f"refused: --prune-vocab {k} must be in [1, {len(candidates)}) (the head's rows)",
            )
        if max(candidates) >= f.Vt:
            raise CheckpointError(
                root,
                f"refused: the head scores ids at or above Vt {f.Vt} (padded rows: run fix "
                "without --prune-vocab first, which trims them)",
            )
        counts = read_frequencies(frequencies, f.Vt)
        kept = top_ids(counts, candidates, k)
        where = {t: i for i, t in enumerate(candidates)}
        rows = tuple(where[t] for t in kept)
        import numpy as np

        ids = np.asarray(kept, dtype=np.int64)
        t2d = np.zeros(f.Vt, dtype=bool)
        t2d[ids] = True
        markov = f.markov_w2 is not None and f.markov_w2.shape[0] == f.Vd
        changes: list[Change] = [Rows(f.lm_head.name, rows)]
        if markov:
            changes.append(Rows(f.markov_w2.name, rows))
        changes += [
            Put(f.d2t.name if f.d2t else D2T, ids - np.arange(k), "the pruned map's offsets"),
            Put(f.t2d.name if f.t2d else T2D, t2d, "the pruned map's target mask"),
            SetKey("draft_vocab_size", k),
        ]
        seen = sum(1 for t in kept if counts.get(t))
        summary = (
            f"prune the head to the {k} most frequent target ids ({seen} seen in "
            f"{frequencies.name}); lm_head{' and markov_w2' if markov else ''} "
            f"cut to their rows, d2t/t2d written, draft_vocab_size {k}"
        )
        return changes, summary

    return plan
