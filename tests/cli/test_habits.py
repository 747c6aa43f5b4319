"""The habits of ruff and mypy users (issue 27): JSON errors naming their kind, network
failures told apart, side files' full paths, GitHub annotations once per distinct finding,
``-V``, ``--color``, and check JSON's ``failure`` filled on every failing run."""

from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES, ROOT, cli, cli_subprocess
from hubserver import closed_port, hub_env

from dspark_ckpt import __version__

PADDED = FIXTURES / "padded"
SMALL, TIGHT = FIXTURES / "targets/small", FIXTURES / "targets/tight"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def follows(name: str, obj: dict) -> None:
    """``obj`` is valid under the published schema ``name`` (dspark_ckpt/schemas/)."""
    import jsonschema

    schema = json.loads((ROOT / "dspark_ckpt/schemas" / f"{name}.json").read_text())
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(obj)]
    assert errors == [], errors


def error_of(r, schema: str = "error-v1") -> dict:
    """The JSON error object a failed run printed on stdout, checked against ``schema``;
    the one-line stderr message stays."""
    obj = json.loads(r.stdout)
    follows(schema, obj)
    assert obj["ok"] is False
    [line] = r.stderr.splitlines()
    assert line.startswith("dspark-ckpt: error: ")
    return obj["error"]


# --- item 6: in JSON mode every error is a JSON object naming its kind ---------------


def test_a_usage_error_click_finds_is_a_json_object_of_kind_usage():
    r = cli("inspect", PADDED, "--target", SMALL, "--bogus", "--format", "json")
    assert r.exit_code == 2
    error = error_of(r)
    assert error["kind"] == "usage" and error["message"].startswith("--bogus: no such option")
    assert json.loads(r.stdout)["command"] == "inspect"


def test_a_usage_error_a_command_raises_is_a_json_object_of_kind_usage():
    r = cli("inspect", PADDED, "--format", "json")  # neither --target nor a vocab size
    assert r.exit_code == 2
    assert error_of(r)["kind"] == "usage"
    r = cli("explain", "DSC999", "--format", "json")
    assert r.exit_code == 2 and error_of(r)["kind"] == "usage"


def test_an_output_that_cannot_be_written_is_a_json_object_of_kind_io(tmp_path):
    out = tmp_path / "no-such-dir" / "report.json"
    r = cli("inspect", PADDED, "--target", SMALL, "--format", "json", "-o", out)
    assert r.exit_code == 2
    error = error_of(r)
    assert error["kind"] == "io" and error["file"] == str(out)
    assert not out.parent.exists()


