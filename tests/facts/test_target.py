"""The drafter against the target model itself (DSC701-DSC712), through the real CLI,
on real-shaped configs (fixtures/target-contract, built by fixtures/target_contract.py)."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
import target_contract as tc
from conftest import FIXTURES, cli
from synth import drafter, head

TARGETS = FIXTURES / "target-contract" / "targets"
TOKENIZERS = FIXTURES / "target-contract" / "tokenizers"


def inspect_json(drafter_dir, target, *args):
    r = cli("inspect", drafter_dir, "--target", target, "--format", "json", *args)
    return r.exit_code, r.json


def codes(rep, profile=None, prefix="DSC7"):
    return sorted(
        {
            f["code"]
            for f in rep["findings"]
            if f["code"].startswith(prefix) and (profile is None or f["profile"] in (None, profile))
        }
    )


def check(rep, name, runtime=None):
    return [c for c in rep["target_checks"] if c["check"] == name and c["runtime"] == runtime]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("target-contract")
    return {name: tc.build(name, root / name) for name in tc.names()}


# --- hidden sizes: Llama 3.1 8B vs 3.3 70B ---------------------------------------------


def test_llama_8b_eagle3_on_its_own_target_is_clean(built):
    rc, rep = inspect_json(built["eagle3-llama3.1-8b"], TARGETS / "llama-3.1-8b")
    assert codes(rep) == []
    assert rep["target"]["hidden_size"] == 4096 and rep["target"]["num_hidden_layers"] == 32
    assert rep["target"]["architectures"] == ["LlamaForCausalLM"]
    assert rep["target"]["dtype"] == "bfloat16" and rep["target"]["tie_word_embeddings"] is False
    width = check(rep, "aux_state_width", "vLLM eagle3")[0]
    assert (width["drafter"], width["target"], width["result"]) == (4096, 4096, "same")


def test_llama_8b_eagle3_on_llama_70b_fails_on_hidden_size(built):
    """vLLM #17740 / #18906: the 8B head's fc takes 4096-wide states, the 70B gives 8192,
    and without its own embed_tokens the head is handed the 70B's 8192-wide embedding."""
    rc, rep = inspect_json(built["eagle3-llama3.1-8b"], TARGETS / "llama-3.3-70b")
    assert rc == 1 and rep["ok"] is False
    assert codes(rep, "vllm-eagle3") == ["DSC701", "DSC702"]
    f701 = next(f for f in rep["findings"] if f["code"] == "DSC701")
    assert "4096 wide" in f701["message"] and "hidden_size is 8192" in f701["message"]
    assert (
        f701["tensor"] == "fc.weight"
        and "trained for a target whose hidden_size is 4096" in (f701["hint"])
    )
    f702 = next(f for f in rep["findings"] if f["code"] == "DSC702")
    assert "embed_tokens.weight" in f702["message"] and "hidden_size is 4096" in f702["message"]
    width = check(rep, "aux_state_width", "vLLM eagle3")[0]
    assert (width["drafter"], width["target"], width["result"]) == (4096, 8192, "differ")


def test_llama_70b_head_with_target_hidden_size_passes_on_70b_and_fails_on_8b(built):
    d = built["eagle3-llama3.3-70b"]
    rc, rep = inspect_json(d, TARGETS / "llama-3.3-70b", "--profile", "vllm-eagle3,sglang-eagle3")
    assert rc == 0 and codes(rep) == []  # target_hidden_size 8192, its own embed and head
    rc, rep = inspect_json(d, TARGETS / "llama-3.1-8b", "--profile", "vllm-eagle3")
    assert rc == 1 and codes(rep, "vllm-eagle3") == ["DSC701"]  # own embed: no DSC702
    f701 = next(f for f in rep["findings"] if f["code"] == "DSC701")
    assert "8192 wide (target_hidden_size)" in f701["message"]


def test_fc_that_fits_the_target_hints_at_target_hidden_size(built, tmp_path):
    """The 70B head's fc [6144, 3 x 8192] with target_hidden_size dropped from its config:
    the weights fit the 70B, the config does not say so."""
    cfg = json.loads((built["eagle3-llama3.3-70b"] / "config.json").read_text())
    del cfg["target_hidden_size"]
    d = tc.build("eagle3-llama3.3-70b", tmp_path / "d", config=cfg)
    rc, rep = inspect_json(d, TARGETS / "llama-3.3-70b", "--profile", "vllm-eagle3")
    f701 = next(f for f in rep["findings"] if f["code"] == "DSC701")
    assert f701["hint"].startswith("the weights take 3 states 8192 wide")
    assert '"target_hidden_size": 8192' in f701["hint"]


