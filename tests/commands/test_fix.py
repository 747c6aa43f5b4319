"""``fix`` through the real CLI on real safetensors files.

Every test runs in its own empty working folder (side files land there) and ends
with a byte-for-byte check that the committed fixtures are unchanged.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import FIXTURES, ROOT, cli, signal_at
from safetensors import safe_open
from safetensors.numpy import load_file

from dspark_ckpt.commands.draft_map import BROKEN_MAP
from dspark_ckpt.commands.fix import NEW_SHARD
from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.gather import read_d2t
from dspark_ckpt.facts.vocab import BIAS_TENSOR, MASK_MEANING, MASK_TENSOR
from dspark_ckpt.profiles.registry import applicable_profiles
from dspark_ckpt.source import atomic
from dspark_ckpt.source.checkpoint import load_checkpoint

# an EAGLE-3 config as SpecForge writes one (aux ids under eagle_config, no DSpark
# target_layer_ids, which vLLM's runner would feed instead: DSC651)
EAGLE3_CONFIG = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}
SMALL = FIXTURES / "targets/small"
LEGACY = ("--profile", "vllm-legacy")  # a padded drafter with d2t is meant for this loader
PADDED_ROWS = 128 - synth.VT


def vllm_pair(verdicts: dict) -> dict:
    """The two vLLM DSpark verdicts (other profiles of the family are reported too)."""
    return {k: verdicts[k] for k in ("vllm", "vllm-legacy")}


def digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` (symlinks as their target path) and its sha256."""
    out = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        if p.is_symlink():
            out[key] = "link:" + os.readlink(p)
        elif p.is_file():
            out[key] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[key] = "dir"
    return out


@pytest.fixture(autouse=True)
def fixtures_unchanged():
    before = digest(FIXTURES)
    yield
    assert digest(FIXTURES) == before, "a committed fixture was modified"


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def copy_fixture(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / name, tmp_path / Path(name).name))


def pruned_t2d_only(root: Path) -> tuple[Path, np.ndarray]:
    """A pruned drafter (Vd 32, Vt 100) with t2d but no d2t; returns the d2t it implies."""
    d2t, t2d = synth.sorted_mapping(synth.VT, 32, seed=5)
    synth.drafter(
        root,
        vocab=synth.VT,
        draft=32,
        tensors={"lm_head.weight": synth.head(32, synth.H, 1), "t2d": synth.T("BOOL", (100,), t2d)},
    )
    return root, d2t


def padded_with_d2t(root: Path, offsets, vocab: int = 128) -> Path:
    """A padded drafter (Vd 128 against the small target's Vt 100) shipping ``offsets`` as
    its d2t."""
    return synth.drafter(
        root,
        vocab=vocab,
        draft=128,
        tensors={
            "lm_head.weight": synth.head(128, 8, 1),
            "d2t": synth.T("I64", (128,), np.asarray(offsets, dtype=np.int64)),
        },
    )


def pruned_32(root: Path, **tensors) -> Path:
    """A pruned drafter (Vd 32 against the small target's Vt 100) with its head and
    ``tensors`` (d2t, t2d)."""
    head = {"lm_head.weight": synth.head(32, 8, 1)}
    return synth.drafter(root, vocab=100, draft=32, tensors={**head, **tensors})


def meta(path: Path) -> dict[str, str]:
    with safe_open(str(path), framework="np") as f:
        return f.metadata()


def fix_json(*args) -> tuple[int, dict]:
    r = cli("fix", *args, "--format", "json")
    assert r.stderr == "", r.stderr
    return r.exit_code, r.json


# --- the mask ------------------------------------------------------------------------


