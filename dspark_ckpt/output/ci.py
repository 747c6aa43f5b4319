"""The CI formats, by name: each reports on a list of ``CheckRun`` (commands/runs.py),
the unit ``inspect`` (one per profile) and ``check`` (one per pair and profile) share.

A new CI format is a module here with a ``text(runs) -> str``, named in ``FORMATS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from dspark_ckpt.output import github, junit, sarif

if TYPE_CHECKING:
    from dspark_ckpt.commands.runs import CheckRun

FORMATS: dict[str, Callable[[list[CheckRun]], str]] = {
    "github": github.text,
    "junit": junit.text,
    "sarif": sarif.text,
}


def ci_text(fmt: str, runs: list[CheckRun]) -> str:
    """The text of a CI format (github, junit, sarif) for ``runs``."""
    if fmt not in FORMATS:
        raise ValueError(f"not a CI format: {fmt}")
    return FORMATS[fmt](runs)