def test_table_shows_a_short_target_line(built):
    r = cli("inspect", built["eagle3-llama3.1-8b"], "--target", TARGETS / "llama-3.3-70b")
    assert "Ht 8192, 80 layers, LlamaForCausalLM, bfloat16" in r.stdout
    assert "DSC701" in r.stdout


# --- aux layer ids: Qwen3 ids past the layer count -------------------------------------


def test_qwen3_8b_dflash_on_qwen3_8b_is_clean(built):
    rc, rep = inspect_json(built["dflash-qwen3-8b"], TARGETS / "qwen3-8b")
    assert codes(rep) == []
    ids = check(rep, "aux_layer_ids", "vLLM dflash")[0]
    # DFlash target_layer_ids are aux ids minus one: vLLM captures them at id + 1
    assert ids["drafter"] == [1, 9, 17, 25, 33] and ids["result"] == "within"
    assert ids["detail"] == "captured at [2, 10, 18, 26, 34]; valid ids [-1, 35]"


def test_qwen3_14b_dflash_on_qwen3_8b_has_ids_past_the_layers(built):
    rc, rep = inspect_json(built["dflash-qwen3-14b"], TARGETS / "qwen3-8b")
    assert rc == 1
    assert codes(rep, "vllm-dflash") == ["DSC701", "DSC702", "DSC703", "DSC704"]
    f703 = next(f for f in rep["findings"] if f["code"] == "DSC703")
    assert f703["tensor"] == "dflash_config.target_layer_ids"
    assert "[37] outside [-1, 35]" in f703["message"] and "36 layers" in f703["message"]
    assert "4 of the 5 states" in f703["message"]
    f704 = next(f for f in rep["findings"] if f["code"] == "DSC704")
    assert f704["severity"] == "warning" and "40 layers" in f704["message"]


def test_aux_id_conventions_differ_between_vllm_and_sglang(built, tmp_path):
    """SGLang reads only eagle_config's ids and captures id + 1 before each layer (< N);
    vLLM's Model Runner V2 does not read eagle_config.eagle_aux_hidden_state_layer_ids at
    all (the target's defaults apply). Id 35 of a 36-layer target: SGLang never captures it."""
    cfg = json.loads(
        (FIXTURES / "target-contract/drafters/eagle3-llama3.1-8b/config.json").read_text()
    )
    cfg["vocab_size"] = 151936
    cfg["eagle_config"] = {"eagle_aux_hidden_state_layer_ids": [1, 17, 35]}
    d = tc.build("eagle3-llama3.1-8b", tmp_path / "d", config=cfg)
    rc, rep = inspect_json(d, TARGETS / "qwen3-8b", "--profile", "vllm-eagle3,sglang-eagle3")
    assert codes(rep, "vllm-eagle3") == []
    assert codes(rep, "sglang-eagle3") == ["DSC703"]
    assert rep["verdicts"]["sglang-eagle3"] is False
    f703 = next(f for f in rep["findings"] if f["code"] == "DSC703")
    assert "[35] outside [-1, 34]" in f703["message"]
    # top-level ids (speculators, SpecForge exports) are vLLM's: capture points [0, N]
    cfg["eagle_aux_hidden_state_layer_ids"] = [2, 18, 36]
    d = tc.build("eagle3-llama3.1-8b", tmp_path / "e", config=cfg)
    rc, rep = inspect_json(d, TARGETS / "qwen3-8b", "--profile", "vllm-eagle3")
    assert codes(rep, "vllm-eagle3") == []  # 36: the final pre-norm state, captured
    cfg["eagle_aux_hidden_state_layer_ids"] = [2, 18, 18]
    d = tc.build("eagle3-llama3.1-8b", tmp_path / "f", config=cfg)
    rc, rep = inspect_json(d, TARGETS / "qwen3-8b", "--profile", "vllm-eagle3")
    assert codes(rep, "vllm-eagle3") == ["DSC703"]
    assert "repeated ids" in next(f for f in rep["findings"] if f["code"] == "DSC703")["message"]


# --- a drafter made for another target --------------------------------------------------


