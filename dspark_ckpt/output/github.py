"""GitHub Actions workflow commands: one annotation per finding, on its file, and one
per partial run (the checks it did not make), on the drafter's config.

Reports on a list of ``CheckRun`` (commands/runs.py): ``inspect`` gives one per
profile, ``check`` one per pair and profile.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from dspark_ckpt.commands.runs import partial_file
from dspark_ckpt.output.text import finding_text, partial_line, printable
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckRun

GITHUB_COMMAND = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _data(s: str) -> str:
    return printable(s).replace("%", "%25").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def repo_path(path: str) -> str:
    """A relative path as GitHub reads it: from the repository root. In a GitHub Actions
    job run in a subfolder (the action's working-directory), it is re-rooted at
    ``GITHUB_WORKSPACE``; elsewhere, and for absolute paths and Hub URIs, it is kept."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if not workspace or "://" in path or os.path.isabs(path):
        return path
    return os.path.relpath(os.path.abspath(path), os.path.abspath(workspace))


def _where(path: str | None, title: str) -> str:
    return (
        f"file={_prop(repo_path(path))},title={_prop(title)}" if path else f"title={_prop(title)}"
    )


def github_lines(runs: list[CheckRun]) -> list[str]:
    """One annotation per finding (a finding common to several profiles: once), one per
    run that failed without a finding, and one per partial run: an error where the gate
    fails it, a notice where it passes (allowed, or ``inspect``'s)."""
    lines = []
    for run in runs:
        for f in run.findings:
            props = _where(f.file, f.code)
            lines.append(f"::{GITHUB_COMMAND[f.severity]} {props}::{_data(finding_text(f))}")
        if run.failure:
            lines.append(
                f"::error title={_prop(run.profile)}::{_data(run.title + ': ' + run.failure)}"
            )
        if (partial := partial_line(run)) is not None:
            kind = "error" if run.partial_fails else "notice"
            where = _where(partial_file(run), "partial")
            lines.append(f"::{kind} {where}::{_data(run.title + ': ' + partial)}")
    return list(dict.fromkeys(lines))  # a finding common to several profiles: annotated once


def text(runs: list[CheckRun]) -> str:
    return "".join(line + "\n" for line in github_lines(runs))
