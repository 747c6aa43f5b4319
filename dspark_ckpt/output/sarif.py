"""SARIF 2.1.0: one rule per finding code, one result per finding of the check runs
(commands/runs.py), ignored ones suppressed with their written reason; and one result
per partial run (rule ``not-checked``, after every code, so that their ``ruleIndex``
stays; only in a report that has a partial run), on
the drafter's config: at level ``error`` where the gate fails it, ``note`` where it
passes (allowed with its written reason, or ``inspect``'s), so that code scanning shows
both."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from dspark_ckpt.commands.runs import partial_file
from dspark_ckpt.output.github import repo_path
from dspark_ckpt.output.json import to_json
from dspark_ckpt.output.text import finding_text, partial_line
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckRun
    from dspark_ckpt.rules.findings import Finding

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}
NOT_CHECKED = "not-checked"  # the rule of a partial run's result
NOT_CHECKED_RULE = {
    "id": NOT_CHECKED,
    "shortDescription": {"text": "checks not made: the verdict is partial"},
    "fullDescription": {
        "text": "Some checks could not be made against the target as given: a target folder "
        "without weights gives no embedding rows, a bare target-vocab-size no config and no "
        "tokenizer. The verdict stands on the checks made; check fails such a run unless "
        'the configuration allows it with a written reason (allow-partial = "why") or '
        "--allow-partial is given."
    },
    "help": {
        "text": 'check against the whole target (its folder with its weights, or "hf://org/name": '
        "config and headers only), or allow the partial verdict with a written reason"
    },
    "defaultConfiguration": {"level": "error"},
}


def file_uri(path: str) -> str:
    """A file as a URI: relative ones stay relative (to the repository), percent-encoded."""
    import os
    from pathlib import Path
    from urllib.parse import quote

    if "://" in path:  # a Hub file, hf://org/name@commit/file: already a URI
        return path
    p = Path(repo_path(path))
    # the path's own bytes, percent-encoded (as as_uri does): a name that is not UTF-8 too
    return p.resolve().as_uri() if p.is_absolute() else quote(os.fsencode(p.as_posix()))


def _result(f: Finding, run: CheckRun, index: dict[str, int]) -> dict[str, Any]:
    location: dict[str, Any] = {}
    if f.file:
        location["physicalLocation"] = {"artifactLocation": {"uri": file_uri(f.file)}}
    if f.tensor:
        location["logicalLocations"] = [{"name": f.tensor, "kind": "member"}]
    result: dict[str, Any] = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": SARIF_LEVEL[f.severity],
        "message": {"text": finding_text(f)},
        "locations": [location] if location else [],
        "properties": {"check": run.title, "profile": run.profile},
    }
    return result


def _partial_result(run: CheckRun, text: str, index: int) -> dict[str, Any]:
    """A partial run as one result: the checks not made (codes, why) and the gate's word."""
    file = partial_file(run)
    where = {"physicalLocation": {"artifactLocation": {"uri": file_uri(file)}}} if file else {}
    return {
        "ruleId": NOT_CHECKED,
        "ruleIndex": index,
        "level": "error" if run.partial_fails else "note",
        "message": {"text": f"{run.name}: {text}"},
        "locations": [where] if where else [],
        "properties": {
            "check": run.title,
            "profile": run.profile,
            "not_checked": [
                {"code": n.code, "reason": n.reason, "profiles": list(n.profiles)}
                for n in run.not_checked
            ],
            "allow_partial": run.partial_allowed,
        },
    }


def sarif_obj(runs: list[CheckRun]) -> dict[str, Any]:
    """SARIF 2.1.0: one rule per finding code (and ``not-checked`` where a run is
    partial), one result per finding (ignored ones suppressed) and per partial run."""
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
    if any(run.partial for run in runs):  # a whole verdict's report stays as it was
        rules.append(NOT_CHECKED_RULE)
    results: dict[str, dict[str, Any]] = {}  # a finding common to several profiles: once
    notes = []
    for run in runs:
        found = [(_result(f, run, index), None) for f in run.findings]
        found += [(_result(f, run, index), why) for f, why in run.ignored]
        if (partial := partial_line(run)) is not None:
            found.append((_partial_result(run, partial, len(CODES)), None))
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


def text(runs: list[CheckRun]) -> str:
    return to_json(sarif_obj(runs)) + "\n"