def test_mask_of_a_padded_drafter(cwd):
    code, out = fix_json(FIXTURES / "padded", "--target", SMALL, "--emit-mask")
    assert code == 0  # the checkpoint is unchanged: still deployable under vllm
    path = cwd / "draft_vocab_mask.safetensors"
    tensors = load_file(path)
    assert list(tensors) == [MASK_TENSOR]
    mask = tensors[MASK_TENSOR]
    assert mask.dtype == np.bool_ and mask.shape == (128,)
    assert mask[: synth.VT].all() and not mask[synth.VT :].any()
    assert meta(path) == {
        "format": "pt",
        "target_vocab_size": "100",
        "draft_vocab_size": "128",
        "padded_rows": str(PADDED_ROWS),
        "mask_style": "bool",
        "meaning": MASK_MEANING,
    }
    assert out["schema"] == "dspark-ckpt/fix/v1"
    assert out["mask"] == {"style": "bool", "masked_rows": PADDED_ROWS, "masking_needed": True}
    [w] = out["written"]
    assert w == {
        "path": "draft_vocab_mask.safetensors",
        "tensor": MASK_TENSOR,
        "dtype": "BOOL",
        "shape": [128],
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    assert (
        vllm_pair(out["verdicts_before"])
        == vllm_pair(out["verdicts_after"])
        == {"vllm": True, "vllm-legacy": False}
    )
    # the checkpoint is unchanged: DSC401 stays, and fix says why
    assert "DSC401" in [f["code"] for f in out["findings_after"]]
    assert (
        "the mask is a side file (draft_vocab_mask.safetensors) that the serving code must "
        "apply: DSC401 stays in the findings, as inspect cannot see side files"
    ) in out["notes"]


def test_mask_loads_in_torch(cwd):
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file as torch_load

    assert cli("fix", FIXTURES / "padded", "--target", SMALL, "--emit-mask").exit_code == 0
    mask = torch_load(cwd / "draft_vocab_mask.safetensors")[MASK_TENSOR]
    assert mask.dtype == torch.bool and tuple(mask.shape) == (128,)
    # the way a runtime applies it: padded rows can never win argmax
    logits = torch.zeros(128)
    logits[120] = 100.0
    assert int(torch.argmax(logits.masked_fill(~mask, float("-inf")))) < synth.VT


def test_additive_mask(cwd):
    code, out = fix_json(
        FIXTURES / "sharded",
        "--target-vocab-size",
        "100",
        "--mask-path",
        "bias.safetensors",
        "--mask-style",
        "additive",
    )
    assert code == 0
    bias = load_file(cwd / "bias.safetensors")[BIAS_TENSOR]
    assert bias.dtype == np.float32 and bias.shape == (128,)
    assert (bias[:100] == 0).all() and np.isneginf(bias[100:]).all()
    assert meta(cwd / "bias.safetensors")["mask_style"] == "additive"
    assert out["written"][0]["dtype"] == "F32"


@pytest.mark.parametrize("name", ["pruned-eagle3", "equal"])
def test_mask_of_pruned_or_equal_drafter_is_all_true(cwd, name):
    r = cli("fix", FIXTURES / name, "--target", SMALL, "--emit-mask")
    assert r.exit_code == 0
    assert "no masking is needed" in r.stdout
    mask = load_file(cwd / "draft_vocab_mask.safetensors")[MASK_TENSOR]
    assert mask.all()
    assert meta(cwd / "draft_vocab_mask.safetensors")["padded_rows"] == "0"


def test_pruned_mask_is_checked_through_d2t(tmp_path, cwd):
    # a pruned drafter whose d2t sends draft id 31 past Vt: the checkpoint is broken
    # (DSC301), and fix builds no mask on that map: it says why, and writes nothing
    d2t, _ = synth.sorted_mapping(synth.VT, 32)
    d2t[31] = synth.VT  # 31 + 100 >= Vt
    synth.drafter(
        tmp_path / "bad",
        vocab=synth.VT,
        draft=32,
        tensors={"lm_head.weight": synth.head(32, synth.H, 1), "d2t": synth.T("I64", (32,), d2t)},
    )
    r = cli("fix", tmp_path / "bad", "--target", SMALL, "--emit-mask")
    assert r.exit_code == 1 and "DSC301" in r.stderr and "draft id 31 -> 131" in r.stderr
    assert not (cwd / "draft_vocab_mask.safetensors").exists()
    # a good pruned map: the mask is all True, checked through d2t
    code, out = fix_json(FIXTURES / "pruned-eagle3", "--target", SMALL, "--emit-mask")
    assert code == 0 and out["mask"]["masked_rows"] == 0
    assert any("(checked through d2t)" in n for n in out["notes"])
    # and fix never passes that d2t on
    r = cli("fix", tmp_path / "bad", "--target", SMALL, "--emit-d2t", "--d2t-path", "x.safetensors")
    assert r.exit_code == 1 and "DSC301" in r.stderr and BROKEN_MAP in r.stderr
    assert not (cwd / "x.safetensors").exists()


# --- d2t -----------------------------------------------------------------------------


# an identity d2t for a padded drafter: the Vd != Vt loader (0.29) takes it, and so does
# TensorRT-LLM's standalone DSpark route, which skips a d2t as any name it has no module for
# (d2t_param "ignored"); every other profile of the family (read from the registry: a new
# release is one more) refuses it
TAKES_IT = ["trtllm-dspark"]  # (sglang-dspark skips it too, and fails this drafter otherwise)
LEGACY_ONLY = f"passes {', '.join(['vllm-legacy', *TAKES_IT])} and fails " + ", ".join(
    n for n in applicable_profiles("dspark") if n not in ("vllm-legacy", *TAKES_IT)
)


def test_identity_d2t_for_a_padded_drafter(cwd):
    code, out = fix_json(FIXTURES / "padded", "--target", SMALL, "--emit-d2t")
    d2t = load_file(cwd / "d2t.safetensors")["d2t"]
    assert d2t.dtype == np.int64 and d2t.shape == (128,) and not d2t.any()  # zeros, not arange
    assert meta(cwd / "d2t.safetensors")["d2t_origin"] == "identity (all zeros)"
    # with this d2t the checkpoint passes the legacy loader and fails the current one
    assert vllm_pair(out["verdicts_before"]) == {"vllm": True, "vllm-legacy": False}
    assert vllm_pair(out["verdicts_after"]) == {"vllm": False, "vllm-legacy": True}
    assert any(LEGACY_ONLY in n for n in out["notes"])
    assert code == 1 and not out["ok"]
    assert [f["code"] for f in out["findings_after"] if f["severity"] == "error"] == ["DSC105"]


def test_a_padded_drafter_keeps_its_own_zero_d2t(tmp_path, cwd):
    src = synth.drafter(  # V = Vd: sampled ids stay inside markov_w1 / the embedding
        tmp_path / "p",
        vocab=128,
        draft=128,
        tensors={
            "embed_tokens.weight": synth.head(128, 8, 2),
            "lm_head.weight": synth.head(128, 8, 1),
            "d2t": synth.T("I64", (128,), np.zeros(128, dtype=np.int64)),
        },
    )
    code, out = fix_json(src, "--target", SMALL, "--emit-d2t", *LEGACY)
    assert code == 0 and out["d2t_origin"] == "the checkpoint's own"
    assert meta(cwd / "d2t.safetensors")["d2t_origin"] == "the checkpoint's own"
    code, out = fix_json(src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY)
    assert code == 0 and out["files"] == []
    assert any("already holds this d2t" in n for n in out["notes"])


def test_identity_d2t_exit_code_follows_the_profile(cwd):
    r = cli("fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--profile", "vllm-legacy")
    assert r.exit_code == 0
    assert LEGACY_ONLY in r.stdout


def test_fix_takes_a_profile_by_its_release_qualified_name(cwd):
    r = cli("fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--profile",
            "vllm-dspark@0.29.0")  # fmt: skip
    assert r.exit_code == 0 and LEGACY_ONLY in r.stdout
    assert "deployable after fix under vLLM 0.29 (vllm-legacy)" in r.stdout


def test_d2t_derived_from_t2d(tmp_path, cwd):
    src, expected = pruned_t2d_only(tmp_path / "pruned")
    code, out = fix_json(src, "--target", SMALL, "--emit-d2t")
    d2t = load_file(cwd / "d2t.safetensors")["d2t"]
    assert np.array_equal(d2t, expected)
    assert out["d2t_origin"] == "derived from t2d"
    assert out["verdicts_before"]["vllm"] is False  # DSC103: no d2t
    assert vllm_pair(out["verdicts_after"]) == {"vllm": True, "vllm-legacy": True}
    assert code == 0


@pytest.mark.parametrize("emit", [["--emit-d2t", "--emit-mask"], ["--emit-mask"], ["--emit-d2t"]])
def test_pruned_drafter_without_mapping_is_refused(cwd, emit):
    """No d2t, no t2d: no map can be invented, and no mask either (nothing says which
    draft ids are legal: an all-True mask would claim every one is)."""
    src = FIXTURES / "vllm-table/v100-d40-lm_head"
    r = cli("fix", src, "--target-vocab-size", "100", *emit)
    assert r.exit_code == 1
    assert "no correct mapping can be invented" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert r.stdout == "" and list(cwd.iterdir()) == []


@pytest.mark.parametrize("emit", [["--emit-mask"], ["--emit-d2t"], ["--emit-d2t", "--out", "o"]])
def test_a_d2t_its_t2d_contradicts_is_refused(tmp_path, cwd, emit):
    """d2t and t2d select other target ids (inspect's DSC314): the head was trained on
    t2d's, the runtimes serve d2t's, so fix builds nothing on either."""
    d2t, _ = synth.sorted_mapping(synth.VT, 32, seed=0)
    _, other = synth.sorted_mapping(synth.VT, 32, seed=1)
    pruned_32(tmp_path / "p", d2t=synth.T("I64", (32,), d2t), t2d=synth.T("BOOL", (100,), other))
    found = cli("inspect", tmp_path / "p", "--target", SMALL, "--format", "json").json
    assert [f["code"] for f in found["findings"]] == ["DSC314"]
    r = cli("fix", tmp_path / "p", "--target", SMALL, *emit)
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr == (
        f"dspark-ckpt: error: {tmp_path / 'p' / 'model.safetensors'}: DSC314: t2d selects "
        f"other target ids than d2t maps to; {BROKEN_MAP}\n"
    )
    assert list(cwd.iterdir()) == []


def test_t2d_that_selects_the_wrong_count_is_refused(tmp_path, cwd):
    t2d = np.zeros(100, dtype=bool)
    t2d[:33] = True  # 33 selected, Vd 32
    pruned_32(tmp_path / "p", t2d=synth.T("BOOL", (100,), t2d))
    r = cli("fix", tmp_path / "p", "--target", SMALL, "--emit-d2t")
    assert r.exit_code == 1 and r.stderr == (
        f"dspark-ckpt: error: {tmp_path / 'p' / 'model.safetensors'}: DSC303: t2d selects 33 "
        "target ids; Vd is 32: no d2t can be derived from it\n"
    )
    assert list(cwd.iterdir()) == []


@pytest.mark.parametrize(
    "dtype, shape", [("F32", (32,)), ("I64", (33,)), ("I64", (32, 1)), ("U8", (32,))]
)
def test_a_d2t_that_is_not_i64_vd_is_one_rule(tmp_path, cwd, dtype, shape):
    """facts.gather.read_d2t is the one reader: fix refuses with inspect's own DSC206 message."""
    pruned_32(tmp_path / "p", d2t=synth.T(dtype, shape, np.zeros(shape)))
    found = cli("inspect", tmp_path / "p", "--target", SMALL, "--format", "json").json
    [dsc206] = [f for f in found["findings"] if f["code"] == "DSC206"]
    with pytest.raises(CheckpointError) as err:
        read_d2t(load_checkpoint(tmp_path / "p"), 32)
    assert err.value.message == f"DSC206: {dsc206['message']}"
    for emit in ("--emit-mask", "--emit-d2t"):
        r = cli("fix", tmp_path / "p", "--target", SMALL, emit)
        assert r.exit_code == 1
        assert r.stderr == f"dspark-ckpt: error: {dsc206['file']}: DSC206: {dsc206['message']}\n"
    assert list(cwd.iterdir()) == []


@pytest.mark.parametrize("dtype", ["I64", "I32"])
def test_read_d2t_of_a_good_or_missing_d2t(tmp_path, dtype):
    """The values as int64 (an I32 d2t's too), in the standard library's array: no numpy."""
    d2t, _ = synth.sorted_mapping(synth.VT, 32)
    synth.drafter(
        tmp_path / "p",
        vocab=100,
        draft=32,
        tensors={"lm_head.weight": synth.head(32, 8, 1), "d2t": synth.T(dtype, (32,), d2t)},
    )
    got = read_d2t(load_checkpoint(tmp_path / "p"), 32)
    assert got.typecode == "q" and got.itemsize == 8 and list(got) == d2t.tolist()
    assert read_d2t(load_checkpoint(FIXTURES / "padded"), 128) is None


# --- a patched copy ----------------------------------------------------------------


def test_out_patched_copy_of_a_padded_drafter(tmp_path, cwd):
    src = copy_fixture("padded", tmp_path)  # same filesystem as the output: hard links
    before = digest(src)
    code, out = fix_json(
        src, "--target", SMALL, "--emit-d2t", "--out", tmp_path / "patched", *LEGACY
    )
    dst = tmp_path / "patched"
    assert sorted(p.name for p in dst.iterdir()) == [
        "config.json",
        NEW_SHARD,
        "model.safetensors",
        "model.safetensors.index.json",
    ]
    assert os.stat(dst / "model.safetensors").st_ino == os.stat(src / "model.safetensors").st_ino
    assert (dst / "config.json").read_bytes() == (src / "config.json").read_bytes()
    assert not load_file(dst / NEW_SHARD)["d2t"].any()
    index = json.loads((dst / "model.safetensors.index.json").read_text())
    assert index["weight_map"]["d2t"] == NEW_SHARD
    stored = {k: "model.safetensors" for k in load_file(src / "model.safetensors")}
    assert index["weight_map"] == {**stored, "d2t": NEW_SHARD}
    tensors = {**load_file(src / "model.safetensors"), **load_file(dst / NEW_SHARD)}
    assert index["metadata"]["total_size"] == sum(t.nbytes for t in tensors.values())
    # the copy passes the legacy loader and fails the current one, as fix said
    assert cli("inspect", dst, "--target", SMALL, "--profile", "vllm-legacy").exit_code == 0
    assert cli("inspect", dst, "--target", SMALL).exit_code == 1
    assert vllm_pair(out["verdicts_after"]) == {"vllm": False, "vllm-legacy": True}
    assert code == 0  # deployable under the profile asked for
    assert digest(src) == before


def test_out_updates_the_index_of_a_sharded_drafter(tmp_path, cwd):
    code, out = fix_json(
        FIXTURES / "sharded", "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o", *LEGACY
    )
    old = json.loads((FIXTURES / "sharded/model.safetensors.index.json").read_text())
    new = json.loads((tmp_path / "o/model.safetensors.index.json").read_text())
    assert new["weight_map"] == {**old["weight_map"], "d2t": NEW_SHARD}
    assert new["metadata"]["total_size"] == old["metadata"]["total_size"] + 128 * 8
    for shard in set(old["weight_map"].values()):
        assert (tmp_path / "o" / shard).read_bytes() == (FIXTURES / "sharded" / shard).read_bytes()
    assert out["verdicts_after"]["vllm-legacy"] is True


def test_out_writes_a_missing_draft_vocab_size(tmp_path, cwd):
    r = cli("fix", FIXTURES / "equal", "--target", SMALL, "--emit-mask", "--out", tmp_path / "o")
    assert r.exit_code == 0
    cfg = json.loads((tmp_path / "o/config.json").read_text())
    assert cfg["draft_vocab_size"] == 100
    assert "draft_vocab_size" not in json.loads((FIXTURES / "equal/config.json").read_text())
    found = cli("inspect", tmp_path / "o", "--target", SMALL, "--format", "json").json
    assert found["findings"] == [] and found["ok"]


def test_out_of_a_pruned_drafter_with_t2d_passes(tmp_path, cwd):
    src, expected = pruned_t2d_only(tmp_path / "pruned")
    assert cli("inspect", src, "--target", SMALL).exit_code == 1  # DSC103
    r = cli("fix", src, "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o")
    assert r.exit_code == 0
    assert np.array_equal(load_file(tmp_path / "o" / NEW_SHARD)["d2t"], expected)
    for profile in ("vllm", "vllm-legacy"):
        assert (
            cli("inspect", tmp_path / "o", "--target", SMALL, "--profile", profile).exit_code == 0
        )


def test_out_inside_the_source_is_refused(tmp_path, cwd):
    src = copy_fixture("padded", tmp_path)
    before = digest(src)
    for out in (src, src / "sub"):
        r = cli("fix", src, "--target", SMALL, "--emit-d2t", "--out", out)
        assert r.exit_code == 2 and "--in-place" in r.stderr
    assert digest(src) == before


# --- a change that makes the checkpoint fail its profile -------------------------------


def test_identity_d2t_for_an_equal_drafter_is_refused_in_the_checkpoint(tmp_path, cwd):
    # equal (Vd == Vt) passes every profile; a d2t fails them all (DSC105: neither the
    # < nor the legacy != rule creates draft_id_to_target_id for Vd == Vt)
    src = copy_fixture("equal", tmp_path)
    before = digest(src)
    inspected = cli("inspect", src, "--target", SMALL, "--format", "json").json["verdicts"]
    assert all(vllm_pair(inspected).values())
    for where in (("--out", tmp_path / "eq"), ("--in-place", "--force")):
        r = cli("fix", src, "--target", SMALL, "--emit-d2t", *where)
        assert r.exit_code == 1 and r.stdout == ""
        assert "refused: the change would make this checkpoint fail vllm" in r.stderr
        assert "DSC105" in r.stderr and "nothing written" in r.stderr
        assert len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "eq").exists() and digest(src) == before
    assert list(cwd.iterdir()) == []

    # the side file changes nothing by itself: written, with what it would do
    code, out = fix_json(src, "--target", SMALL, "--emit-d2t")
    assert code == 1 and (cwd / "d2t.safetensors").exists()
    before_ok, after_ok = out["verdicts_before"], out["verdicts_after"]
    assert all(vllm_pair(before_ok).values()) and not any(vllm_pair(after_ok).values())
    lost = ", ".join(n for n, ok in after_ok.items() if before_ok[n] and not ok)
    assert f"this change makes {lost} FAIL (passed before): DSC105" in " ".join(out["notes"])
    assert any("an equal drafter needs no d2t" in n for n in out["notes"])
    table = cli("fix", src, "--target", SMALL, "--emit-d2t", "--force").stdout
    assert "this change makes" in table and "FAIL (passed before)" in table


