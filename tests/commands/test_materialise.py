"""``fix --unsafe-fixes`` copies the target's lm_head / embed_tokens rows a runtime will
not share (DSC101, DSC102, DSC104, DSC601), through the real CLI on real safetensors
files: the rows d2t selects, in the target's dtype, and nothing without the flag."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import FIXTURES, cli
from safetensors import safe_open
from synth import VT, H, T

SMALL = FIXTURES / "targets/small"
EAGLE3 = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def raw(folder: Path, name: str) -> tuple[str, list[int], bytes]:
    """A tensor's dtype, shape and bytes as stored, from whichever file holds it."""
    for f in sorted(folder.glob("*.safetensors")):
        head = json.loads(f.read_bytes()[8 : 8 + int.from_bytes(f.read_bytes()[:8], "little")])
        if name in head:
            n = int.from_bytes(f.read_bytes()[:8], "little")
            a, b = head[name]["data_offsets"]
            return head[name]["dtype"], head[name]["shape"], f.read_bytes()[8 + n + a : 8 + n + b]
    raise KeyError(name)


def bf16_target(root: Path, rows: int = 128) -> Path:
    """A target whose lm_head is BF16 (its embedding F32): the copy keeps BF16."""
    synth.write_json(
        root / "config.json", {"architectures": ["Qwen3ForCausalLM"], "vocab_size": VT}
    )
    rng = np.random.default_rng(11)
    synth.write_safetensors(
        root / "model.safetensors",
        {
            "model.embed_tokens.weight": T("F32", (rows, H), rng.standard_normal((rows, H))),
            "lm_head.weight": T("BF16", (rows, H), rng.standard_normal((rows, H))),
        },
    )
    return root


def pruned(extra: dict | None = None) -> dict[str, T]:
    mapped = {k: v for k, v in synth.pruned_tensors(VT).items() if k != "lm_head.weight"}
    return {**mapped, **(extra or {})}  # no head of its own: the target's rows are copied


def test_the_rows_d2t_selects_are_copied_in_the_targets_dtype(cwd):
    target = bf16_target(cwd / "t")
    src = synth.drafter(cwd / "d", vocab=VT, draft=40, tensors=pruned())
    args = ["fix", src, "--target", target, "--profile", "vllm"]
    safe = cli(*args, "--out", "safe", "--format", "json")
    assert safe.exit_code == 1 and not (cwd / "safe").exists()
    left = {x["code"]: x["why"] for x in safe.json["plan"]["left"]}
    assert "--unsafe-fixes" in left["DSC102"]
    r = cli(*args, "--unsafe-fixes", "--out", "o", "--format", "json")
    assert r.exit_code == 0, r.stderr
    (applied,) = r.json["plan"]["repairs"]
    assert applied["repair"] == "copy-target-head" and applied["safety"] == "unsafe"
    assert "assumes the drafter was trained against the target's lm_head" in applied["summary"]
    dtype, shape, data = raw(cwd / "o", "lm_head.weight")
    _, _, head = raw(target, "lm_head.weight")
    ids = np.arange(40) + synth.sorted_mapping(VT, 40)[0]
    row = 2 * H
    assert (dtype, shape) == ("BF16", [40, H])
    assert data == b"".join(head[i * row : (i + 1) * row] for i in ids)
    after = cli("inspect", cwd / "o", "--target", target, "--profile", "vllm", "--format", "json")
    assert after.json["ok"] and "DSC102" not in {f["code"] for f in after.json["findings"]}


def test_sglang_eagle3_head_that_nothing_loads_is_copied(cwd):
    src = synth.drafter(
        cwd / "d",
        vocab=VT,
        draft=40,
        config=EAGLE3,
        tensors={k: v for k, v in pruned().items() if not k.startswith("markov")},
    )
    before = cli(
        "inspect", src, "--target", SMALL, "--profile", "sglang-eagle3", "--format", "json"
    )
    assert "DSC601" in {f["code"] for f in before.json["findings"]}
    r = cli(
        "fix", src, "--target", SMALL, "--profile", "sglang-eagle3", "--unsafe-fixes", "--out", "o"
    )
    assert r.exit_code == 0, r.stdout + r.stderr
    with safe_open(str(SMALL / "model.safetensors"), "numpy") as f:
        head = f.get_tensor("lm_head.weight")
    got = {}
    for p in (cwd / "o").glob("*.safetensors"):
        with safe_open(str(p), "numpy") as f:
            got.update({k: f.get_tensor(k) for k in f.keys()})  # noqa: SIM118
    ids = np.arange(40) + synth.sorted_mapping(VT, 40)[0]
    assert np.array_equal(got["lm_head.weight"], head[ids])


