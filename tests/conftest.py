"""Shared test helpers: the real CLI (in-process and as a subprocess) and fixture builders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dspark_ckpt.cli import app

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

# verify's tensors in the tests are tiny: a torch thread pool only adds waiting, a lot of it
# on a busy machine (two chunking tests took 38 s each at load 14, 1.5 s with one thread).
# Set before torch is first imported, and inherited by the CLI processes the tests start.
os.environ.setdefault("OMP_NUM_THREADS", "1")


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


# the CLI with ``fault(step, path)``, defined by argv[1] (Python source), as atomic's
# failure-injection seam: it acts (or pauses) at one named write step, not at a time
WITH_FAULT = """
import os, signal, sys, time, runpy
from pathlib import Path
from dspark_ckpt.source import atomic
exec(sys.argv[1])
atomic.fault = fault
sys.argv = ['dspark-ckpt', *sys.argv[2:]]
runpy.run_module('dspark_ckpt', run_name='__main__')
"""


def start_with_fault(fault_src: str, *args, env: dict | None = None) -> subprocess.Popen:
    """Start the CLI as a process with ``fault_src`` as its seam; ``env`` adds variables
    (the fault's parameters)."""
    return subprocess.Popen(
        [sys.executable, "-c", WITH_FAULT, fault_src, *map(str, args)],
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def cli_with_fault(fault_src: str, *args, env: dict | None = None, timeout: float = 60):
    """Run the CLI with ``fault_src`` as its seam: (exit code, stdout, stderr)."""
    proc = start_with_fault(fault_src, *args, env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
    return proc.returncode, out, err


# pauses at one step until the test has sent its signal (and then created MARK.go): a
# signal that stops the command ends the pause with it; one that does not lets it go on
PAUSE_AT = """
def fault(step, path):
    name = os.environ['NAME']
    if step == os.environ['STEP'] and Path(path).name.startswith((name, '.' + name)):
        Path(os.environ['MARK']).write_text('')
        for _ in range(1200):
            if Path(os.environ['MARK'] + '.go').exists():
                break
            time.sleep(0.05)
"""


def signal_at(step: str, name: str, signum: int, mark: Path, *args) -> tuple[int, str, str]:
    """Run the CLI paused at ``step`` on a path whose name starts with ``name`` (or is a
    hidden temporary file of it; ``mark`` appears then), deliver ``signum`` there, and return (exit code, stdout, stderr)."""
    proc = start_with_fault(PAUSE_AT, *args, env={"STEP": step, "NAME": name, "MARK": str(mark)})
    try:
        for _ in range(600):
            if mark.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert mark.exists(), proc.communicate()
        proc.send_signal(signum)
        Path(f"{mark}.go").write_text("")
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return proc.returncode, out, err


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


@pytest.fixture(scope="module")
def bench(tmp_path_factory, request):
    """The rule tables' harness (tests/rules/rules_harness.py): its targets are built once
    per test module."""
    from rules_harness import Bench

    return Bench(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]))