def test_padded_d2t_in_the_checkpoint_follows_the_profile(tmp_path, cwd):
    # a padded drafter passes vllm and fails vllm-legacy: d2t turns that round
    r = cli("fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o")
    assert r.exit_code == 1 and "fail vllm, which it passes now (DSC105" in r.stderr
    assert not (tmp_path / "o").exists()
    code, out = fix_json(
        FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o", *LEGACY
    )
    assert code == 0
    assert "this change makes vllm-legacy pass (failed before)" in out["notes"]
    assert any(n.startswith("this change makes vllm") and "FAIL" in n for n in out["notes"])


def test_default_profile_is_the_family_default_as_for_inspect(tmp_path, cwd):
    """An EAGLE-3 drafter is judged by vllm-eagle3, as inspect does: a padded EAGLE-3
    drafter may take d2t (its loader has the parameter when Vd != Vt); the DSpark vllm
    profile never judges it."""
    src = synth.drafter(
        tmp_path / "eagle",
        vocab=128,
        draft=128,
        tensors={"lm_head.weight": synth.head(128, 8, 1)},
        config=EAGLE3_CONFIG,
    )
    assert cli("inspect", src, "--target", SMALL, "--format", "json").json["profile"] == (
        "vllm-eagle3"
    )
    code, out = fix_json(src, "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o")
    assert code == 0 and out["profile"] == "vllm-eagle3" and out["verdicts_after"]["vllm-eagle3"]
    # a DSpark drafter still gets vllm; an explicit --profile still decides
    code, out = fix_json(FIXTURES / "padded", "--target", SMALL, "--emit-mask")
    assert code == 0 and out["profile"] == "vllm"
    r = cli(
        "fix", src, "--target", SMALL, "--emit-d2t", "--out", tmp_path / "p", "--profile", "vllm"
    )
    # a profile of another family never decides: vllm judges DSpark drafters
    assert r.exit_code == 2 and "--profile vllm judges dspark drafters" in r.stderr
    assert not (tmp_path / "p").exists()