def test_speculators_verifier_naming_another_architecture_warns_naming_both(built):
    d = built["speculators-eagle3-qwen3-8b"]
    rc, rep = inspect_json(d, TARGETS / "qwen3-8b")
    assert "DSC704" not in codes(rep)
    rc, rep = inspect_json(d, TARGETS / "llama-3.1-8b")
    f704 = [f for f in rep["findings"] if f["code"] == "DSC704"]
    assert len(f704) == 1 and f704[0]["severity"] == "warning" and f704[0]["profile"] is None
    assert "Qwen3ForCausalLM (Qwen/Qwen3-8B)" in f704[0]["message"]
    assert "LlamaForCausalLM" in f704[0]["message"]
    arch = check(rep, "architecture")[0]
    assert arch["result"] == "differ" and arch["detail"] == "Qwen/Qwen3-8B"


# --- tokenizers ---------------------------------------------------------------------


@pytest.fixture
def tok_pair(tmp_path):
    """A 100-id drafter and target (Vt 100), each folder with a tokenizer to be chosen."""
    d = drafter(tmp_path / "d", vocab=100, draft=100, tensors={"lm_head.weight": head(100, 8, 0)})
    t = tmp_path / "t"
    t.mkdir()
    (t / "config.json").write_text(
        json.dumps({"architectures": ["Qwen3ForCausalLM"], "vocab_size": 100})
    )

    def use(drafter_tok: str | None, target_tok: str | None = "target"):
        for folder, name in ((d, drafter_tok), (t, target_tok)):
            for f in ("tokenizer.json", "tokenizer_config.json"):
                (folder / f).unlink(missing_ok=True)
                if name:
                    shutil.copy(TOKENIZERS / name / f, folder / f)
        return d, t

    return use


def test_same_tokenizer_files_pass_by_hash(tok_pair):
    rc, rep = inspect_json(*tok_pair("target"))
    assert codes(rep) == []
    tok = check(rep, "tokenizer")[0]
    assert tok["result"] == "same" and tok["detail"] == "identical files (sha256)"
    assert tok["drafter"]["sha256"] == tok["target"]["sha256"]
    assert tok["drafter"]["files"] == ["tokenizer.json", "tokenizer_config.json"]


def test_tokenizer_differing_in_one_token_is_an_error_naming_the_id(tok_pair):
    rc, rep = inspect_json(*tok_pair("one-token"))
    assert rc == 1 and codes(rep) == ["DSC710"]
    f = next(f for f in rep["findings"] if f["code"] == "DSC710")
    assert "1 of the 100 shared ids" in f["message"]
    assert "id 42: drafter 'Ġrenamed', target 'qq'" in f["message"]
    tok = check(rep, "tokenizer")[0]
    assert tok["first_differences"] == [{"id": 42, "drafter": "Ġrenamed", "target": "qq"}]
    assert tok["differing_ids"] == 1 and tok["compared_ids"] == 100


def test_tokenizer_differing_in_special_tokens_warns(tok_pair):
    rc, rep = inspect_json(*tok_pair("specials"))
    assert rc == 0 and codes(rep) == ["DSC711"]
    f = next(f for f in rep["findings"] if f["code"] == "DSC711")
    assert "eos_token: drafter '<|endoftext|>', target '<|im_end|>'" in f["message"]


def test_tokenizer_on_one_side_only_is_not_checked(tok_pair):
    rc, rep = inspect_json(*tok_pair(None))
    assert rc == 0 and codes(rep) == ["DSC712"]
    f = next(f for f in rep["findings"] if f["code"] == "DSC712")
    assert f["severity"] == "info" and "drafter folder holds no tokenizer.json" in f["message"]
    rc, rep = inspect_json(*tok_pair(None, None))
    assert codes(rep) == [] and check(rep, "tokenizer")[0]["result"] == "not checked"


def test_a_broken_tokenizer_file_is_not_checked_never_fatal(tok_pair):
    d, t = tok_pair("one-token")
    (d / "tokenizer.json").write_text('{"model": {"vocab": ')
    rc, rep = inspect_json(d, t)
    f = next(f for f in rep["findings"] if f["code"] == "DSC712")
    assert "tokenizer.json: is not valid JSON" in f["message"]


