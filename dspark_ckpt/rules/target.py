"""The drafter against the target model itself: hidden sizes, aux layers, architecture,
tokenizer (codes DSC701-DSC712).

A drafter's ``fc`` takes ``n_aux`` hidden states of the target, each ``Ht`` wide, and
its layers may run on the target's embedding and head. A drafter made for another
target loads and then fails at the first forward (a shape error), or runs and
proposes garbage (another tokenizer). ``gather_target`` reads what these rules need
once (the tokenizer files included); the rules are pure functions of it.

How each runtime feeds the target's hidden states is data: ``hidden_states.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dspark_ckpt.facts.config import DrafterConfig
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.tokenizer import (
    DIFFER,
    NOT_CHECKED,
    TokenizerComparison,
    TokenizerError,
    TokenizerSide,
    compare_tokenizers,
    tokenizer_files,
)
from dspark_ckpt.profiles.hidden_states import HiddenStates, hidden_states
from dspark_ckpt.profiles.registry import DFLASH, DSPARK, EAGLE3, Profile
from dspark_ckpt.rules.common import new_finding
from dspark_ckpt.rules.findings import Finding
from dspark_ckpt.source.checkpoint import Checkpoint

FC = "fc.weight"
INPUT_NORM = "input_norm.weight"
EMBED = "embed_tokens.weight"
LM_HEAD = "lm_head.weight"

# --- facts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetFacts:
    """What the target rules read: the drafter's config and tensors, the target's text
    config, and the tokenizer comparison (made once, here)."""

    cfg: DrafterConfig
    target: Target
    fc: tuple[int, ...] | None  # fc.weight's shape
    input_norm: tuple[int, ...] | None
    has_embed: bool
    has_lm_head: bool
    tokenizer: TokenizerComparison | None  # None: no target folder (--target-vocab-size)

    @property
    def raw(self) -> dict:
        return self.cfg.raw if isinstance(self.cfg.raw, dict) else {}

    @property
    def ht(self) -> int | None:
        """The target's hidden size."""
        return self.target.model.hidden_size if self.target.model else None

    @property
    def layers(self) -> int | None:
        return self.target.model.num_hidden_layers if self.target.model else None


def _shape(ckpt: Checkpoint, name: str) -> tuple[int, ...] | None:
    info = ckpt.find(name)
    return tuple(info.shape) if info is not None else None


def gather_target(ckpt: Checkpoint, cfg: DrafterConfig, target: Target) -> TargetFacts:
    """Read what the target rules need, the tokenizer files of both folders included."""
    return TargetFacts(
        cfg,
        target,
        _shape(ckpt, FC),
        _shape(ckpt, INPUT_NORM),
        ckpt.find(EMBED) is not None,
        ckpt.find(LM_HEAD) is not None,
        _tokenizers(ckpt, cfg, target),
    )


def _tokenizers(ckpt: Checkpoint, cfg: DrafterConfig, target: Target):
    if target.origin is None:
        return None
    drafter = ckpt.origin
    try:
        return compare_tokenizers(drafter, target.origin, min(cfg.vocab_size, target.vocab_size))
    except TokenizerError as e:  # a broken tokenizer file is reported, never fatal
        d, t = (tokenizer_files(s) for s in (drafter, target.origin))
        return TokenizerComparison(
            NOT_CHECKED, f"{e.path}: {e.message}", TokenizerSide(d), TokenizerSide(t)
        )


# --- helpers --------------------------------------------------------------------------


