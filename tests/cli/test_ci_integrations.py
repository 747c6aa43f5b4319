"""The pre-commit hook and the composite GitHub Action run the real gate."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import FIXTURES, ROOT

SARIF_SCHEMA = json.loads((ROOT / "tests/data/sarif-schema-2.1.0.json").read_text())
BIN = str(Path(sys.executable).parent)  # where `dspark-ckpt` is installed
# the installed script, run by pre-commit's entry and by the action's bash step
pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path) -> Path:
    shutil.copytree(FIXTURES / "padded", tmp_path / "drafters/padded")
    shutil.copytree(FIXTURES / "targets/small", tmp_path / "targets/small")
    (tmp_path / "pyproject.toml").write_text(
        """[tool.dspark-ckpt]
profiles = ["vllm", "vllm-legacy"]

[[tool.dspark-ckpt.pairs]]
name = "padded"
drafter = "drafters/padded"
target = "targets/small"
"""
    )
    return tmp_path


def env(**extra) -> dict[str, str]:
    return {**os.environ, "PATH": BIN + os.pathsep + os.environ["PATH"], **extra}


def test_pre_commit_hook_runs_check(project):
    if shutil.which("dspark-ckpt", path=BIN) is None:
        pytest.skip("dspark-ckpt is not installed as a script (pip install -e .)")
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "dspark-ckpt-check" and hook["pass_filenames"] is False
    r = subprocess.run(
        shlex.split(hook["entry"]), cwd=project, env=env(), capture_output=True, text=True
    )
    assert r.returncode == 1  # padded fails vllm-legacy
    assert "1 of 2 check run(s) failed" in r.stdout


def test_action_check_step(project):
    if shutil.which("dspark-ckpt", path=BIN) is None:
        pytest.skip("dspark-ckpt is not installed as a script (pip install -e .)")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    [step] = [s for s in action["runs"]["steps"] if s.get("name") == "dspark-ckpt check"]

    def run_step(**inputs):  # the step's script, as the runner runs it
        return subprocess.run(
            ["bash", "-eo", "pipefail", "-c", step["run"]],
            cwd=project,
            env=env(CONFIG="", **inputs),
            capture_output=True,
            text=True,
        )

    r = run_step(SARIF="out.sarif", JUNIT="out.xml")
    assert r.returncode == 1, r.stderr
    annotations = [ln.split("::")[1] for ln in r.stdout.splitlines() if ln.startswith("::")]
    assert annotations == [
        "warning file=drafters/padded/model.safetensors,title=DSC401",
        "error file=drafters/padded/config.json,title=DSC103",
    ]  # DSC401, found under both profiles, is annotated once
    assert "1 of 2 check run(s) failed" in r.stdout
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(
        json.loads((project / "out.sarif").read_text())
    )
    assert ET.parse(project / "out.xml").getroot().get("failures") == "1"

    (project / "pyproject.toml").write_text("[tool.dspark-ckpt]\npairs = 3\n")
    r = run_step(SARIF="", JUNIT="")
    assert r.returncode == 2
    assert r.stderr.count("tool.dspark-ckpt.pairs: must be a non-empty array") == 1
