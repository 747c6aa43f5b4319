"""GitHub Actions workflow commands: one annotation per distinct finding, on its file
(found under several profiles: once, naming them all), and one per partial run (the
checks it did not make), on the drafter's config.

Reports on a list of ``CheckRun`` (commands/runs.py): ``inspect`` gives one per
profile, ``check`` one per pair and profile.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from dspark_ckpt.commands.runs import partial_file
from dspark_ckpt.output.text import finding_text, partial_line, printable
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckRun
    from dspark_ckpt.rules.findings import Finding

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


def _named(profile: str) -> re.Pattern:
    """A profile's name as a word of a message (``vllm`` not in ``vllm-legacy`` nor a path)."""
    return re.compile(rf"(?<![\w./-]){re.escape(profile)}(?![\w/-])")


def _as(text: str | None, profile: str | None, names: str) -> str | None:
    return text if text is None or profile is None else _named(profile).sub(names, text)


def distinct(runs: list[CheckRun]) -> list[tuple[Finding, list[str]]]:
    """Each distinct finding of ``runs`` once, with the profiles that found it: findings
    that differ only in their profile (the message naming it) are one, in first-seen order."""
    groups: dict[tuple, tuple[Finding, list[str]]] = {}
    for run in runs:
        for f in run.findings:
            p = f.profile
            key = (f.severity, f.file, f.code, f.tensor, _as(f.message, p, "\0"))
            key += (_as(f.fix_hint, p, "\0"),)
            _, profiles = groups.setdefault(key, (f, []))
            if p is not None and p not in profiles:
                profiles.append(p)
    return list(groups.values())


def _text(f: Finding, profiles: list[str]) -> str:
    """A finding's text, under every profile that found it: ``[a, b] message``."""
    if len(profiles) < 2:
        return finding_text(f)
    names = ", ".join(profiles)
    message, hint = _as(f.message, f.profile, names), _as(f.fix_hint, f.profile, names)
    return finding_text(replace(f, profile=names, message=message, hint=hint))


def github_lines(runs: list[CheckRun]) -> list[str]:
    """One annotation per distinct finding (``distinct``: one found under several profiles
    lists them), one per run that failed without a finding, and one per partial run: an
    error where the gate fails it, a notice where it passes (allowed, or ``inspect``'s)."""
    lines = []
    for f, profiles in distinct(runs):
        props = _where(f.file, f.code)
        lines.append(f"::{GITHUB_COMMAND[f.severity]} {props}::{_data(_text(f, profiles))}")
    for run in runs:
        if run.failure:
            lines.append(
                f"::error title={_prop(run.profile)}::{_data(run.title + ': ' + run.failure)}"
            )
        if (partial := partial_line(run)) is not None:
            kind = "error" if run.partial_fails else "notice"
            where = _where(partial_file(run), "partial")
            lines.append(f"::{kind} {where}::{_data(run.title + ': ' + partial)}")
    return list(dict.fromkeys(lines))  # the same failure or partial line: once


def text(runs: list[CheckRun]) -> str:
    return "".join(line + "\n" for line in github_lines(runs))