def _get(raw: dict, dotted: str) -> Any:
    node: Any = raw
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _int_list(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(type(v) is int for v in value):
        return value
    return None


def uses_aux(f: TargetFacts, p: Profile) -> bool:
    """Whether the drafter's fc is fed the target's hidden states under ``p``."""
    if p.family == EAGLE3:  # eagle_config.use_aux_hidden_state (default True)
        return _get(f.raw, "eagle_config.use_aux_hidden_state") is not False
    return p.family in (DSPARK, DFLASH)


def aux_width(f: TargetFacts, hs: HiddenStates) -> tuple[int | None, str]:
    """The width of each target state the drafter's fc is built for, and its key."""
    if hs.aux_width == "target_hidden_size":
        value = f.raw.get("target_hidden_size")
        if type(value) is int and value > 0:
            return value, "target_hidden_size"
        return f.cfg.hidden_size, "hidden_size (no target_hidden_size)"
    return f.cfg.hidden_size, "hidden_size (the runtime does not read target_hidden_size)"


def aux_ids(f: TargetFacts, hs: HiddenStates) -> tuple[list[int], str, int] | None:
    """The aux layer ids the runtime reads, the key they came from and their shift to a
    capture point; None when the config names none (the runtime's defaults apply)."""
    for key, shift in hs.aux_ids:
        ids = _int_list(_get(f.raw, key))
        if ids:
            return ids, key, shift
    return None


# --- rules, per profile ------------------------------------------------------------------


def target_profile_findings(f: TargetFacts, p: Profile) -> list[Finding]:
    hs = hidden_states(p)
    if hs is None or not uses_aux(f, p):
        return []
    return (
        _target_arch_rule(f, p, hs)
        + _hidden_size_rule(f, p, hs)
        + _shared_width_rule(f, p, hs)
        + _aux_ids_rule(f, p, hs)
    )


def _target_arch_rule(f: TargetFacts, p: Profile, hs: HiddenStates) -> list[Finding]:
    archs = f.target.model.architectures if f.target.model else ()
    known = [a for a in archs if a in hs.capable_targets or a in hs.refused_targets]
    if not known or known[0] not in hs.refused_targets:  # the first one the runtime knows
        return []
    return [
        new_finding(
            "DSC705",
            f"the target's architecture {known[0]} does not give aux hidden states in "
            f"{p.runtime} (its model class does not implement SupportsEagle3): the model "
            "runner raises 'Model does not support EAGLE3 interface' at start-up",
            tensor="architectures",
            hint=f"serve this drafter on a target {p.runtime} can take hidden states from",
        )
    ]


def _hidden_size_rule(f: TargetFacts, p: Profile, hs: HiddenStates) -> list[Finding]:
    width, key = aux_width(f, hs)
    ht = f.ht
    if width is None or ht is None or width == ht:
        return []
    fc, norm = f.fc, f.input_norm
    # the concatenated width the weights take: fc's columns, else input_norm's length
    taken = fc[1] if fc is not None and len(fc) == 2 else None
    if taken is None and norm is not None and len(norm) == 1:
        taken = norm[0]
    evidence = "".join(
        f"; {name} is {list(shape)}"
        for name, shape in ((FC, fc), (INPUT_NORM, norm))
        if shape is not None
    )
    hint = None
    if taken is not None and taken % ht == 0 and hs.aux_width == "target_hidden_size":
        hint = (
            f"the weights take {taken // ht} states {ht} wide, the target's: set "
            f'"target_hidden_size": {ht} in config.json'
        )
    if hint is None:
        hint = (
            f"this drafter was trained for a target whose hidden_size is {width}: use the "
            f"drafter trained for this target (hidden_size {ht})"
        )
    return [
        new_finding(
            "DSC701",
            f"{p.name} builds fc for target hidden states {width} wide ({key}) but the "
            f"target's hidden_size is {ht} ({f.target.model.key('hidden_size')}){evidence}: "
            f"{p.runtime} fails with a shape error when the target's hidden states first "
            "reach fc",
            tensor=FC
            if fc is not None
            else INPUT_NORM
            if norm is not None
            else "target_hidden_size",
            hint=hint,
        )
    ]


def _shared_width_rule(f: TargetFacts, p: Profile, hs: HiddenStates) -> list[Finding]:
    h, ht = f.cfg.hidden_size, f.ht
    if h is None or ht is None or h == ht:
        return []
    shared = []
    if hs.embed_from_target == "always":
        shared = [EMBED, LM_HEAD]
    elif hs.embed_from_target == "missing":
        shared = [n for n, has in ((EMBED, f.has_embed), (LM_HEAD, f.has_lm_head)) if not has]
        if p.family == DSPARK:  # qwen3_dspark.py load_weights: embed only when V <= Vt
            # (else DSC101 refuses the load), the head only when Vd == Vt (else DSC102/104)
            keep = {EMBED: f.cfg.vocab_size <= f.target.vocab_size}
            keep[LM_HEAD] = f.cfg.draft_vocab_size == f.target.vocab_size
            shared = [n for n in shared if keep[n]]
    elif hs.embed_from_target == "unless_target_hidden_size":
        own = f.raw.get("target_hidden_size")
        if own is None or own == h:
            shared = [EMBED]
    if not shared:
        return []
    names = " and ".join(shared)
    return [
        new_finding(
            "DSC702",
            f"{p.name} gives the drafter the target's {names} ({ht} wide, the target's "
            f"hidden_size) but the drafter's hidden_size is {h}: a shape error at its first "
            "forward",
            tensor=shared[0],
            hint=f"ship the drafter's own {names} [rows, {h}]"
            + (" and set target_hidden_size in config.json" if p.runtime == "SGLang" else ""),
        )
    ]


def capture_points(ids: list[int], shift: int) -> list[int]:
    return [i + shift for i in ids]


def valid_ids(hs: HiddenStates, n: int, shift: int) -> tuple[int, int]:
    """The ids ``[lo, hi]`` a target of ``n`` layers produces a state for under ``hs``
    (and, where the runtime checks them at start-up, accepts)."""
    top = n if hs.captures == "0..N" else n - 1
    lo, hi = -shift, top - shift
    if hs.checked is not None:
        lo, hi = max(lo, 0), min(hi, n - 1)
    return lo, hi


def _aux_ids_rule(f: TargetFacts, p: Profile, hs: HiddenStates) -> list[Finding]:
    n = f.layers
    found = aux_ids(f, hs)
    if n is None or found is None or hs.captures is None:
        return []
    ids, key, shift = found
    top = n if hs.captures == "0..N" else n - 1
    lo, hi = valid_ids(hs, n, shift)
    points = capture_points(ids, shift)
    outside = [i for i in ids if not lo <= i <= hi]
    repeated = len(set(points)) < len(points)
    if not outside and not repeated:
        return []
    got = len({c for c in points if 0 <= c <= top})
    what = []
    if outside:
        what.append(f"{outside} outside [{lo}, {hi}]")
    if repeated:
        what.append("repeated ids (each layer is captured once)")
    if hs.checked is not None and any(not 0 <= i < n for i in ids):
        fails = f"{p.runtime} refuses the config at start-up (layer id out of range)"
    else:
        fails = (
            f"the target produces {got} of the {len(ids)} states fc expects: a shape error "
            "when they first reach fc"
        )
    at = "the state entering layer id + 1" if shift else "the state entering layer id"
    return [
        new_finding(
            "DSC703",
            f"{key} {ids}: {' and '.join(what)} for a target of {n} layers "
            f"({f.target.model.key('num_hidden_layers')}); {p.runtime} captures {at}, "
            f"for layer boundaries [0, {top}]: {fails}",
            tensor=key,
            hint=f"use layer ids in [{lo}, {hi}] of this target, as the drafter was "
            "trained with; a drafter trained on a deeper target needs that target",
        )
    ]


# --- rules every runtime shares ----------------------------------------------------------


def target_common_findings(f: TargetFacts) -> list[Finding]:
    return _verifier_rule(f) + _tokenizer_rules(f)


def verifier(raw: dict) -> tuple[list[str], str | None]:
    """The target a speculators config names: verifier architectures and name_or_path."""
    ver = _get(raw, "speculators_config.verifier")
    if not isinstance(ver, dict):
        return [], None
    archs = ver.get("architectures")
    archs = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    name = ver.get("name_or_path")
    return archs, name if isinstance(name, str) else None


def trained_layers(raw: dict) -> tuple[int, str] | None:
    """``num_target_layers`` (SpecForge DFlash/DSpark): the trained target's depth."""
    for key in ("dflash_config.num_target_layers", "num_target_layers"):
        value = _get(raw, key)
        if type(value) is int and value > 0:
            return value, key
    return None


def _verifier_rule(f: TargetFacts) -> list[Finding]:
    model = f.target.model
    if model is None:
        return []
    out = []
    archs, name = verifier(f.raw)
    if archs and model.architectures and not set(archs) & set(model.architectures):
        made = f"{', '.join(archs)}" + (f" ({name})" if name else "")
        out.append(
            new_finding(
                "DSC704",
                f"the drafter was made for {made} (speculators_config.verifier) but the "
                f"target is {', '.join(model.architectures)}: no runtime checks this; hidden "
                "states and tokens from another model make its proposals garbage",
                tensor="speculators_config.verifier.architectures",
                hint="use the drafter trained for this target",
            )
        )
    trained = trained_layers(f.raw)
    if trained and f.layers and trained[0] != f.layers:
        out.append(
            new_finding(
                "DSC704",
                f"the drafter was trained on a target of {trained[0]} layers ({trained[1]}) "
                f"but the target has {f.layers} ({model.key('num_hidden_layers')}): SGLang "
                "warns and picks layers of this target; the drafter is fed states it was not "
                "trained on",
                tensor=trained[1],
                hint="use the drafter trained for this target",
            )
        )
    return out


def _tokenizer_rules(f: TargetFacts) -> list[Finding]:
    tok = f.tokenizer
    if tok is None:
        return []
    if tok.result == NOT_CHECKED:
        if not (tok.drafter.files or tok.target.files):
            return []  # neither folder has tokenizer files: nothing to compare, nothing to say
        return [new_finding("DSC712", f"tokenizer not checked: {tok.reason}")]
    if tok.result != DIFFER:
        return []
    out = []
    if tok.vocab_differs:
        shown = ", ".join(
            f"id {i}: drafter {a!r}, target {b!r}" for i, a, b in tok.first_differences
        )
        out.append(
            new_finding(
                "DSC710",
                f"the drafter's tokenizer differs from the target's: {tok.differing_ids} of "
                f"the {tok.compared_ids} shared ids name other tokens (first: {shown}); the "
                "runtime loads it and feeds it the target's ids: proposals are garbage and "
                "acceptance collapses",
                tensor="tokenizer.json" if "tokenizer.json" in tok.drafter.files else "vocab.json",
            )
        )
    if tok.special_differences:
        out.append(
            new_finding(
                "DSC711",
                f"special tokens differ: {'; '.join(tok.special_differences)}",
                tensor="tokenizer_config.json",
            )
        )
    return out


# --- the comparisons made, for the report ------------------------------------------------


def _compared(check, runtime, drafter, drafter_key, target, target_key, result, detail=None):
    return {
        "check": check,
        "runtime": runtime,
        "drafter": drafter,
        "drafter_key": drafter_key,
        "target": target,
        "target_key": target_key,
        "result": result,
        "detail": detail,
    }


def _result(a, b) -> str:
    return NOT_CHECKED if a is None or b is None else "same" if a == b else "differ"


def comparisons(f: TargetFacts, profiles: list[Profile]) -> list[dict]:
    """Each drafter/target comparison made, as plain data (the JSON report's
    ``target_checks``): one per runtime where the runtimes read the drafter differently."""
    model = f.target.model
    key = model.key if model else (lambda name: None)
    out = []
    seen: set[tuple[str, str]] = set()
    for p in profiles:
        hs = hidden_states(p)
        if hs is None or (p.runtime, p.family) in seen or not uses_aux(f, p):
            continue
        seen.add((p.runtime, p.family))
        runtime = f"{p.runtime} {p.family}"
        width, wkey = aux_width(f, hs)
        out.append(
            _compared(
                "aux_state_width", runtime, width, wkey, f.ht, key("hidden_size"),
                _result(width, f.ht), f"fc.weight {list(f.fc)}" if f.fc else None,
            )
        )  # fmt: skip
        found = aux_ids(f, hs)
        if found is not None and hs.captures is not None:
            ids, ikey, shift = found
            detail = f"captured at {capture_points(ids, shift)}"
            result = NOT_CHECKED
            if f.layers is not None:
                lo, hi = valid_ids(hs, f.layers, shift)
                ok = all(lo <= i <= hi for i in ids) and len(set(ids)) == len(ids)
                result = "within" if ok else "outside"
                detail += f"; valid ids [{lo}, {hi}]"
            out.append(
                _compared(
                    "aux_layer_ids", runtime, ids, ikey, f.layers,
                    key("num_hidden_layers"), result, detail,
                )
            )  # fmt: skip
    archs, name = verifier(f.raw)
    if archs:
        ours = list(model.architectures) if model else None
        result = NOT_CHECKED if not ours else "same" if set(archs) & set(ours) else "differ"
        out.append(
            _compared(
                "architecture", None, archs, "speculators_config.verifier.architectures",
                ours, "architectures", result, name,
            )
        )  # fmt: skip
    trained = trained_layers(f.raw)
    if trained:
        out.append(
            _compared(
                "num_target_layers", None, trained[0], trained[1], f.layers,
                key("num_hidden_layers"), _result(trained[0], f.layers),
            )
        )  # fmt: skip
    if f.tokenizer is not None:
        tok = f.tokenizer
        entry = _compared(
            "tokenizer", None,
            {"files": list(tok.drafter.files), "sha256": tok.drafter.sha256}, None,
            {"files": list(tok.target.files), "sha256": tok.target.sha256}, None,
            tok.result, tok.reason,
        )  # fmt: skip
        entry["compared_ids"] = tok.compared_ids
        entry["differing_ids"] = tok.differing_ids
        entry["first_differences"] = [
            {"id": i, "drafter": a, "target": b} for i, a, b in tok.first_differences
        ]
        entry["special_differences"] = list(tok.special_differences)
        out.append(entry)
    return out