def test_fix_and_verify_keep_their_schema_and_name_the_kind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken/config.json").write_text((PADDED / "config.json").read_text())
    data = (PADDED / "model.safetensors").read_bytes()
    (tmp_path / "broken/model.safetensors").write_bytes(data[: len(data) // 2])
    r = cli("fix", "broken", "--target-vocab-size", "100", "--emit-mask", "--format", "json")
    assert r.exit_code == 1
    assert error_of(r, "fix-v1")["kind"] == "checkpoint"
    r = cli("verify", PADDED, "--format", "json", "--tokens", "x")
    assert r.exit_code == 2
    assert error_of(r, "verify-v1")["kind"] == "usage"
    assert list(tmp_path.iterdir()) == [tmp_path / "broken"]  # nothing written


def test_without_json_an_error_prints_nothing_on_stdout():
    r = cli("inspect", PADDED, "--bogus")
    assert r.exit_code == 2 and r.stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("offline", [False, True], ids=["closed-port", "HF_HUB_OFFLINE"])
def test_a_hub_that_cannot_be_reached_is_a_network_error_not_a_usage_error(tmp_path, offline):
    """A closed loopback port (nothing listens: the connection is refused at once), and
    HF_HUB_OFFLINE with an empty cache: exit 2 as before, the message and the kind say
    network."""
    env = hub_env(tmp_path, closed_port(), HF_HUB_OFFLINE="1" if offline else "0")
    args = ("inspect", "hf://org/padded", "--target", SMALL, "--format", "json")
    r = cli_subprocess(*args, env=env)
    assert r.returncode == 2
    error = error_of(r)
    assert error["kind"] == "network"
    assert r.stderr.startswith("dspark-ckpt: error: network: hf://org/padded: ")
    said = "HF_HUB_OFFLINE is set" if offline else "cannot reach the Hub at"
    assert said in error["message"]
    # fix prints it in its own schema, with the same kind
    r = cli_subprocess(
        "fix", "hf://org/padded", "--target", SMALL, "--diff", "--format", "json", env=env
    )
    assert r.returncode == 2 and error_of(r, "fix-v1")["kind"] == "network"


def test_an_unknown_hub_repository_stays_a_usage_error(tmp_path):
    r = cli("inspect", "hf://not a repo", "--target", SMALL, "--format", "json")
    assert r.exit_code == 2 and error_of(r)["kind"] == "usage"


# --- item 8: side files print their full path ------------------------------------------


def test_emit_mask_and_d2t_print_the_full_path_of_each_file_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = cli("fix", PADDED, "--target", SMALL, "--emit-mask", "--emit-d2t")
    wrote = [line.split()[1] for line in r.stdout.splitlines() if line.startswith("wrote")]
    expected = {tmp_path / "d2t.safetensors", tmp_path / "draft_vocab_mask.safetensors"}
    assert {p.rstrip(":") for p in wrote} == {str(p) for p in expected}
    assert all(p.is_file() for p in expected)


# --- item 10: annotations, -V, --color, check's failure --------------------------------


def test_github_annotations_name_a_finding_once_with_its_profiles():
    """DSC602 (the drafter's head is ignored) is found alike under sglang-dspark and both
    TensorRT-LLM DSpark routes: one annotation lists them; a finding of one profile keeps its
    own."""
    r = cli("inspect", PADDED, "--target", SMALL, "--profile", "all", "--format", "github")
    lines = r.stdout.splitlines()
    assert len(lines) == len(set(lines))
    [dsc602] = [line for line in lines if "title=DSC602" in line]
    assert (
        "::[sglang-dspark, trtllm-dspark, trtllm-dspark-legacy] the drafter ships lm_head" in dsc602
    )
    [dsc103] = [line for line in lines if "title=DSC103" in line]
    assert "::[vllm-legacy] no d2t mapping" in dsc103


def test_dash_capital_v_is_the_version():
    short, long = cli("-V"), cli("--version")
    assert short.exit_code == long.exit_code == 0
    assert short.stdout == long.stdout == f"dspark-ckpt {__version__}\n"


@pytest.mark.parametrize(
    "command",
    [
        ["inspect", PADDED, "--target", TIGHT],
        ["fix", PADDED, "--target", TIGHT, "--diff"],
        ["profiles"],
        ["explain", "DSC401"],
    ],
)
def test_color_always_and_never_whatever_the_terminal(command):
    """The output is no terminal here: auto gives no colour, always does; never wins over
    FORCE_COLOR, which auto honours as Rich does."""
    always = cli(*command, "--color", "always")
    never = cli(*command, "--color", "never", env={"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"})
    auto = cli(*command, "--color", "auto")
    assert always.exit_code == never.exit_code == auto.exit_code
    assert ANSI.search(always.stdout)
    assert not ANSI.search(never.stdout) and not ANSI.search(auto.stdout)
    assert ANSI.sub("", always.stdout).split() == never.stdout.split()


def test_every_command_takes_color_and_refuses_other_values():
    for command in ("inspect", "fix", "verify", "check", "profiles", "explain"):
        assert "--color auto|always|never" in cli(command, "-h").stdout, command
    r = cli("profiles", "--color", "sometimes")
    assert r.exit_code == 2
    assert r.stderr.startswith("dspark-ckpt: error: --color: 'sometimes' is not one of auto,")


def test_check_json_fills_failure_on_every_failing_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dspark-ckpt.toml").write_text(
        f'[[pairs]]\nname = "fails"\ndrafter = "{PADDED}"\ntarget = "{TIGHT}"\n\n'
        f'[[pairs]]\nname = "passes"\ndrafter = "{FIXTURES / "equal"}"\n'
        f'target = "{FIXTURES / "equal"}"\n\n'
        f'[[pairs]]\nname = "partial"\ndrafter = "{PADDED}"\ntarget-vocab-size = 128\n'
    )
    r = cli("check", "--format", "json")
    follows("check-v2", r.json)
    runs = {run["name"]: run for run in r.json["runs"]}
    assert runs["fails"]["ok"] is False
    assert re.fullmatch(r"\d+ error finding\(s\): DSC\d+(, DSC\d+)*", runs["fails"]["failure"])
    for run in r.json["runs"]:
        assert (run["failure"] is None) == run["ok"], run
    assert runs["partial"]["failure"].startswith("partial: ")


# --- item 8: verify says when inspect's verdict is NOT deployable ----------------------


def test_verify_pass_says_when_inspect_calls_the_pair_not_deployable():
    """The mask passes, the exit code stays the mask's, and the verdict line says what
    inspect says of the same pair (DSC207 under vllm against the tight target)."""
    pytest.importorskip("torch")
    inspected = cli("inspect", PADDED, "--target", TIGHT, "--format", "json").json
    errors = list(
        dict.fromkeys(f["code"] for f in inspected["findings"] if f["severity"] == "error")
    )
    assert inspected["ok"] is False and errors
    r = cli("verify", PADDED, "--target", TIGHT, "--tokens", "8", "-q")
    assert r.exit_code == 0
    [line] = r.stdout.splitlines()
    assert line.startswith("PASS: ")
    said = f"; but inspect says NOT deployable under {inspected['profile']} ({', '.join(errors)})"
    assert line.endswith(said)
    obj = cli("verify", PADDED, "--target", TIGHT, "--tokens", "8", "--format", "json").json
    follows("verify-v1", obj)
    assert obj["ok"] is True and obj["inspect"] == {
        "profiles": inspected["profiles"],
        "ok": False,
        "errors": errors,
    }
    deployable = cli("verify", PADDED, "--target", SMALL, "--tokens", "8", "-q")
    assert "inspect says" not in deployable.stdout
