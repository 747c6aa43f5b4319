"""``dspark-ckpt inspect TARGET --mtp``: what only the CLI does: exit codes (0 / 1 / 2 / 3),
the stderr line of an input that cannot be read, the JSON schema (mtp/v1), the CI formats
over the common finding path, ``-q``, and a Hub target (the offline cache in-process; the
loopback Hub server, header-only, marked slow)."""

from __future__ import annotations

import json

import mtp_targets as MT
import pytest
from conftest import ROOT, cli, cli_subprocess
from hubserver import HubServer, build_cache, closed_port, hub_env, repo_from_dir

DS61 = f"model.layers.{MT.N}."


def follows(name: str, obj: dict) -> None:
    """``obj`` follows the published schema ``name`` (dspark_ckpt/schemas/NAME.json)."""
    import jsonschema

    schema = json.loads((ROOT / "dspark_ckpt" / "schemas" / f"{name}.json").read_text())
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(obj))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:3]]
    assert obj["schema"] == f"dspark-ckpt/{name.replace('-', '/')}"


@pytest.fixture
def kept(tmp_path):
    return MT.write(tmp_path / "kept", "deepseek_v3")


@pytest.fixture
def dropped(tmp_path):
    return MT.write(tmp_path / "dropped", "deepseek_v3", drop=(DS61,))


def test_a_target_with_its_mtp_layers_exits_0(kept):
    r = cli("inspect", kept, "--mtp")
    assert r.exit_code == 0, r.stdout
    assert r.stderr == ""
    assert "mtp      vllm DeepSeekMTPModel (DeepSeek V3/R1): 1 draft layer(s)" in r.stdout
    assert "at model.layers.2" in r.stdout
    assert r.stdout.splitlines()[-1] == (
        "MTP draft layers deployable under vLLM 0.33.0 (vllm-mtp-deepseek)"
    )


def test_a_target_that_dropped_them_exits_1_and_names_the_layer(dropped):
    r = cli("inspect", dropped, "--mtp")
    assert r.exit_code == 1
    assert "DSC802 model.layers.2.*: vLLM 0.33.0 DeepSeekMTPModel" in r.stdout
    assert "verdict  FAIL vllm-mtp-deepseek (decides), sglang-nextn-deepseek" in r.stdout
    q = cli("inspect", dropped, "--mtp", "-q")
    assert (q.exit_code, q.stdout) == (1, r.stdout.splitlines()[-1] + "\n")


def test_runtime_picks_the_deciding_loader(tmp_path):
    # two declared layers: vLLM loads both (stored), SGLang asserts one (DSC805)
    extra = {
        f"model.layers.{MT.N + 1}.{k[len(DS61) :]}": v
        for k, v in MT.FAMILIES["deepseek_v3"][1].items()
    }
    t = MT.write(tmp_path / "t", "deepseek_v3", extra=extra, config={"num_nextn_predict_layers": 2})
    assert cli("inspect", t, "--mtp").exit_code == 0
    r = cli("inspect", t, "--mtp", "--runtime", "sglang")
    assert r.exit_code == 1 and "DSC805" in r.stdout
    assert cli("inspect", t, "--mtp", "--runtime", "vllm==0.33.0").exit_code == 0
    bad = cli("inspect", t, "--mtp", "--runtime", "vllm==0.30.0")
    assert bad.exit_code == 2 and "the MTP check models vllm (vLLM 0.33.0)" in bad.stderr


def test_a_target_no_mtp_loader_judges_exits_3(tmp_path):
    t = MT.write(tmp_path / "t", "openpangu")
    r = cli("inspect", t, "--mtp", "--runtime", "sglang")  # SGLang drafts openPangu with none
    assert r.exit_code == 3
    assert "DSC807" in r.stdout and "no MTP / NextN loader of SGLang 0.5.23" in r.stdout


def test_drafter_options_are_usage_errors_with_mtp(kept):
    r = cli("inspect", kept, "--mtp", "--target", kept)
    assert r.exit_code == 2
    assert r.stderr.startswith("dspark-ckpt: error: --target names a drafter's target")
    assert r.stdout == ""


def test_an_unreadable_target_is_one_stderr_line_and_exit_1(kept):
    data = (kept / "model.safetensors").read_bytes()
    (kept / "model.safetensors").write_bytes(data[:40])
    r = cli("inspect", kept, "--mtp", "--format", "json")
    assert r.exit_code == 1
    [line] = r.stderr.splitlines()
    assert line.startswith(f"dspark-ckpt: error: {kept / 'model.safetensors'}: ")
    assert "Traceback" not in r.stderr
    out = json.loads(r.stdout)
    follows("mtp-v1", out)
    assert [f["code"] for f in out["findings"]] == ["DSC001"] and out["ok"] is False


def test_json_follows_mtp_v1(dropped):
    r = cli("inspect", dropped, "--mtp", "--format", "json")
    out = json.loads(r.stdout)
    follows("mtp-v1", out)
    vllm = next(x for x in out["runtimes"] if x["runtime"] == "vllm")
    assert vllm["missing_layers"] == ["model.layers.2"] and vllm["decides"] is True
    assert {f["code"] for f in out["findings"]} == {"DSC802"}
    assert out["deciding"] == ["vllm-mtp-deepseek"] and out["quantization"] is None


def test_sarif_and_github_carry_the_findings(dropped):
    sarif = json.loads(cli("inspect", dropped, "--mtp", "--format", "sarif").stdout)
    results = [x for run in sarif["runs"] for x in run["results"]]
    assert {x["ruleId"] for x in results} == {"DSC802"}
    gh = cli("inspect", dropped, "--mtp", "--format", "github").stdout
    assert gh.startswith("::error file=") and "title=DSC802::[vllm-mtp-deepseek]" in gh


def test_a_hub_target_is_read_from_the_offline_cache(tmp_path, dropped):
    repo = repo_from_dir(dropped)
    build_cache(tmp_path / "hf-cache", "org/ds", repo)
    env = hub_env(tmp_path, closed_port(), HF_HUB_OFFLINE="1")
    # a process: huggingface_hub reads its cache and offline settings once, at import
    r = cli_subprocess("inspect", "hf://org/ds", "--mtp", "--format", "json", env=env)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["target"] == "hf://org/ds"
    assert [f["code"] for f in out["findings"]] == ["DSC802", "DSC802"]


@pytest.mark.slow
def test_a_hub_target_is_read_header_only(tmp_path):
    t = MT.deepseek_v3_real(tmp_path / "real", drop_mtp=True)
    repo = repo_from_dir(t)
    with HubServer({"org/ds": repo}) as hub:
        r = cli_subprocess(
            "inspect", "org/ds", "--mtp", "--format", "json", env=hub_env(tmp_path, hub.url)
        )
        reads = hub.data_reads("org/ds", "model.safetensors")
    assert r.returncode == 1, r.stderr
    assert "MTP speculative decoding layer 61" in r.stdout
    header = 8 + int.from_bytes((t / "model.safetensors").read_bytes()[:8], "little")
    assert reads and all(b <= header for _, b in reads)  # no tensor byte left the server
