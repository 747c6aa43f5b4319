"""JSON: every object the commands print with ``--format json``, each a versioned public
schema (documented in docs/json.md). Add fields freely; never rename or drop one.

Plain data in, objects out: nothing here decides anything. What an object needs beyond
the result it shows (the profiles, the finding codes) is imported where it is built, so
that each command's JSON loads only what that command uses.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dspark_ckpt.output.text import inert

if TYPE_CHECKING:
    from dspark_ckpt.commands.inspect import Report
    from dspark_ckpt.commands.runs import CheckResult
    from dspark_ckpt.rules.findings import Code, Finding

INSPECT_SCHEMA = "dspark-ckpt/inspect/v2"
CHECK_SCHEMA = "dspark-ckpt/check/v2"
FIX_SCHEMA = "dspark-ckpt/fix/v1"
VERIFY_SCHEMA = "dspark-ckpt/verify/v1"
PROFILES_SCHEMA = "dspark-ckpt/profiles/v1"
EXPLAIN_SCHEMA = "dspark-ckpt/explain/v1"
CODES_SCHEMA = "dspark-ckpt/codes/v1"
ERROR_SCHEMA = "dspark-ckpt/error/v1"
# each command's schema (fix and verify: also the one their error object carries)
SCHEMAS = {
    "inspect": INSPECT_SCHEMA,
    "check": CHECK_SCHEMA,
    "fix": FIX_SCHEMA,
    "verify": VERIFY_SCHEMA,
    "profiles": PROFILES_SCHEMA,
    "explain": EXPLAIN_SCHEMA,
}


def to_json(obj: dict[str, Any]) -> str:
    """``obj`` as indented JSON that a CI log shows but never obeys: JSON escapes control
    characters itself, and the ``[`` of a ``##[`` in a string is written ``\\u005b``
    (``output/text.py``'s ``inert``), which reads back as ``[``."""
    return inert(json.dumps(obj, indent=2), lambda c: f"\\u{ord(c):04x}")


def error_obj(schema: str, err, kind: str = "checkpoint", command: str | None = None) -> dict:
    """The one JSON object of a command that failed before its result: ``fix`` and
    ``verify`` in their own schema, every other command (and a usage error Click finds
    before any command runs) in ``dspark-ckpt/error/v1``. ``kind``: usage, network, io or
    checkpoint; ``file``: the file ``err`` names, if any."""
    message = getattr(err, "message", None) if getattr(err, "path", None) else None
    error = {
        "kind": kind,
        "file": getattr(err, "path", None),
        "message": message or str(err),
    }
    if schema != ERROR_SCHEMA:
        return {"schema": schema, "ok": False, "error": error}
    return {"schema": schema, "command": command, "ok": False, "error": error}


def finding_obj(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity,
        "title": f.title,
        "message": f.message,
        "tensor": f.tensor,
        "file": f.file,
        "hint": f.fix_hint,
        "profile": f.profile,
        # what `fix` does about it: "safe" (applied by default), "unsafe" (--unsafe-fixes), null
        "repair": f.repair,
    }


def inspect_obj(r: Report) -> dict[str, Any]:
    """The ``dspark-ckpt/inspect/v2`` object. Add fields freely; never rename or drop one
    (v2: verdicts only for the drafter family's profiles; ``covered``, ``releases``,
    ``not_applicable``; ``profile`` null when no profile covers the family)."""
    from dspark_ckpt.profiles.registry import PROFILES
    from dspark_ckpt.rules.findings import bounded

    d, t, ck = r.drafter, r.target, r.checkpoint
    m = t.model if t else None
    obj = {
        "schema": INSPECT_SCHEMA,
        "profile": r.profile or None,
        "drafter": {
            "source": r.drafter_source,
            "architectures": list(d.architectures) if d else [],
            "model_type": d.model_type if d else None,
            "vocab_size": d.vocab_size if d else None,
            "draft_vocab_size": d.draft_vocab_size if d else None,
            "draft_vocab_size_defaulted": d.draft_vocab_size_defaulted if d else None,
            "hidden_size": d.hidden_size if d else None,
            "markov_rank": d.markov_rank if d else None,
            "files": len(ck.files) if ck else 0,
            "tensors": len(ck.tensors) if ck else 0,
        },
        "target": {
            "source": t.source if t else None,
            "vocab_size": t.vocab_size if t else None,
            "vocab_key": t.vocab_key if t else None,
            "embedding_rows": t.embedding_rows if t else None,
            "embedding_tensor": t.embedding_tensor if t else None,
            # v2: the target's text config (null: not in it, or no --target folder)
            "text_config": m.text_config if m else None,
            "hidden_size": m.hidden_size if m else None,
            "num_hidden_layers": m.num_hidden_layers if m else None,
            "architectures": list(m.architectures) if m else None,
            "tie_word_embeddings": m.tie_word_embeddings if m else None,
            "dtype": m.dtype if m else None,
            "quantization": m.quantization if m else None,
        },
        # v2: each drafter/target comparison made (hidden sizes, aux ids, tokenizer, ...)
        "target_checks": r.target_checks,
        "classification": r.classification,
        "padded_rows": r.padded_rows,
        "expanded_input_vocab": r.expanded_input_vocab,
        "findings": [finding_obj(f) for f in r.findings],
        "verdicts": r.verdicts,
        "ok": r.ok,
        "profiles": r.profiles,
        "family": r.family,
        "checks": r.checks,
        "failing_elsewhere": {
            name: [finding_obj(f) for f in found] for name, found in r.failing_elsewhere.items()
        },
        # the findings of each evaluated profile that does not decide (its own rules': the
        # common ones are in findings), whatever their severity
        "other_findings": {
            name: [finding_obj(f) for f in found] for name, found in r.others.items()
        },
        "covered": r.covered,
        "releases": {name: PROFILES[name].release for name in r.verdicts if name in PROFILES},
        "not_applicable": r.not_applicable,
        # the checks the target as given left undecided (a target folder without weights,
        # --target-vocab-size), each with why: the verdict stands on the others
        "partial": r.partial,
        "not_checked": [not_checked_obj(n) for n in r.not_checked],
    }
    for key in ("drafter", "target"):  # what is quoted from input, capped (findings are)
        obj[key] = bounded(obj[key])
    obj["target_checks"] = [bounded(check) for check in r.target_checks]
    return obj


# --- check ----------------------------------------------------------------------------


def not_checked_obj(n) -> dict[str, Any]:
    """One check not made (``rules/unchecked.py``'s ``NotChecked``): its code, why."""
    return {"code": n.code, "title": n.title, "reason": n.reason, "profiles": list(n.profiles)}


def check_obj(result: CheckResult) -> dict[str, Any]:
    """The ``dspark-ckpt/check/v2`` object. Add fields freely; never rename or drop one.
    v2: a run whose verdict is partial fails (``ok`` false) unless allowed."""
    return {
        "schema": CHECK_SCHEMA,
        "config": str(result.config_path),
        "runs": [
            {
                "name": run.name,
                "profile": run.profile,
                "ok": run.ok,
                "drafter": run.report.drafter_source if run.report else None,
                "target": run.report.target.source if run.report and run.report.target else None,
                "classification": run.report.classification if run.report else None,
                "findings": [finding_obj(f) for f in run.findings],
                "ignored": [{**finding_obj(f), "reason": why} for f, why in run.ignored],
                "failure": run.why_failed,  # why the run fails, filled on every failing run
                # v2: the checks not made under this profile, each with why; a partial
                # run passes only with allow_partial, the written reason
                "partial": run.partial,
                "not_checked": [not_checked_obj(n) for n in run.not_checked],
                "allow_partial": run.allow_partial,
            }
            for run in result.runs
        ],
        "ok": result.ok,
        "partial": result.partial,
    }


# --- fix ------------------------------------------------------------------------------


def fix_obj(r) -> dict[str, Any]:
    """The ``dspark-ckpt/fix/v1`` object (``r``: a ``fix.FixResult``). Add fields freely;
    never rename or drop one."""
    p, req = r.plan, r.request
    return {
        "schema": FIX_SCHEMA,
        "profile": req.profile,
        "drafter": r.before.drafter_source,
        "mode": req.mode,
        "classification": p.classification,
        "draft_vocab_size": p.vd,
        "target_vocab_size": p.vt,
        "mask": None
        if p.mask is None
        else {
            "style": req.mask_style,
            "masked_rows": p.masked_rows,
            "masking_needed": p.masked_rows > 0,
        },
        "d2t_origin": p.d2t_origin,
        "written": [
            {
                "path": w.path,
                "tensor": w.tensor,
                "dtype": w.dtype,
                "shape": w.shape,
                "sha256": w.sha256,
            }
            for w in r.written
        ],
        "files": r.files,
        "notes": r.notes,
        "verdicts_before": r.before.verdicts,
        "verdicts_after": r.after.verdicts,
        "findings_after": [finding_obj(f) for f in r.after.findings],
        "ok": r.ok,
    }


# --- verify ---------------------------------------------------------------------------


def verify_obj(r) -> dict[str, Any]:
    """The ``dspark-ckpt/verify/v1`` object. Add fields freely; never rename or drop one."""
    t, d = r.target, r.drafter
    sampled_time = r.timings_s["logits"] + r.timings_s["sampling"]
    return {
        "schema": VERIFY_SCHEMA,
        "drafter": {
            "source": r.drafter_source,
            "vocab_size": d.vocab_size,
            "draft_vocab_size": d.draft_vocab_size,
            "hidden_size": d.hidden_size,
        },
        "target": {
            "source": t.source,
            "vocab_size": t.vocab_size,
            "embedding_rows": t.embedding_rows,
        },
        "classification": r.classification,
        "head": {"source": r.head_source, "shape": list(r.head_shape), "bytes": r.head_bytes},
        "device": r.device,
        "dtype": r.dtype,
        "compute_dtype": r.compute_dtype,
        "tokens": r.tokens,
        "random_tokens": r.random_tokens,
        "adversarial_tokens": r.adversarial_tokens,
        "seed": r.seed,
        "topk": r.topk,
        "markov": r.markov,
        "d2t": r.d2t,
        "mask": {
            "source": r.mask_source,
            "masked_rows": r.masked_rows,
            "hidden_tokens": r.hidden_tokens,
            "leaked_rows": r.leaked_rows,
        },
        "illegal_rows": r.illegal_rows,
        "modes": {
            name: {
                "unmasked_illegal": m.unmasked_illegal,
                "masked_illegal": m.masked_illegal,
                "unmasked_out_of_bounds": m.unmasked_out_of_bounds,
                "masked_out_of_bounds": m.masked_out_of_bounds,
                "sampled": m.sampled,
            }
            for name, m in r.modes.items()
        },
        "timings_s": dict(r.timings_s),
        "tokens_per_s": r.tokens / sampled_time if sampled_time > 0 else None,
        "bandwidth_gbs": r.bandwidth_gbs,
        "peak_memory_bytes": r.peak_memory_bytes,
        "peak_memory_kind": r.peak_memory_kind,
        "notes": list(r.notes),
        # added later: inspect's verdict on the same pair ("ok" is the mask's alone);
        # null where no profile covers the family
        "inspect": None
        if getattr(r, "inspect", None) is None
        else {"profiles": r.inspect.profiles, "ok": r.inspect.ok, "errors": r.inspect.errors},
        "ok": r.ok,
    }


# --- profiles, explain ----------------------------------------------------------------


def profile_obj(name: str) -> dict[str, Any]:
    from dspark_ckpt.profiles.registry import PROFILES, names

    p = PROFILES[name]
    rules = {k: list(v) if isinstance(v, tuple) else v for k, v in p.rules.items()}
    return {
        "name": p.name,
        "qualified_name": p.qualified_name,  # RUNTIME-FAMILY@FIRST-RELEASE
        "names": names(p),  # every name --profile takes for it
        "runtime": p.runtime,
        "family": p.family,
        "versions": p.release,  # v1's name for the release
        "release": p.release,
        "releases": p.releases,  # the release range --runtime resolves to this profile
        "sources": list(p.sources),
        "rules": rules,
        "cites": dict(p.cites),
    }


def profiles_obj() -> dict[str, Any]:
    """The ``dspark-ckpt/profiles/v1`` object: every profile with its rules and sources."""
    from dspark_ckpt.profiles.registry import PROFILES

    return {"schema": PROFILES_SCHEMA, "profiles": [profile_obj(n) for n in PROFILES]}


def explain_obj(code: Code) -> dict[str, Any]:
    """The ``dspark-ckpt/explain/v1`` object for one finding code."""
    return {
        "schema": EXPLAIN_SCHEMA,
        "code": code.code,
        "severity": code.severity,
        "title": code.title,
        "explanation": code.explanation,
        "hint": code.hint,
    }


def codes_obj() -> dict[str, Any]:
    """The ``dspark-ckpt/codes/v1`` object: every finding code, as ``explain`` gives one."""
    from dspark_ckpt.rules.codes import CODES

    codes = [{k: v for k, v in explain_obj(c).items() if k != "schema"} for c in CODES.values()]
    return {"schema": CODES_SCHEMA, "codes": codes}


def repair_obj(r) -> dict[str, Any]:
    """``fix`` without ``--emit-*`` (``r``: a ``repair.RepairResult``), as the
    ``dspark-ckpt/fix/v1`` object: its fields, with ``mode`` "repair" and the ``plan``."""
    p, b = r.plan, r.before
    d = b.drafter
    return {
        "schema": FIX_SCHEMA,
        "profile": p.profiles[0] if p.profiles else None,
        "profiles": p.profiles,
        "drafter": b.drafter_source,
        "mode": "repair",
        "classification": b.classification,
        "draft_vocab_size": d.draft_vocab_size if d else None,
        "target_vocab_size": b.target.vocab_size if b.target else None,
        "mask": None,
        "d2t_origin": None,
        "written": [],
        "files": r.files,
        "notes": r.notes,
        "verdicts_before": b.verdicts,
        "verdicts_after": r.after.verdicts,
        "findings_after": [finding_obj(f) for f in r.after.findings],
        "plan": plan_obj(p, written=bool(r.files)),
        "verify": verify_obj(r.verify) if r.verify is not None else None,
        "ok": r.ok,
    }


def plan_obj(p, written: bool) -> dict[str, Any]:
    """A repair plan (``repair.RepairPlan``): what it changes and what it leaves."""

    def tensor(t) -> dict[str, Any] | None:
        return None if t is None else {"dtype": t[0], "shape": list(t[1]), "file": t[2]}

    def values(v) -> dict[str, Any] | None:  # a replaced tensor whose shape stays
        if v is None:
            return None
        return {
            "changed": v.changed,
            "total": v.total,
            "first": [{"index": list(i), "before": a, "after": b} for i, a, b in v.first],
            "before_range": list(v.before_range),
            "after_range": list(v.after_range),
        }

    return {
        "profiles": p.profiles,
        "repairs": [
            {
                "code": a.code,
                "profiles": list(a.profiles),
                "repair": a.repair,
                "safety": a.safety,
                "summary": a.summary,
            }
            for a in p.applied
        ],
        "config": [
            {
                "key": c.key,
                "before": c.before,
                "after": c.after,
                "added": c.added,
                "removed": c.removed,
            }
            for c in p.config
        ],
        "tensors": [
            {
                "name": t.name,
                "action": t.action,
                "before": tensor(t.before),
                "after": tensor(t.after),
                "renamed_from": t.renamed_from,
                "values": values(t.values),
            }
            for t in p.tensors
        ],
        "left": [
            {
                "code": x.code,
                "severity": x.severity,
                "profiles": list(x.profiles),
                "why": x.why,
                "key": x.key,
            }
            for x in p.left
        ],
        "conflicts": p.conflicts,
        "sets": p.sets,
        "refusal": p.refusal,
        "written": written,
    }