def test_a_padded_drafter_is_trimmed_not_given_the_target_head(cwd):
    # DSC104: trim-padding (safe) cuts Vd to Vt, and vLLM then shares the target's head
    src = synth.drafter(cwd / "d", vocab=128, draft=128, tensors={**synth.markov(128, 128)})
    before = cli("inspect", src, "--target", SMALL, "--profile", "vllm", "--format", "json").json
    assert "DSC104" in {f["code"] for f in before["findings"]}
    r = cli(*["fix", src, "--target", SMALL, "--profile", "vllm", "--unsafe-fixes", "--out", "o"])
    assert r.exit_code == 0, r.stdout + r.stderr
    after = cli("inspect", cwd / "o", "--target", SMALL, "--profile", "vllm", "--format", "json")
    assert after.json["ok"] and "lm_head.weight" not in tensors_of(cwd / "o")


def tensors_of(folder: Path) -> set[str]:
    out = set()
    for p in folder.glob("*.safetensors"):
        with safe_open(str(p), "numpy") as f:
            out.update(f.keys())
    return out


def test_an_expanded_input_vocab_gets_the_target_embeddings_rows(cwd):
    src = synth.drafter(cwd / "d", vocab=128, draft=40, tensors=pruned(synth.markov(128, 40)))
    before = cli("inspect", src, "--target", SMALL, "--profile", "vllm", "--format", "json").json
    assert "DSC101" in {f["code"] for f in before["findings"]}
    r = cli("fix", src, "--target", SMALL, "--profile", "vllm", "--unsafe-fixes", "--out", "o")
    assert r.exit_code == 0, r.stdout + r.stderr
    _, shape, data = raw(cwd / "o", "embed_tokens.weight")
    _, _, embed = raw(SMALL, "model.embed_tokens.weight")
    assert shape == [128, H] and data == embed


def test_no_copy_where_the_target_has_no_weights(cwd):
    src = synth.drafter(cwd / "d", vocab=VT, draft=40, tensors=pruned())
    r = cli(
        "fix", src, "--target-vocab-size", str(VT), "--unsafe-fixes", "--diff", "--format", "json"
    )
    assert r.json["plan"]["repairs"] == []
    assert any(x["code"] == "DSC102" and "no repair" in x["why"] for x in r.json["plan"]["left"])


@pytest.mark.slow
def test_a_hub_target_is_read_by_range_only_for_the_rows_copied(cwd):
    from conftest import cli_subprocess
    from hubserver import HubServer, hub_env, repo_from_dir

    src = synth.drafter(cwd / "d", vocab=VT, draft=40, tensors=pruned())
    repos = {"org/t": repo_from_dir(SMALL)}
    with HubServer(repos) as hub:
        r = cli_subprocess(
            "fix", src, "--target", "hf://org/t", "--profile", "vllm", "--unsafe-fixes",
            "--out", cwd / "o", env=hub_env(cwd, hub.url),
        )  # fmt: skip
        reads = hub.data_reads("org/t", "model.safetensors")
    assert r.returncode == 0, r.stderr
    f = (SMALL / "model.safetensors").read_bytes()
    n = int.from_bytes(f[:8], "little")
    head = json.loads(f[8 : 8 + n])["lm_head.weight"]["data_offsets"][0] + 8 + n
    ids = np.arange(40) + synth.sorted_mapping(VT, 40)[0]
    rows = [(head + i * 4 * H, head + (i + 1) * 4 * H) for i in ids]
    beyond = [x for x in reads if x[0] >= 8 + n]
    assert sum(b - a for a, b in beyond) == 40 * 4 * H  # the header, then those rows only
    assert {i for a, b in beyond for i in range(a, b)} == {i for a, b in rows for i in range(a, b)}
    _, _, data = raw(cwd / "o", "lm_head.weight")
    _, _, whole = raw(SMALL, "lm_head.weight")
    assert data == b"".join(whole[i * 4 * H : (i + 1) * 4 * H] for i in ids)
