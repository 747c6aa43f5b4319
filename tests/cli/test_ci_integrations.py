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


def docs_block(containing: str) -> str:
    """The fenced block of docs/ci.md that holds ``containing``."""
    text = (ROOT / "docs/ci.md").read_text()
    return next(b.split("\n", 1)[1] for b in text.split("```")[1::2] if containing in b)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This working tree, committed in a throwaway repository (pre-commit clones a rev)."""
    repo = tmp_path_factory.mktemp("hook-repo")
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "hook repo")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def git(cwd: Path, *args: str) -> str:
    who = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    who["GIT_COMMITTER_EMAIL"] = "t@t"
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env(**who), capture_output=True, text=True, check=True
    ).stdout


def pre_commit(project: Path, *args: str, **extra) -> subprocess.CompletedProcess:
    git(project, "init", "-q")
    git(project, "add", "-A")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=project,
        env=env(PRE_COMMIT_HOME=str(project.parent / "pre-commit-home"), **extra),
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_pre_commit_try_repo_runs_the_hook(project, hook_repo):
    repo, _ = hook_repo
    r = pre_commit(project, "try-repo", str(repo), "dspark-ckpt-check", "--all-files")
    assert r.returncode == 1, r.stdout + r.stderr  # padded fails vllm-legacy
    assert "1 of 2 check run(s) failed" in r.stdout


def test_pre_commit_hook_with_torch_runs_verify(project, hook_repo, tmp_path):
    """docs/ci.md's recipe for verify = true: the hook with torch as a dependency."""
    repo, sha = hook_repo
    config = docs_block("additional_dependencies: [torch]")
    config = config.replace("https://github.com/OWNER/dspark-ckpt", str(repo))
    (project / ".pre-commit-config.yaml").write_text(config.replace("COMMIT", sha))
    toml = project / "pyproject.toml"
    toml.write_text(
        toml.read_text().replace(
            'target = "targets/small"', 'target = "targets/small"\nverify = true'
        )
    )
    # this machine's torch is the CPU build on disk: pin it, as a CI machine's pip config would
    pin = tmp_path / "constraints.txt"
    pin.write_text("torch==2.13.0\n")
    r = pre_commit(project, "run", "--all-files", PIP_CONSTRAINT=str(pin))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "verify" in r.stdout and "needs torch" not in r.stdout + r.stderr
    assert "1 of 3 check run(s) failed" in r.stdout


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
    assert step["run"].count("dspark-ckpt check") == 1  # one run writes every report
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


def test_action_installs_torch_for_verify(project):
    """The `torch` input's step (word-split as a pip requirement and its options) and a
    pair with verify = true checked by the action's one run."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = {s.get("name"): s for s in action["runs"]["steps"]}
    assert "torch" in action["inputs"] and steps["Install torch"]["if"] == "inputs.torch != ''"
    install = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", steps["Install torch"]["run"]],
        env=env(TORCH="torch==2.13.0 --no-deps"),  # on disk here: pip finds it installed
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    toml = project / "pyproject.toml"
    toml.write_text(
        toml.read_text().replace(
            'target = "targets/small"', 'target = "targets/small"\nverify = true'
        )
    )
    r = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", steps["dspark-ckpt check"]["run"]],
        cwd=project,
        env=env(CONFIG="", SARIF="", JUNIT=""),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1, r.stderr
    assert "│ verify" in r.stdout and "1 of 3 check run(s) failed" in r.stdout


@pytest.fixture
def partial_project(project) -> Path:
    """The padded drafter against its target's vocab size alone: a partial verdict."""
    (project / "pyproject.toml").write_text(
        '[tool.dspark-ckpt]\n[[tool.dspark-ckpt.pairs]]\nname = "padded"\n'
        'drafter = "drafters/padded"\ntarget-vocab-size = 100\n'
    )
    return project


def test_action_allow_partial_input(partial_project):
    """The `allow-partial` input: "true" passes --allow-partial, "false" (the default)
    leaves a partial run failing, anything else stops the step."""
    if shutil.which("dspark-ckpt", path=BIN) is None:
        pytest.skip("dspark-ckpt is not installed as a script (pip install -e .)")
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["inputs"]["allow-partial"]["default"] == "false"
    [step] = [s for s in action["runs"]["steps"] if s.get("name") == "dspark-ckpt check"]
    assert step["env"]["ALLOW_PARTIAL"] == "${{ inputs.allow-partial }}"

    def run_step(allow: str):
        return subprocess.run(
            ["bash", "-eo", "pipefail", "-c", step["run"]],
            cwd=partial_project,
            env=env(CONFIG="", SARIF="out.sarif", JUNIT="", ALLOW_PARTIAL=allow),
            capture_output=True,
            text=True,
        )

    r = run_step("false")
    assert r.returncode == 1, r.stderr
    assert "::error file=drafters/padded/config.json,title=partial::" in r.stdout
    assert "1 of 1 check run(s) failed; partial: 1 not allowed" in r.stdout
    r = run_step("true")
    assert r.returncode == 0, r.stderr
    assert "(allowed: --allow-partial)" in r.stdout
    results = json.loads((partial_project / "out.sarif").read_text())["runs"][0]["results"]
    assert [(x["ruleId"], x["level"]) for x in results if x["ruleId"] == "not-checked"] == [
        ("not-checked", "note")
    ]
    r = run_step("yes")
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "dspark-ckpt: error: the allow-partial input must be true or false\n"


def test_pre_commit_hook_args_allow_partial(partial_project):
    """docs/ci.md: `args: [--allow-partial]` on the hook (pre-commit appends a hook's args
    to its entry)."""
    if shutil.which("dspark-ckpt", path=BIN) is None:
        pytest.skip("dspark-ckpt is not installed as a script (pip install -e .)")
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    entry = shlex.split(hook["entry"])
    run = [subprocess.run(argv, cwd=partial_project, env=env(), capture_output=True, text=True)
           for argv in (entry, [*entry, "--allow-partial"])]  # fmt: skip
    assert [r.returncode for r in run] == [1, 0]
    assert run[1].stdout.splitlines()[-1] == "all 1 check run(s) passed; partial: 1 allowed"
