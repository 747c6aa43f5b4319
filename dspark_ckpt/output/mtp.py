"""``inspect TARGET --mtp`` for people (a few lines, as ruff and mypy print), as JSON
(``dspark-ckpt/mtp/v1``), and as check runs for the CI formats (github, junit, sarif)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dspark_ckpt.errors import few
from dspark_ckpt.output.text import one_line
from dspark_ckpt.rules.findings import ERROR, SEVERITY_ORDER, WARNING

if TYPE_CHECKING:
    from dspark_ckpt.commands.mtp import MtpReport, MtpRun

MTP_SCHEMA = "dspark-ckpt/mtp/v1"


def _count(run: MtpRun) -> str:
    c, m = run.model.count, run.model
    if c.value is None:
        return "no layer count"
    where = {"fixed": "fixed by the runtime", "default": "its default"}.get(c.key, c.key)
    if not m.layers:
        return f"{c.value} draft layer(s) ({where})"
    at = few([m.prefix(j) for j in m.layers])
    return f"{c.value} draft layer(s) ({where}) at {at}"


def lines(r: MtpReport) -> list[str]:
    """The human report: what was read, each runtime's MTP architecture and its layers, the
    verdicts, one line per finding (with its fix), and the decision last."""
    out = []
    t = r.target
    if t is not None:
        what = [t.architecture or "no architecture", f"model_type {t.model_type or 'none'}"]
        what.append(f"{len(t.tensors)} tensors")
        if t.quantized:
            what.append(f"quantised: {t.quantized}")
        out.append(f"target   {r.source} ({', '.join(what)})")
    for run in r.runs:
        x = run.loader
        out.append(f"mtp      {x.runtime} {x.architecture} ({x.family}): {_count(run)}")
    if r.runs:
        fail = [run.loader.name for run in r.runs if not run.ok]
        ok = [run.loader.name for run in r.runs if run.ok]
        mark = {n: f"{n} (decides)" if n in r.deciding else n for n in fail + ok}
        parts = [f"FAIL {', '.join(mark[n] for n in fail)}" if fail else ""]
        parts.append(f"PASS {', '.join(mark[n] for n in ok)}" if ok else "")
        out.append("verdict  " + "; ".join(p for p in parts if p))
    found = sorted(
        r.all_findings,
        key=lambda f: (f.profile not in r.deciding, SEVERITY_ORDER[f.severity], f.code),
    )
    for f in found:
        where = f"{f.tensor}: " if f.tensor else ""
        out.append(f"{f.code} {where}{f.message} [{f.profile or 'mtp'}]")
        if f.fix_hint:
            out.append(f"  fix: {f.fix_hint}")
    out.append(summary(r))
    return [one_line(x) for x in out]


def summary(r: MtpReport) -> str:
    """The last line: the decision the exit code carries."""
    if r.target is None:
        return "not deployable: the target could not be read"
    if not r.covered:
        return "not judged: no MTP loader modelled for this target (exit 3)"
    runs = [run for run in r.runs if run.loader.name in r.deciding]
    names = ", ".join(f"{run.loader.release} ({run.loader.name})" for run in runs)
    if r.ok:
        warns = sum(f.severity == WARNING for run in runs for f in run.findings)
        tail = f": {warns} warning(s)" if warns else ""
        return f"MTP draft layers deployable under {names}{tail}"
    errors = sum(f.severity == ERROR for run in runs for f in run.findings)
    return f"MTP draft layers not deployable under {names}: {errors} error(s)"


def mtp_obj(r: MtpReport) -> dict[str, Any]:
    """The ``dspark-ckpt/mtp/v1`` object (docs/json.md). Add fields freely; never rename
    or drop one."""
    from dspark_ckpt.output.json import finding_obj
    from dspark_ckpt.rules.findings import bounded

    t = r.target
    return {
        "schema": MTP_SCHEMA,
        "target": r.source,
        "architecture": t.architecture if t else None,
        "model_type": t.model_type if t else None,
        "quantization": t.quantized if t else None,
        "covered": r.covered,
        "ok": r.ok,
        "deciding": list(r.deciding),
        "runtimes": [_run_obj(run, run.loader.name in r.deciding, bounded) for run in r.runs],
        "findings": [finding_obj(f) for f in r.all_findings],
    }


def _run_obj(run: MtpRun, decides: bool, bounded) -> dict[str, Any]:
    x, m = run.loader, run.model
    return {
        "loader": x.name,
        "runtime": x.runtime,
        "release": x.release,
        "architecture": x.architecture,
        "family": x.family,
        "layer_count": m.count.value,
        "layer_count_key": m.count.key,
        "layers": bounded([m.prefix(j) for j in m.layers]),
        "missing_layers": bounded([m.prefix(j) for j in m.missing_layers]),
        "missing_tensors": bounded(list(m.missing)),
        "misshapen": bounded(
            [{"tensor": n, "shape": list(s), "expected": list(e)} for n, s, e in m.misshapen]
        ),
        "decides": decides,
        "ok": run.ok,
    }


def check_runs(r: MtpReport) -> list:
    """The report as check runs, one per MTP loader (and one for the target itself when it
    could not be read or judged), for the CI formats."""
    from dspark_ckpt.commands.runs import CheckRun

    runs = [CheckRun(r.source, run.loader.name, None, list(run.findings)) for run in r.runs]
    if r.findings:
        runs.insert(0, CheckRun(r.source, "mtp", None, list(r.findings)))
    return runs
