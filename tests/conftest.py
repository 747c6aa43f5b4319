"""Shared test helpers: the real CLI (in-process and as a subprocess) and fixture builders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(FIXTURES))  # synth.py: the checkpoint writer

from dspark_ckpt.cli import app  # noqa: E402


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self):
        return json.loads(self.stdout)


def cli(*args: str | Path, env: dict | None = None) -> Result:
    """Run the CLI in-process (Typer's CliRunner), stdout and stderr apart."""
    runner = CliRunner()
    r = runner.invoke(
        app, [str(a) for a in args], env={"COLUMNS": "200", **(env or {})}, catch_exceptions=False
    )
    return Result(r.exit_code, r.stdout, r.stderr)


def cli_subprocess(*args: str | Path, cwd: Path | None = None, timeout: float = 60, env=None):
    """Run ``python -m dspark_ckpt`` as a real process (this checkout's code)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "dspark_ckpt", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env=full_env,
    )


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


# what a CI runner may set that changes rendered output; tests about it set it themselves
AMBIENT_ENV = (
    "FORCE_COLOR",
    "NO_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "CLICOLOR_FORCE",
    "GITHUB_WORKSPACE",
)


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch):
    """Tests read rendered text: a CI runner's FORCE_COLOR or GITHUB_WORKSPACE must not
    change it."""
    for name in AMBIENT_ENV:
        monkeypatch.delenv(name, raising=False)