def test_tokenizer_compare_imports_neither_tokenizers_nor_transformers(tok_pair):
    d, t = tok_pair("one-token")
    import subprocess

    code = (
        "import sys; from dspark_ckpt.cli import app; from typer.testing import CliRunner; "
        f"CliRunner().invoke(app, ['inspect', {str(d)!r}, '--target', {str(t)!r}]); "
        "print(sorted(m for m in ('tokenizers', 'transformers', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_check_and_ci_formats_carry_the_new_findings(built, tmp_path):
    (tmp_path / "dspark-ckpt.toml").write_text(
        "[[pairs]]\n"
        f'name = "llama"\ndrafter = "{built["eagle3-llama3.1-8b"]}"\n'
        f'target = "{TARGETS / "llama-3.3-70b"}"\nprofiles = ["vllm-eagle3"]\n'
    )
    r = cli("check", "--config", tmp_path / "dspark-ckpt.toml", "--format", "sarif")
    assert r.exit_code == 1
    rules = {res["ruleId"] for run in r.json["runs"] for res in run["results"]}
    assert {"DSC701", "DSC702"} <= rules
    r = cli("check", "--config", tmp_path / "dspark-ckpt.toml", "--format", "github")
    assert "title=DSC701::[vllm-eagle3]" in r.stdout


def online(d, t, tmp_path):
    """``inspect org/d --target hf://org/t`` against a loopback Hub serving both folders:
    the result, and whether the target's tokenizer.json was requested."""
    from conftest import cli_subprocess
    from hubserver import HubServer, hub_env, repo_from_dir

    repos = {"org/d": repo_from_dir(d), "org/t": repo_from_dir(t)}
    with HubServer(repos) as hub:
        r = cli_subprocess(
            "inspect", "org/d", "--target", "hf://org/t", "--format", "json",
            env=hub_env(tmp_path, hub.url),
        )  # fmt: skip
        return r, bool(hub.requests("org/t", "tokenizer.json")), repos


@pytest.mark.slow
def test_hub_target_and_drafter_tokenizers_come_through_the_hub_reader(tok_pair, tmp_path):
    """Online: the tokenizer files are downloaded like config.json, and only because both
    sides list one; offline: read from the cache snapshot. Same verdict as local."""
    from conftest import cli_subprocess
    from hubserver import build_cache, closed_port, hub_env

    d, t = tok_pair("one-token")
    local = inspect_json(d, t)[1]
    r, fetched, repos = online(d, t, tmp_path)
    assert r.returncode == 1 and fetched, r.stderr
    out = json.loads(r.stdout)
    assert codes(out) == codes(local) == ["DSC710"]
    assert check(out, "tokenizer") == check(local, "tokenizer")

    cache = tmp_path / "hf-cache-offline"
    build_cache(cache, "org/d", repos["org/d"])
    build_cache(cache, "org/t", repos["org/t"])
    env = hub_env(tmp_path, closed_port(), HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(cache))
    r = cli_subprocess("inspect", "org/d", "--target", "org/t", "--format", "json", env=env)
    assert r.returncode == 1, r.stderr
    assert check(json.loads(r.stdout), "tokenizer") == check(local, "tokenizer")


@pytest.mark.slow
def test_hub_tokenizer_not_downloaded_when_one_side_has_none(tok_pair, tmp_path):
    r, fetched, _ = online(*tok_pair(None), tmp_path)
    assert not fetched
    assert codes(json.loads(r.stdout)) == ["DSC712"]


def test_target_vllm_takes_no_aux_states_from_is_refused_under_vllm_only(built, tmp_path):
    """vLLM 0.33.0's Gemma3ForCausalLM does not implement SupportsEagle3: its model runner
    raises at start-up. SGLang is not judged (no data); an unknown architecture neither."""
    t = tmp_path / "gemma"
    t.mkdir()
    cfg = {**json.loads((TARGETS / "llama-3.1-8b" / "config.json").read_text())}
    (t / "config.json").write_text(json.dumps({**cfg, "architectures": ["Gemma3ForCausalLM"]}))
    d = built["eagle3-llama3.1-8b"]
    rc, rep = inspect_json(d, t, "--profile", "vllm-eagle3,sglang-eagle3")
    assert codes(rep, "vllm-eagle3") == ["DSC705"] and codes(rep, "sglang-eagle3") == []
    f = next(f for f in rep["findings"] if f["code"] == "DSC705")
    assert "Gemma3ForCausalLM" in f["message"] and "SupportsEagle3" in f["message"]
    (t / "config.json").write_text(json.dumps({**cfg, "architectures": ["MyOwnForCausalLM"]}))
    assert codes(inspect_json(d, t, "--profile", "vllm-eagle3")[1]) == []