# --- --out into a folder holding another checkpoint -------------------------------------


def test_out_refuses_stale_checkpoint_files(tmp_path, cwd):
    o = tmp_path / "o"
    args = ("fix", FIXTURES / "sharded", "--target", SMALL, "--emit-d2t", "--out", o, *LEGACY)
    assert cli(*args).exit_code == 0
    first = digest(o)
    assert any(name.startswith("model-0000") for name in first)  # the shards of "sharded"
    r = cli(
        "fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--out", o, *LEGACY, "--force"
    )
    assert r.exit_code == 2 and "which this run would not write" in r.stderr
    assert "model-00001-of-00003.safetensors" in r.stderr
    assert digest(o) == first
    assert cli(*args, "--force").exit_code == 0  # its own previous output is not stale
    assert digest(o) == first
    # any stale index, shard or config counts; other files do not
    for stale in ("model.safetensors.index.json", "other.safetensors", "config.json"):
        p = tmp_path / "p"
        shutil.rmtree(p, ignore_errors=True)
        p.mkdir()
        (p / "notes.txt").write_text("keep")
        (p / stale).write_text("{}")
        args = ("fix", FIXTURES / "equal", "--target", SMALL, "--emit-mask", "--out", p)
        r = cli(*args, "--force")
        if stale == "config.json":  # this run writes config.json itself
            assert r.exit_code == 0
        else:
            assert r.exit_code == 2 and stale in r.stderr
            assert sorted(x.name for x in p.iterdir()) == sorted(["notes.txt", stale])


# --- in place ------------------------------------------------------------------------


def test_in_place_needs_force(tmp_path, cwd):
    src = copy_fixture("padded", tmp_path)
    before = digest(src)
    r = cli("fix", src, "--target", SMALL, "--emit-d2t", "--in-place")
    assert r.exit_code == 2 and "--force" in r.stderr
    assert digest(src) == before


