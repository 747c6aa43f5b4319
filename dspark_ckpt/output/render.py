"""The machine formats, in one place: plain data in, text out.

JSON (each object a versioned public schema, documented in docs/json.md) and the CI
formats (GitHub annotations, JUnit, SARIF); the table for people is ``tables.py``, kept
apart so that these start without Rich. Nothing here decides anything: it only shows
a result.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dspark_ckpt.commands.inspect import UNREADABLE, Report
from dspark_ckpt.profiles.registry import PROFILES
from dspark_ckpt.rules.codes import CODES
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING, Code, Finding

if TYPE_CHECKING:
    from dspark_ckpt.commands.check import CheckResult, CheckRun

INSPECT_SCHEMA = "dspark-ckpt/inspect/v2"
PROFILES_SCHEMA = "dspark-ckpt/profiles/v1"
EXPLAIN_SCHEMA = "dspark-ckpt/explain/v1"
CODES_SCHEMA = "dspark-ckpt/codes/v1"


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
    }


def inspect_obj(r: Report) -> dict[str, Any]:
    """The ``dspark-ckpt/inspect/v2`` object. Add fields freely; never rename or drop one
    (v2: verdicts only for the drafter family's profiles; ``covered``, ``releases``,
    ``not_applicable``; ``profile`` null when no profile covers the family)."""
    d, t, ck = r.drafter, r.target, r.checkpoint
    m = t.model if t else None
    return {
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
        "covered": r.covered,
        "releases": {name: PROFILES[name].release for name in r.verdicts if name in PROFILES},
        "not_applicable": r.not_applicable,
    }


def printable(text: str) -> str:
    """``text`` with every control character but the newline escaped."""
    return "\n".join(map(one_line, text.split("\n")))


MAX_LINE = 8000  # characters of one line shown; a hostile name can be 100 MB


def one_line(text: str) -> str:
    """``text`` with control characters (newlines, terminal escapes) shown escaped; past
    ``MAX_LINE`` characters its middle is left out (the file named at the start and the
    problem at the end stay)."""
    if len(text) > MAX_LINE:
        half = MAX_LINE // 2
        text = f"{text[:half]}[... {len(text) - 2 * half} characters ...]{text[-half:]}"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def error_lines(r: Report) -> list[str]:
    """``dspark-ckpt: error: FILE: problem`` for each unreadable input (DSC001), for stderr."""
    return [
        one_line(
            f"dspark-ckpt: error: {f.file + ': ' if f.file else ''}{f.message}"
            + (f"; {f.hint}" if f.hint else "")  # what to do, where it is not to re-export
        )
        for f in r.findings
        if f.code == UNREADABLE
    ]


def error_obj(schema: str, err) -> dict[str, Any]:
    """The one JSON object of a command that could not read its input (``fix``, ``verify``)."""
    return {"schema": schema, "ok": False, "error": {"file": err.path, "message": err.message}}


def to_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, indent=2)


def profile_obj(name: str) -> dict[str, Any]:
    p = PROFILES[name]
    rules = {k: list(v) if isinstance(v, tuple) else v for k, v in p.rules.items()}
    return {
        "name": p.name,
        "runtime": p.runtime,
        "family": p.family,
        "versions": p.release,  # v1's name for the release
        "release": p.release,
        "sources": list(p.sources),
        "rules": rules,
        "cites": dict(p.cites),
    }


def profiles_obj() -> dict[str, Any]:
    """The ``dspark-ckpt/profiles/v1`` object: every profile with its rules and sources."""
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
    codes = [{k: v for k, v in explain_obj(c).items() if k != "schema"} for c in CODES.values()]
    return {"schema": CODES_SCHEMA, "codes": codes}


# ---------------------------------------------------------------- CI formats
#
# github, junit and sarif report on a list of ``CheckRun`` (check.py): ``inspect``
# gives one, ``check`` one per pair and profile. Any command can reuse them.

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}
GITHUB_COMMAND = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _gh_data(s: str) -> str:
    return printable(s).replace("%", "%25").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def _with_hint(f: Finding) -> str:
    """A finding's one-line text for CI formats: which runtime's rule found it (none for a
    check every runtime shares), the message and the hint."""
    text = f"[{f.profile}] {f.message}" if f.profile else f.message
    return f"{text} (fix: {f.fix_hint})" if f.fix_hint else text


def github_lines(runs: list[CheckRun]) -> list[str]:
    """GitHub Actions workflow commands: one annotation per finding, on its file."""
    lines = []
    for run in runs:
        for f in run.findings:
            props = (
                f"file={_gh_prop(_repo_path(f.file))},title={_gh_prop(f.code)}"
                if f.file
                else f"title={_gh_prop(f.code)}"
            )
            lines.append(f"::{GITHUB_COMMAND[f.severity]} {props}::{_gh_data(_with_hint(f))}")
        if run.failure:
            lines.append(
                f"::error title={_gh_prop(run.profile)}::{_gh_data(run.title + ': ' + run.failure)}"
            )
    return list(dict.fromkeys(lines))  # a finding common to several profiles: annotated once


def junit_xml(runs: list[CheckRun], suite: str = "dspark-ckpt") -> str:
    """JUnit XML: one test case per check run, a failure for its errors."""
    import xml.etree.ElementTree as ET

    failed = sum(not r.ok for r in runs)
    root = ET.Element(
        "testsuites", name=suite, tests=str(len(runs)), failures=str(failed), errors="0"
    )
    ts = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        tests=str(len(runs)),
        failures=str(failed),
        errors="0",
        skipped="0",
    )
    for run in runs:
        case = ET.SubElement(ts, "testcase", classname=f"{suite}.{run.name}", name=run.profile)
        if run.report is not None:
            case.set("file", run.report.drafter_source)
        if run.failure:
            ET.SubElement(case, "failure", type=run.profile, message=run.failure).text = run.failure
        elif run.errors:
            errs = run.errors
            ET.SubElement(
                case,
                "failure",
                type=errs[0].code,
                message=f"{len(errs)} error(s): {', '.join(f.code for f in errs)}",
            ).text = "\n".join(f"{f.code} {f.file}: {_with_hint(f)}" for f in errs)
        rest = [
            f"{f.severity} {f.code} {f.file}: {f.message}"
            for f in run.findings
            if f.severity != ERROR
        ]
        rest += [
            f"ignored {f.code} {f.file}: {f.message} (reason: {why})" for f, why in run.ignored
        ]
        if rest:
            ET.SubElement(case, "system-out").text = "\n".join(rest)
    ET.indent(root)
    xml = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + printable(xml) + "\n"  # XML 1.0 has no ESC


def _repo_path(path: str) -> str:
    """A relative path as GitHub reads it: from the repository root. In a GitHub Actions
    job run in a subfolder (the action's working-directory), it is re-rooted at
    ``GITHUB_WORKSPACE``; elsewhere, and for absolute paths and Hub URIs, it is kept."""
    import os

    workspace = os.environ.get("GITHUB_WORKSPACE")
    if not workspace or "://" in path or os.path.isabs(path):
        return path
    return os.path.relpath(os.path.abspath(path), os.path.abspath(workspace))


def _sarif_uri(path: str) -> str:
    """A file as a URI: relative ones stay relative (to the repository), percent-encoded."""
    import os
    from pathlib import Path
    from urllib.parse import quote

    if "://" in path:  # a Hub file, hf://org/name@commit/file: already a URI
        return path
    p = Path(_repo_path(path))
    # the path's own bytes, percent-encoded (as as_uri does): a name that is not UTF-8 too
    return p.resolve().as_uri() if p.is_absolute() else quote(os.fsencode(p.as_posix()))


def _sarif_result(f: Finding, run: CheckRun, index: dict[str, int]) -> dict[str, Any]:
    location: dict[str, Any] = {}
    if f.file:
        location["physicalLocation"] = {"artifactLocation": {"uri": _sarif_uri(f.file)}}
    if f.tensor:
        location["logicalLocations"] = [{"name": f.tensor, "kind": "member"}]
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": SARIF_LEVEL[f.severity],
        "message": {"text": _with_hint(f)},
        "locations": [location] if location else [],
        "properties": {"check": run.title, "profile": run.profile},
    }
    return result


def sarif_obj(runs: list[CheckRun]) -> dict[str, Any]:
    """SARIF 2.1.0: one rule per finding code, one result per finding (ignored ones suppressed)."""
    from dspark_ckpt import __version__
    from dspark_ckpt.rules.codes import CODES

    index = {code: i for i, code in enumerate(CODES)}
    rules = [
        {
            "id": c.code,
            "shortDescription": {"text": c.title},
            "fullDescription": {"text": c.explanation},
            **({"help": {"text": c.hint}} if c.hint else {}),
            "defaultConfiguration": {"level": SARIF_LEVEL[c.severity]},
        }
        for c in CODES.values()
    ]
    results: dict[str, dict[str, Any]] = {}  # a finding common to several profiles: once
    notes = []
    for run in runs:
        found = [(_sarif_result(f, run, index), None) for f in run.findings]
        found += [(_sarif_result(f, run, index), why) for f, why in run.ignored]
        for res, why in found:
            if why is not None:
                res["suppressions"] = [{"kind": "external", "justification": why}]
            same = {k: v for k, v in res.items() if k != "properties"}
            key = json.dumps([run.name, same], sort_keys=True)
            if key in results:
                results[key]["properties"]["profiles"].append(run.profile)
            else:
                res["properties"]["profiles"] = [run.profile]
                results[key] = res
        if run.failure:
            notes.append({"level": "error", "message": {"text": f"{run.title}: {run.failure}"}})
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "dspark-ckpt", "version": __version__, "rules": rules}},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": notes,
                    }
                ],
                "results": list(results.values()),
            }
        ],
    }


def ci_text(fmt: str, runs: list[CheckRun]) -> str:
    """The text of a CI format (github, junit, sarif) for ``runs``."""
    if fmt == "github":
        return "".join(line + "\n" for line in github_lines(runs))
    if fmt == "junit":
        return junit_xml(runs)
    if fmt == "sarif":
        return to_json(sarif_obj(runs)) + "\n"
    raise ValueError(f"not a CI format: {fmt}")


# --------------------------------------------------------------------- check

CHECK_SCHEMA = "dspark-ckpt/check/v1"


def check_obj(result: CheckResult) -> dict[str, Any]:
    """The ``dspark-ckpt/check/v1`` object. Add fields freely; never rename or drop one."""
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
                "failure": run.failure,
            }
            for run in result.runs
        ],
        "ok": result.ok,
    }


def check_error_lines(result: CheckResult) -> list[str]:
    """``error_lines`` of every run, each once (a pair unreadable under many profiles)."""
    return list(
        dict.fromkeys(line for r in result.runs if r.report for line in error_lines(r.report))
    )


# --- verify ---------------------------------------------------------------------------

VERIFY_SCHEMA = "dspark-ckpt/verify/v1"


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
        "ok": r.ok,
    }


# --- fix ---------------------------------------------------------------------------

FIX_SCHEMA = "dspark-ckpt/fix/v1"


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