def test_in_place_then_again_is_the_same(tmp_path, cwd):
    # a padded drafter without draft_vocab_size: config.json is rewritten too
    src = tmp_path / "src"
    head = synth.head(128, 8, 1)
    synth.drafter(
        src, vocab=128, draft=None, tensors={"lm_head.weight": head, "embed_tokens.weight": head}
    )
    args = ("fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY)
    first = cli(*args, "--format", "json")
    assert first.exit_code == 0
    assert vllm_pair(first.json["verdicts_after"]) == {"vllm": False, "vllm-legacy": True}
    assert json.loads((src / "config.json").read_text())["draft_vocab_size"] == 128
    after_first = digest(src)
    assert NEW_SHARD in after_first and "model.safetensors.index.json" in after_first
    second = cli(*args, "--format", "json")
    assert second.exit_code == 0
    assert second.json["written"] == [] and second.json["files"] == []
    assert second.json["verdicts_after"] == first.json["verdicts_after"]
    assert digest(src) == after_first


def test_in_place_where_the_owner_cannot_be_kept_still_fixes(tmp_path, cwd, monkeypatch):
    """A user namespace or a vfat mount refuses chown: the fix is done all the same."""

    def refuse(*args):
        raise OSError(errno.EINVAL, "Invalid argument")

    src = copy_fixture("sharded", tmp_path)
    (src / "model.safetensors.index.json").chmod(0o444)
    if os.geteuid() == 0:  # a user's file (as any other user, it already is one)
        os.chown(src / "model.safetensors.index.json", 1000, 1000)
    calls = []
    monkeypatch.setattr(os, "chown", lambda *a: calls.append(a) or refuse())
    monkeypatch.setattr(os, "geteuid", lambda: 0)  # the owner-keeping path, as root
    args = ("fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY)
    r = cli(*args)
    assert r.exit_code == 0, r.stderr
    assert (src / "model.safetensors.index.json").stat().st_mode & 0o777 == 0o444
    assert calls  # the chown was tried, and refused


def test_in_place_keeps_the_mode_and_owner_of_the_files_it_replaces(tmp_path, cwd):
    """Run as root (a container fixing a mounted checkpoint), replaced files keep their
    user's ownership; as anyone else they stay that user's anyway."""
    src = copy_fixture("sharded", tmp_path)
    config = json.loads((src / "config.json").read_text())
    del config["draft_vocab_size"]  # so that config.json is replaced too
    (src / "config.json").write_text(json.dumps(config))
    (src / "config.json").chmod(0o640)
    (src / "model.safetensors.index.json").chmod(0o444)
    owner = (1000, 1001) if os.geteuid() == 0 else (os.getuid(), os.getgid())
    for name in ("config.json", "model.safetensors.index.json"):
        os.chown(src / name, *owner)
    args = ("fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY)
    r = cli(*args, "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert {"config.json", "model.safetensors.index.json"} <= {
        Path(f).name for f in r.json["files"]
    }

    def mode(name):
        return (src / name).stat().st_mode & 0o777

    assert (mode("config.json"), mode("model.safetensors.index.json")) == (0o640, 0o444)
    assert mode(NEW_SHARD) == 0o644
    for name in ("config.json", "model.safetensors.index.json"):
        st = (src / name).stat()
        assert (st.st_uid, st.st_gid) == owner, name


# --- never overwrite, never through a link -------------------------------------------


def test_existing_side_file_needs_force_and_rerun_is_identical(cwd):
    args = ("fix", FIXTURES / "padded", "--target", SMALL, "--emit-mask", "--emit-d2t")
    assert cli(*args).exit_code == 1
    first = digest(cwd)
    r = cli(*args)
    assert r.exit_code == 2 and "exists; pass --force" in r.stderr
    assert digest(cwd) == first
    assert cli(*args, "--force").exit_code == 1
    assert digest(cwd) == first


def test_out_twice_gives_the_same_copy(tmp_path, cwd):
    args = ("fix", FIXTURES / "sharded", "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o")
    assert cli(*args, *LEGACY).exit_code == 0
    first = digest(tmp_path / "o")
    assert cli(*args, *LEGACY).exit_code == 2  # exists
    assert cli(*args, *LEGACY, "--force").exit_code == 0
    assert digest(tmp_path / "o") == first


def test_symlink_destinations_are_refused(tmp_path, cwd):
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (cwd / "draft_vocab_mask.safetensors").symlink_to(victim)
    r = cli("fix", FIXTURES / "padded", "--target", SMALL, "--emit-mask", "--force")
    assert r.exit_code == 2 and "symlink" in r.stderr
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    r = cli("fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--out", tmp_path / "link")
    assert r.exit_code == 2 and "symlink" in r.stderr
    assert victim.read_text() == "keep me" and list((tmp_path / "real").iterdir()) == []


def test_shard_linking_out_of_the_checkpoint_is_refused(tmp_path, cwd):
    src = copy_fixture("padded", tmp_path)
    outside = tmp_path / "elsewhere.safetensors"
    (src / "model.safetensors").rename(outside)
    (src / "model.safetensors").symlink_to(outside)
    r = cli("fix", src, "--target", SMALL, "--emit-d2t", "--out", tmp_path / "o")
    assert r.exit_code == 1 and "symlink leading out of the checkpoint" in r.stderr
    assert not (tmp_path / "o").exists()


# --- usage ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "say where the repaired checkpoint goes: --out DIR, or --in-place --force"),
        (("--emit-mask", "--out", "o", "--in-place", "--force"), "at most one of"),
        (("--emit-d2t", "--d2t-path", "x.safetensors", "--out", "o"), "side file"),
        (("--emit-mask", "--profile", "nope"), "unknown profile"),
        (("--emit-mask", "--profile", "all"), "unknown profile 'all'; choose from vllm,"),
    ],
)
def test_usage_errors(cwd, args, message):
    r = cli("fix", FIXTURES / "padded", "--target", SMALL, *args)
    assert r.exit_code == 2 and message in r.stderr
    assert "'all'" not in r.stderr.split("choose from")[-1]  # fix takes one profile
    assert list(cwd.iterdir()) == []


def test_unreadable_checkpoint(tmp_path, cwd):
    src = copy_fixture("padded", tmp_path)
    (src / "model.safetensors").write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{oops")
    r = cli("fix", src, "--target", SMALL, "--emit-mask")
    assert r.exit_code == 1 and "model.safetensors" in r.stderr
    assert list(cwd.iterdir()) == []


# --- failure injection: each step of the write fails in turn ----------------------------


class Boom(OSError):
    pass


def record_steps(monkeypatch, args) -> tuple[list[tuple[str, str]], int]:
    """The steps of one run, and its exit code."""
    steps: list[tuple[str, str]] = []
    monkeypatch.setattr(atomic, "fault", lambda step, path: steps.append((step, Path(path).name)))
    code = cli(*args).exit_code
    monkeypatch.setattr(atomic, "fault", None)
    return steps, code


def fail_at(n: int):
    calls = iter(range(10_000))

    def fault(step, path):
        if next(calls) == n:
            raise Boom(5, f"injected failure at {step}", str(path))

    return fault


SCENARIOS = {
    # side files: mask + d2t, the mask replacing an older file (--force)
    "side": lambda t: (
        ["--emit-mask", "--emit-d2t", "--force"],
        FIXTURES / "padded",
        t / "work",
    ),
    # a patched copy of a sharded drafter: links, new shard, index
    "out": lambda t: (["--emit-d2t", "--out", t / "o", *LEGACY], FIXTURES / "sharded", t),
    # in place: new shard, config.json replaced, index created
    "in-place": lambda t: (["--emit-d2t", "--in-place", "--force", *LEGACY], t / "src", t),
}


CHECKS = ("verify", "read_back", "reinspect")  # fix's own checks; every other step writes


@pytest.mark.parametrize("mode", SCENARIOS)
def test_a_failure_at_any_step_leaves_nothing_behind(tmp_path, cwd, monkeypatch, mode):
    def setup(t: Path):
        shutil.rmtree(t, ignore_errors=True)
        (t / "work").mkdir(parents=True)
        (t / "work" / "draft_vocab_mask.safetensors").write_bytes(b"old mask")
        src = t / "src"
        synth.drafter(src, vocab=128, draft=None, tensors={"lm_head.weight": synth.head(128, 8, 1)})
        extra, source, watch = SCENARIOS[mode](t)
        args = ("fix", source, "--target", SMALL, *extra)
        return args, watch

    t = tmp_path / "case"
    args, watch = setup(t)
    monkeypatch.chdir(t / "work")
    untouched = digest(watch)
    steps, code = record_steps(monkeypatch, args)
    names = [step for step, _ in steps]
    # the bytes are checked before anything is written; the written files are read
    # back (and a patched checkpoint inspected again) before the transaction ends
    made = {"draft_vocab_mask.safetensors", "d2t.safetensors", NEW_SHARD}
    assert [n for s, n in steps if s == "verify"] == [n for s, n in steps if s == "read_back"]
    assert set(n for s, n in steps if s == "verify") <= made
    first_write = min(i for i, n in enumerate(names) if n in ("mkdir", "temp", "link"))
    assert set(names[:first_write]) == {"verify"}
    last_commit = max(i for i, n in enumerate(names) if n == "fsync_dir")
    checks = ["read_back"] * names.count("read_back") + (["reinspect"] if mode != "side" else [])
    # then the commit point, marked in each undo record
    assert names[last_commit + 1 : names.index("commit")] == [*checks, "mark"]
    replaces = [name for step, name in steps if step == "replace"]
    if mode != "side":
        assert replaces[-1] == "model.safetensors.index.json"  # the index goes in last
    done = digest(watch)
    assert done != untouched  # the real run changed something
    commit_point = names.index("commit")  # from there, a failure changes nothing: done
    assert set(names[commit_point:]) <= {"commit", "drop_backup", "drop_record"}

    for n, (step, name) in enumerate(steps):
        args, watch = setup(t)
        monkeypatch.chdir(t / "work")
        monkeypatch.setattr(atomic, "fault", fail_at(n))
        r = cli(*args)
        monkeypatch.setattr(atomic, "fault", None)
        if n >= commit_point:  # a backup that cannot go is left, hidden; the change stands
            assert (r.exit_code, r.stderr) == (code, ""), (step, name)
            # a backup or a committed undo record that cannot go is left, hidden
            left = {k: v for k, v in digest(watch).items() if not k.endswith((".bak", ".undo"))}
            assert left == done
            continue
        # a write that fails is exit 2 naming its destination; a failed check exit 1
        assert r.exit_code == (1 if step in CHECKS else 2), (step, name, r.stderr)
        assert f"injected failure at {step}" in r.stderr and "Traceback" not in r.stderr
        assert r.stderr.count("\n") == 1 and not r.stderr.split(": ")[2].endswith((".tmp", ".bak"))
        assert digest(watch) == untouched, f"partial output after a failure at {step} {name}"


# --- an output that cannot be written -------------------------------------------------


@pytest.mark.parametrize("errnum", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_a_write_error_names_the_destination(tmp_path, cwd, monkeypatch, errnum):
    """Disk full, a read-only folder: one line naming the file the user asked for (never
    the temporary file the error came from), exit 2 as for `inspect -o`, error.file set."""

    def fault(step, path):  # the OS error as it comes, naming the temporary file
        if step == "write":
            raise OSError(errnum, os.strerror(errnum), str(path))

    monkeypatch.setattr(atomic, "fault", fault)
    why = f"cannot write: {os.strerror(errnum)}; nothing written"
    runs = [
        ("draft_vocab_mask.safetensors", ["--emit-mask"]),
        (str(tmp_path / "o" / NEW_SHARD), ["--emit-d2t", "--out", tmp_path / "o", *LEGACY]),
    ]
    for dest, args in runs:
        r = cli("fix", FIXTURES / "padded", "--target", SMALL, *args, "--format", "json")
        assert r.exit_code == 2
        assert r.stderr == f"dspark-ckpt: error: {dest}: {why}\n"
        assert r.json["error"] == {"kind": "io", "file": dest, "message": why}
    r = cli("inspect", FIXTURES / "padded", "--target", SMALL, "-o", "report.txt")
    assert r.exit_code == 2 and r.stderr == f"dspark-ckpt: error: report.txt: {why}\n"
    assert list(cwd.iterdir()) == [] and not (tmp_path / "o").exists()


def as_a_user(*args, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The CLI as a real process that file permissions apply to: under root, without the
    capabilities that bypass them (setpriv drops them from the bounding set)."""
    drop = []
    if os.geteuid() == 0:
        assert shutil.which("setpriv"), "as root, permission tests need setpriv (util-linux)"
        drop = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]
    return subprocess.run(
        [*drop, sys.executable, "-m", "dspark_ckpt", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.fixture
def locked(tmp_path):
    """A folder nobody may read or search (mode 0); reopened for the cleanup."""
    folder = tmp_path / "locked"
    folder.mkdir(mode=0)
    folder.chmod(0)
    yield folder
    folder.chmod(0o700)


@pytest.mark.parametrize(
    "args, dest",
    [
        (["inspect", FIXTURES / "padded", "--target", SMALL, "-o", "{L}/x.json"], "{L}/x.json"),
        (["fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--out", "{L}/o"], "{L}/o"),
        (
            ["fix", FIXTURES / "padded", "--target", SMALL, "--mask-path", "{L}/m.safetensors"],
            "{L}/m.safetensors",
        ),
    ],
)
def test_a_destination_that_cannot_be_looked_at_is_a_write_error(locked, args, dest):
    """A destination in a folder the user may not search: exit 2, one line naming it, as
    for any output that cannot be written (not a traceback, not an unreadable input)."""
    r = as_a_user(*(str(a).replace("{L}", str(locked)) for a in args), cwd=locked.parent)
    dest = dest.replace("{L}", str(locked))
    why = f"cannot write: {os.strerror(errno.EACCES)}; nothing written"
    assert (r.returncode, r.stderr) == (2, f"dspark-ckpt: error: {dest}: {why}\n")


def test_an_out_folder_that_cannot_be_listed_is_a_write_error(tmp_path):
    out = tmp_path / "o"
    out.mkdir(mode=0o300)  # may write and search, not list: stale files cannot be looked for
    out.chmod(0o300)
    r = as_a_user("fix", FIXTURES / "padded", "--target", SMALL, "--emit-d2t", "--out", out)
    out.chmod(0o700)
    why = f"cannot write: {os.strerror(errno.EACCES)}; nothing written"
    assert (r.returncode, r.stderr) == (2, f"dspark-ckpt: error: {out}: {why}\n")
    assert list(out.iterdir()) == []


def test_an_unreadable_file_to_copy_is_an_unreadable_input(tmp_path):
    """--out copies the tokenizer: one it may not read is the checkpoint's problem (exit 1,
    naming it), not the destination's; nothing is left of the copy."""
    src = copy_fixture("padded", tmp_path)
    tokenizer = src / "tokenizer.json"
    tokenizer.write_text("{}")
    tokenizer.chmod(0)
    out = tmp_path / "o"
    r = as_a_user("fix", src, "--target", SMALL, "--emit-d2t", "--out", out, *LEGACY)
    tokenizer.chmod(0o600)
    why = f"{os.strerror(errno.EACCES)}; nothing written"
    assert (r.returncode, r.stderr) == (1, f"dspark-ckpt: error: {tokenizer}: {why}\n")
    assert not out.exists()


# --- a signal mid-write rolls back ----------------------------------------------------

SAYS = {
    signal.SIGINT: "dspark-ckpt: interrupted; nothing written\n",
    signal.SIGTERM: "dspark-ckpt: terminated; nothing written\n",
}


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize(
    "mode, step, name",
    [
        ("out", "write", NEW_SHARD),  # a temp file half written, nothing in place
        ("out", "replace", "model.safetensors.index.json"),  # all but the index in place
        ("in-place", "write", NEW_SHARD),
        ("in-place", "replace", "model.safetensors.index.json"),  # config.json replaced
        ("in-place", "reinspect", "src"),  # everything in place, backups held
    ],
)
def test_a_signal_mid_write_rolls_back(tmp_path, signum, mode, step, name):
    """SIGTERM (a service manager, a CI timeout) rolls back like Ctrl-C: no temp file,
    no partial copy, replaced files restored; one line on stderr; exit 128 + the signal
    number."""
    src = tmp_path / "src"
    synth.drafter(src, vocab=128, draft=None, tensors={"lm_head.weight": synth.head(128, 8, 1)})
    where = ["--out", tmp_path / "o"] if mode == "out" else ["--in-place", "--force"]
    args = ["fix", src, "--target", SMALL, "--emit-d2t", *where, *LEGACY]
    untouched = digest(tmp_path)
    mark = tmp_path.parent / f"{tmp_path.name}.blocked"
    code, _, err = signal_at(step, name, signum, mark, *args)
    assert (code, err) == (128 + signum, SAYS[signum])
    assert digest(tmp_path) == untouched


SIGNAL_IN_ROLLBACK = """
import os, sys, runpy
from pathlib import Path
from dspark_ckpt.source import atomic
step, name, first, then = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def fault(s, path):
    if s == step and Path(path).name.startswith((name, '.' + name)):
        if first == 'error':
            raise OSError(5, 'injected failure', str(path))
        os.kill(os.getpid(), int(first))
    elif s == 'rollback':
        os.kill(os.getpid(), then)  # at every step of the rollback
atomic.fault = fault
sys.argv = ['dspark-ckpt', *sys.argv[5:]]
runpy.run_module('dspark_ckpt', run_name='__main__')
"""


@pytest.mark.slow
@pytest.mark.parametrize("then", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("first", ["error", signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize(
    "step, name",
    [
        ("write", NEW_SHARD),  # staged: temp files to remove
        ("reinspect", "src"),  # committed: replaced files to restore from their backups
    ],
)
def test_a_signal_during_a_rollback_waits_for_its_end(tmp_path, step, name, first, then):
    """A rollback (after a write error, a failed check or a signal) runs to its end
    whatever signals arrive meanwhile: nothing is left, the source is as it was; then
    the signal stops the program as usual (exit 128 + its number)."""
    src = tmp_path / "src"
    synth.drafter(src, vocab=128, draft=None, tensors={"lm_head.weight": synth.head(128, 8, 1)})
    untouched = digest(tmp_path)
    args = ["fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY]
    r = subprocess.run(
        [sys.executable, "-c", SIGNAL_IN_ROLLBACK, step, name, str(first), str(then), *args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (128 + then, SAYS[then])
    assert digest(tmp_path) == untouched


# --- no torch, a real process --------------------------------------------------------


def test_fix_runs_without_importing_torch(tmp_path):
    code = (
        "import sys, runpy\n"
        f"sys.argv = ['dspark-ckpt', 'fix', {str(FIXTURES / 'padded')!r}, '--target', "
        f"{str(SMALL)!r}, '--emit-mask', '--emit-d2t', '--profile', 'vllm-legacy']\n"
        "try:\n    runpy.run_module('dspark_ckpt', run_name='__main__')\n"
        "except SystemExit as e:\n    assert e.code == 0, e.code\n"
        "assert 'torch' not in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "d2t.safetensors").exists()
    assert (tmp_path / "draft_vocab_mask.safetensors").exists()


# --- the rule fix relies on ------------------------------------------------------------


@pytest.mark.parametrize(
    "offsets, codes",
    [(np.zeros(128, dtype=np.int64), []), (np.arange(128, dtype=np.int64), ["DSC301", "DSC313"])],
)
def test_identity_padding_rows_are_not_a_d2t_error(tmp_path, offsets, codes):
    padded_with_d2t(tmp_path / "d", offsets)
    r = cli(
        "inspect", tmp_path / "d", "--target", SMALL, "--profile", "vllm-legacy", "--format", "json"
    )
    assert [f["code"] for f in r.json["findings"] if f["code"].startswith("DSC3")] == codes


@pytest.mark.parametrize(
    "offsets, codes",
    [([0, 0, 0, 0], []), ([1, 0, 0, 0], ["DSC302"]), ([1, -1, 0, 0], ["DSC304"])],
)
def test_d2t_injective_and_sorted_rules(tmp_path, offsets, codes):
    synth.drafter(
        tmp_path / "d",
        vocab=100,
        draft=4,
        tensors={
            "lm_head.weight": synth.head(4, 8, 1),
            "d2t": synth.T("I64", (4,), np.array(offsets, dtype=np.int64)),
        },
    )
    r = cli("inspect", tmp_path / "d", "--target", SMALL, "--format", "json")
    assert [f["code"] for f in r.json["findings"]] == codes


def test_out_copies_the_rest_of_the_checkpoint_folder(tmp_path, monkeypatch):
    """A patched copy is the whole checkpoint: tokenizer and generation config come along
    (copied: editing the copy never edits the source), never a link out of the
    checkpoint, a subfolder or a stray shard."""
    src = tmp_path / "src"
    shutil.copytree(FIXTURES / "padded", src)
    (src / "tokenizer.json").write_text('{"version": "1.0"}')
    (src / "generation_config.json").write_text('{"do_sample": false}')
    (src / "notes").mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("not part of the checkpoint")
    (src / "link-out.txt").symlink_to(outside)
    (src / ".gitattributes").write_text("*.safetensors filter=lfs")
    (src / "stray.safetensors").write_bytes((src / "model.safetensors").read_bytes())
    (src / "model.safetensors.index.json").write_text(
        json.dumps(
            {"weight_map": dict.fromkeys(load_file(src / "model.safetensors"), "model.safetensors")}
        )
    )
    monkeypatch.chdir(tmp_path)
    r = cli("fix", src, "--target-vocab-size", "100", "--emit-mask", "--out", "out")
    assert r.exit_code == 0, r.stderr
    # what was left out is said, not dropped silently
    notes = cli(
        "fix",
        src,
        "--target-vocab-size",
        "100",
        "--emit-mask",
        "--force",
        "--out",
        "out2",
        "--format",
        "json",
    ).json["notes"]
    assert (
        "not copied to out2: .gitattributes (hidden), link-out.txt (a link out of the "
        "checkpoint), notes/ (a folder), stray.safetensors (weights the checkpoint does not use)"
    ) in notes
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "config.json",
        "generation_config.json",
        "model.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
    ]
    assert (out / "generation_config.json").read_text() == '{"do_sample": false}'
    assert (out / "tokenizer.json").read_text() == '{"version": "1.0"}'
    for name in ("tokenizer.json", "generation_config.json", "config.json"):
        assert not (out / name).samefile(src / name)
    (out / "generation_config.json").write_text('{"do_sample": true}')
    assert (src / "generation_config.json").read_text() == '{"do_sample": false}'
    assert (out / "model.safetensors").samefile(src / "model.safetensors")  # weights: linked


def test_out_copies_an_unchanged_index_and_links_only_shards(tmp_path, cwd):
    src = copy_fixture("sharded", tmp_path)
    r = cli("fix", src, "--target", SMALL, "--emit-mask", "--out", tmp_path / "o")
    assert r.exit_code == 0, r.stderr
    for p in src.iterdir():
        linked = (tmp_path / "o" / p.name).samefile(p)
        assert linked == p.name.endswith(".safetensors"), p.name


def test_a_hub_cache_snapshot_path_is_refused_with_the_repo_id_to_use(tmp_path, cwd):
    """A snapshot's files link into ../../blobs: refused as a local folder (a link out of
    the checkpoint), with the way that works: the repo id, offline from this cache."""
    repo = tmp_path / "hub" / "models--acme--drafter"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (repo / "blobs").mkdir()
    for f in (FIXTURES / "padded").iterdir():
        shutil.copy(f, repo / "blobs" / f.name)
        (snap / f.name).symlink_to(Path("../../blobs") / f.name)
    r = cli("fix", snap, "--target", SMALL, "--emit-mask", "--out", tmp_path / "o")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert "symlink leading out of the checkpoint" in r.stderr
    assert (
        f"pass the repo id acme/drafter instead (HF_HUB_OFFLINE=1 HF_HUB_CACHE={tmp_path / 'hub'} "
        "reads it from this cache offline)"
    ) in r.stderr
    assert not (tmp_path / "o").exists() and list(cwd.iterdir()) == []


def test_out_writes_draft_vocab_size_null_where_sglang_reads_its_absence(tmp_path, monkeypatch):
    """An EAGLE-3 equal drafter with no lm_head and no draft_vocab_size key. Writing
    draft_vocab_size 100 would make SGLang create a head nothing loads (DSC601), and SGLang
    fails on a missing key (DSC681, AttributeError): --out writes it as null, which SGLang
    reads as 'the target's head' (vLLM and TensorRT-LLM as vocab_size), and says why."""
    src = synth.drafter(
        tmp_path / "eagle",
        vocab=100,
        draft=None,
        config=EAGLE3_CONFIG,
    )
    monkeypatch.chdir(tmp_path)
    r = cli(
        "fix",
        src,
        "--target",
        FIXTURES / "targets/small",
        "--emit-mask",
        "--out",
        "out",
        "--format",
        "json",
    )
    assert r.exit_code == 0, r.stderr
    written = json.loads((tmp_path / "out/config.json").read_text())
    assert "draft_vocab_size" in written and written["draft_vocab_size"] is None
    assert any("written as null: sglang-eagle3" in n for n in r.json["notes"])
    after = cli(
        "inspect",
        "out",
        "--target",
        FIXTURES / "targets/small",
        "--profile",
        "all",
        "--format",
        "json",
    ).json
    assert after["verdicts"]["sglang-eagle3"] is True
    before = cli(
        "inspect", src, "--target", FIXTURES / "targets/small", "--profile", "sglang-eagle3",
        "--format", "json",
    ).json  # fmt: skip
    assert before["verdicts"]["sglang-eagle3"] is False
    assert "DSC681" in {f["code"] for f in before["findings"]}


@pytest.mark.parametrize(
    "args",
    [
        ["--emit-mask", "--mask-path", "src/mask.safetensors"],
        ["--emit-d2t", "--d2t-path", "src/d2t.safetensors"],
        ["--emit-mask", "--mask-path", "out/mask.safetensors", "--out", "out"],
    ],
)
def test_side_files_are_refused_inside_a_checkpoint_folder(tmp_path, monkeypatch, args):
    """Without an index vLLM loads every *.safetensors of the folder: a side file there
    would become part of the checkpoint."""
    shutil.copytree(FIXTURES / "padded", tmp_path / "src")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    r = cli("fix", "src", "--target-vocab-size", "100", *args)
    assert r.exit_code == 2, r.stdout
    assert "inside the checkpoint folder" in r.stderr and r.stderr.count("\n") == 1
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("emit", [["--emit-mask"], ["--emit-d2t"], ["--emit-d2t", "--out", "o"]])
def test_nothing_is_built_on_a_broken_d2t(tmp_path, monkeypatch, emit):
    """A padded drafter whose own d2t has the arange bug: no mask built from that map,
    no identity written beside it, in any mode; the one-line error says why."""
    d = padded_with_d2t(tmp_path / "arange", np.arange(128))
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    r = cli("fix", d, "--target-vocab-size", "100", *emit, "--profile", "vllm-legacy")
    assert r.exit_code == 1
    assert "DSC301" in r.stderr and BROKEN_MAP in r.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_side_file_in_a_missing_folder_is_a_usage_error(cwd):
    r = cli("fix", FIXTURES / "padded", "--target-vocab-size", "100", "--mask-path", "nodir/m.st")
    assert r.exit_code == 2
    assert r.stderr == "dspark-ckpt: error: nodir/m.st: no such directory nodir\n"
    assert list(cwd.iterdir()) == []


# --- one rule for "can d2t be derived from t2d?" (facts.gather.t2d_problem) --------------


@pytest.mark.parametrize(
    ("dtype", "shape", "selected", "problem"),
    [
        ("U8", (100,), 32, "t2d is U8 [100]; expected BOOL [100]: no d2t can be derived from it"),
        ("BOOL", (99,), 32, "t2d is BOOL [99]; expected BOOL [100]: no d2t can be derived from it"),
        ("BOOL", (100,), 35, "t2d selects 35 target ids; Vd is 32: no d2t can be derived from it"),
    ],
)
def test_a_t2d_no_d2t_can_be_derived_from_says_so_alike(
    tmp_path, cwd, dtype, shape, selected, problem
):
    """inspect's DSC303, DSC103's hint and fix's refusal are one rule, with one message."""
    t2d = np.zeros(shape, dtype=bool)
    t2d.reshape(-1)[:selected] = True
    pruned_32(tmp_path / "p", t2d=synth.T(dtype, shape, t2d))
    found = cli("inspect", tmp_path / "p", "--target", SMALL, "--format", "json").json
    by_code = {f["code"]: f for f in found["findings"]}
    assert by_code["DSC303"]["message"] == problem
    assert problem in by_code["DSC103"]["hint"] and "refuses" in by_code["DSC103"]["hint"]
    for emit in ("--emit-mask", "--emit-d2t"):
        r = cli("fix", tmp_path / "p", "--target", SMALL, emit)
        assert r.exit_code == 1
        assert r.stderr == f"dspark-ckpt: error: {by_code['DSC303']['file']}: DSC303: {problem}\n"
    assert list(cwd.iterdir()) == []


@pytest.mark.parametrize("emit", [["--emit-mask"], ["--emit-d2t"], ["--emit-d2t", "--out", "o"]])
def test_a_valid_d2t_beside_a_t2d_of_another_layout_is_used(tmp_path, cwd, emit):
    """A t2d that is not BOOL [Vt] (vLLM skips t2d) does not contradict the d2t: inspect
    warns (DSC303), and fix builds on the d2t; only a t2d whose values disagree is refused."""
    d2t, t2d = synth.sorted_mapping(synth.VT, 32, seed=0)
    src = pruned_32(tmp_path / "p", d2t=synth.T("I64", (32,), d2t), t2d=synth.T("U8", (100,), t2d))
    found = cli("inspect", src, "--target", SMALL, "--format", "json").json["findings"]
    assert [(f["code"], f["message"]) for f in found] == [
        ("DSC303", "t2d is U8 [100]; expected BOOL [100]")
    ]
    code, out = fix_json(src, "--target", SMALL, *emit)
    assert code == 0 and out["ok"] is True
    if "--emit-d2t" in emit:
        assert out["d2t_origin"] == "the checkpoint's own"
    if "--out" in emit:
        assert any("already holds this d2t" in n for n in out["notes"])
        assert not (cwd / "o" / NEW_SHARD).exists()
