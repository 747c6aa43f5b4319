"""``verify``: real draft logits from real safetensors heads, through the real CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
import synth
import torch
from conftest import FIXTURES, ROOT, cli, cli_subprocess
from synth import VT, T

from dspark_ckpt.commands.draft_map import BROKEN_MAP
from dspark_ckpt.commands.verify import verify_checkpoint
from dspark_ckpt.facts.target import load_target
from dspark_ckpt.facts.vocab import BIAS_TENSOR, MASK_TENSOR, sampleable_mask

PADDED, SMALL = FIXTURES / "padded", FIXTURES / "targets/small"
MODES = ("greedy", "topk", "gumbel")
FAST = ("--tokens", "48", "--device", "cpu", "--format", "json")


def verify(*args):
    return cli("verify", *args, *FAST)


def test_padded_unmasked_samples_illegal_ids_and_the_mask_removes_them():
    r = verify(PADDED, "--target", SMALL)
    assert r.exit_code == 0, r.stderr
    out = r.json
    assert out["schema"] == "dspark-ckpt/verify/v1"
    assert out["ok"] is True
    assert (out["device"], out["dtype"], out["classification"]) == ("cpu", "float32", "padded")
    assert out["mask"] == {
        "source": "computed",
        "masked_rows": 28,
        "hidden_tokens": 0,
        "leaked_rows": 0,
    }
    assert out["random_tokens"] == 48 and out["adversarial_tokens"] == 28
    assert out["tokens"] == 76 and out["markov"] is True and out["topk"] == 8
    for mode in MODES:
        m = out["modes"][mode]
        assert m["unmasked_illegal"] > 0, mode
        assert m["masked_illegal"] == 0, mode
        # Et 128 == Vd: illegal, but never out of bounds
        assert m["unmasked_out_of_bounds"] == 0
    assert out["modes"]["topk"]["sampled"] == 76 * 8
    assert set(out["timings_s"]) >= {"load", "logits", "sampling"}
    assert out["peak_memory_bytes"] > 0
    assert "loading lm_head.weight" in r.stderr  # progress on stderr, JSON alone on stdout


def test_out_of_bounds_counted_against_et_and_null_when_et_unknown():
    tight = verify(PADDED, "--target", FIXTURES / "targets/tight").json  # Et 112 < Vd 128
    assert all(tight["modes"][m]["unmasked_out_of_bounds"] > 0 for m in MODES)
    assert all(tight["modes"][m]["masked_out_of_bounds"] == 0 for m in MODES)
    bare = verify(PADDED, "--target-vocab-size", "100").json
    assert all(bare["modes"][m]["unmasked_out_of_bounds"] is None for m in MODES)
    assert bare["modes"]["greedy"]["unmasked_illegal"] > 0


def test_table_output_and_seed_reproducibility():
    r = cli("verify", PADDED, "--target", SMALL, "--tokens", "16", "--device", "cpu")
    assert r.exit_code == 0
    assert "PASS" in r.stdout and "illegal (no mask)" in r.stdout and "greedy" in r.stdout
    a, b = verify(PADDED, "--target", SMALL).json, verify(PADDED, "--target", SMALL).json
    assert a["modes"] == b["modes"]
    c = cli("verify", PADDED, "--target", SMALL, *FAST, "--seed", "5").json
    assert c["seed"] == 5 and c["modes"]["greedy"]["masked_illegal"] == 0


def test_pruned_drafter_maps_through_d2t():
    out = verify(FIXTURES / "pruned-eagle3", "--target", SMALL).json
    assert out["ok"] and out["d2t"] is True and out["classification"] == "pruned"
    assert out["illegal_rows"] == 0
    assert all(out["modes"][m]["unmasked_illegal"] == 0 for m in MODES)


def arange_d2t_drafter(root):
    """Vd 64 < Vt 100 with the 'arange identity' bug: draft id i -> 2i, so ids >= 50 leave
    the vocab (DSC301). Only d2t makes them illegal: through the identity all 64 are legal."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((64, 8), dtype=np.float32)
    w[50:] *= 6.0
    return synth.drafter(
        root,
        vocab=VT,
        draft=64,
        tensors={"lm_head.weight": T("F32", (64, 8), w), "d2t": T("I64", (64,), np.arange(64))},
    )


def folded_d2t_drafter(root):
    """A padded drafter whose d2t folds the padded rows onto ids 0..27: d2t[100:] = -100,
    in range but not injective (DSC302)."""
    d2t = np.zeros(128, dtype=np.int64)
    d2t[VT:] = -VT
    return synth.drafter(
        root,
        vocab=128,
        draft=128,
        tensors={"lm_head.weight": synth.head(128, 8, 0), "d2t": T("I64", (128,), d2t)},
    )


@pytest.mark.parametrize(
    ("build", "code"), [(arange_d2t_drafter, "DSC301"), (folded_d2t_drafter, "DSC302")]
)
def test_a_broken_d2t_is_refused_as_fix_refuses_it(tmp_path, build, code):
    """fix --emit-mask builds no mask on a broken d2t; verify, which claims to apply what
    fix writes, checks none either: exit 1, one line naming the d2t's file."""
    d = build(tmp_path / "d")
    fixed = cli("fix", d, "--target", SMALL, "--mask-path", tmp_path / "m.safetensors")
    assert fixed.exit_code == 1 and code in fixed.stderr
    assert not (tmp_path / "m.safetensors").exists()
    r = verify(d, "--target", SMALL)
    assert r.exit_code == 1, r.stderr
    assert "Traceback" not in r.stderr and "loading" not in r.stderr
    [err] = [line for line in r.stderr.splitlines() if "error" in line]
    assert str(d / "model.safetensors") in err and code in err, err
    assert BROKEN_MAP in err and fixed.stderr.endswith(err.split(": error: ", 1)[1] + "\n")
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["error"]["file"] == str(d / "model.safetensors")
    table = cli("verify", d, "--target", SMALL, "--tokens", "8", "--device", "cpu")
    assert table.exit_code == 1 and table.stdout == ""


def test_a_legal_d2t_is_applied_through_the_mapping(tmp_path):
    """A padded drafter with a legal non-trivial d2t (real rows reversed, padding kept):
    ids go through d2t, and only the padded rows are illegal."""
    d2t = np.zeros(128, dtype=np.int64)
    d2t[:VT] = VT - 1 - 2 * np.arange(VT)  # draft id i -> target id 99 - i
    d = synth.drafter(
        tmp_path / "reversed",
        vocab=128,
        draft=128,
        tensors={
            "lm_head.weight": synth.head(128, 8, 0, padded_from=VT),
            "d2t": T("I64", (128,), d2t),
        },
    )
    out = verify(d, "--target", SMALL).json
    assert out["ok"] is True and out["d2t"] is True
    assert out["illegal_rows"] == 28 and out["mask"]["masked_rows"] == 28
    for mode in MODES:
        assert out["modes"][mode]["unmasked_illegal"] > 0
        assert out["modes"][mode]["masked_illegal"] == 0
    tight = verify(d, "--target", FIXTURES / "targets/tight").json  # Et 112
    assert tight["modes"]["greedy"]["unmasked_out_of_bounds"] > 0


def test_equal_drafter_samples_from_the_targets_head():
    r = verify(FIXTURES / "equal", "--target", SMALL)
    assert r.exit_code == 0, r.stderr
    out = r.json
    assert out["head"]["source"] == "target"
    assert out["head"]["shape"] == [100, 8]  # the target's 128 physical rows cut to Vt
    assert out["markov"] is True and out["ok"] is True
    assert all(out["modes"][m]["unmasked_illegal"] == 0 for m in MODES)
    assert "target's lm_head.weight" in out["notes"][0]


def test_equal_drafter_without_target_weights_is_a_usage_error():
    r = verify(FIXTURES / "equal", "--target-vocab-size", "100")
    assert r.exit_code == 2
    assert r.json["error"]["kind"] == "usage"  # JSON asked for (FAST): the error object
    assert "give --target with the target's weights" in r.stderr


def markov_only_drafter(root):
    """Padded rows that only the Markov bias reaches: tiny lm_head rows, huge markov_w2 rows."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((128, 8), dtype=np.float32) * 2.0
    w[VT:] *= 0.001
    w1 = rng.standard_normal((128, 4), dtype=np.float32)
    w2 = rng.standard_normal((128, 4), dtype=np.float32) * 0.01
    w2[VT:] = rng.standard_normal((28, 4), dtype=np.float32) * 50.0
    return synth.drafter(
        root,
        vocab=128,
        draft=128,
        tensors={
            "lm_head.weight": T("F32", (128, 8), w),
            "markov_head.markov_w1.weight": T("F32", (128, 4), w1),
            "markov_head.markov_w2.weight": T("F32", (128, 4), w2),
        },
        config={"markov_rank": 4, "dspark_draft_topk": 4},
    )


def test_markov_bias_on_and_off(tmp_path):
    d = markov_only_drafter(tmp_path / "markov")
    on = verify(d, "--target", SMALL).json
    off = verify(d, "--target", SMALL, "--no-markov").json
    assert on["markov"] is True and off["markov"] is False
    assert on["topk"] == 4  # dspark_draft_topk from the config
    for mode in MODES:
        assert on["modes"][mode]["unmasked_illegal"] > 0, mode
        assert on["modes"][mode]["masked_illegal"] == 0, mode
        assert off["modes"][mode]["unmasked_illegal"] == 0, mode


def write_mask(path, name, dtype, values):
    return synth.write_safetensors(path, {name: T(dtype, (len(values),), values)})


def test_mask_file_bool_and_bias_are_applied(tmp_path):
    good = sampleable_mask(128, VT)
    as_mask = write_mask(tmp_path / "mask.safetensors", MASK_TENSOR, "BOOL", good)
    bias = np.where(good, 0.0, -np.inf).astype(np.float32)
    as_bias = write_mask(tmp_path / "bias.safetensors", BIAS_TENSOR, "F32", bias)
    for path in (as_mask, as_bias):
        r = verify(PADDED, "--target", SMALL, "--mask", path)
        assert r.exit_code == 0, r.stderr
        assert r.json["mask"] == {
            "source": str(path),
            "masked_rows": 28,
            "hidden_tokens": 0,
            "leaked_rows": 0,
        }


def test_a_mask_that_lets_padded_rows_through_fails(tmp_path):
    leaky = write_mask(tmp_path / "leaky.safetensors", MASK_TENSOR, "BOOL", np.ones(128, bool))
    r = verify(PADDED, "--target", SMALL, "--mask", leaky)
    assert r.exit_code == 1
    out = r.json
    assert out["ok"] is False and out["mask"]["masked_rows"] == 0
    assert all(out["modes"][m]["masked_illegal"] > 0 for m in MODES)
    table = cli("verify", PADDED, "--target", SMALL, "--mask", leaky, "--tokens", "8")
    assert table.exit_code == 1 and "FAIL" in table.stdout


@pytest.mark.parametrize(
    ("name", "dtype", "values", "message"),
    [
        (MASK_TENSOR, "BOOL", np.ones(127, bool), "expected BOOL [128]"),
        (MASK_TENSOR, "U8", np.ones(128, np.uint8), "draft_vocab_mask is U8 [128]"),
        (BIAS_TENSOR, "F32", np.zeros(100, np.float32), "expected F32 [128]"),
        (BIAS_TENSOR, "F32", np.full(128, -1.0, np.float32), "values other than 0 and -inf"),
        ("something_else", "BOOL", np.ones(128, bool), "holds no 'draft_vocab_mask'"),
    ],
)
def test_wrong_mask_file_is_rejected_in_one_line(tmp_path, name, dtype, values, message):
    path = write_mask(tmp_path / "bad.safetensors", name, dtype, values)
    r = verify(PADDED, "--target", SMALL, "--mask", path)
    assert r.exit_code == 1
    assert json.loads(r.stdout)["error"]["file"] == str(path)  # json mode: one object still
    err = [line for line in r.stderr.splitlines() if "error" in line]
    assert len(err) == 1 and str(path) in err[0] and message in err[0], r.stderr
    assert "Traceback" not in r.stderr


def test_unreadable_inputs_exit_cleanly(tmp_path):
    assert verify(tmp_path / "nothing", "--target", SMALL).exit_code == 2
    assert verify(PADDED, "--target", SMALL, "--mask", tmp_path / "none").exit_code == 2
    assert verify(PADDED).exit_code == 2  # no target
    assert cli("verify", PADDED, "--target", SMALL, "--tokens", "0").exit_code == 2
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text((PADDED / "config.json").read_text())
    (broken / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}      ")
    r = verify(broken, "--target", SMALL)
    assert r.exit_code == 1 and "model.safetensors" in r.stderr
    out = json.loads(r.stdout)
    assert (out["schema"], out["ok"]) == ("dspark-ckpt/verify/v1", False)
    assert out["error"]["file"] == str(broken / "model.safetensors")
    assert out["error"]["message"].startswith("header is not valid JSON")
    padded_no_head = synth.drafter(tmp_path / "nohead", vocab=128, draft=128)
    r = verify(padded_no_head, "--target", SMALL)
    assert r.exit_code == 1 and "no lm_head.weight and Vd 128 != Vt 100" in r.stderr


def test_chunking_changes_memory_not_results():
    target = load_target(SMALL)
    whole = verify_checkpoint(str(PADDED), target, device="cpu", tokens=40, chunks=(4096, 4096))
    tiny = verify_checkpoint(str(PADDED), target, device="cpu", tokens=40, chunks=(7, 5))
    for mode in ("greedy", "topk"):  # Gumbel noise is drawn per block
        assert vars(whole.modes[mode]) == vars(tiny.modes[mode])
    assert tiny.modes["gumbel"].masked_illegal == 0
    assert tiny.modes["gumbel"].unmasked_illegal > 0


def test_device_choice():
    auto = cli("verify", PADDED, "--target", SMALL, "--tokens", "8", "--format", "json")
    cuda = cli("verify", PADDED, "--target", SMALL, "--tokens", "8", "--device", "cuda")
    if torch.cuda.is_available():  # the CUDA path itself is tested below
        assert auto.json["device"] == "cuda" and cuda.exit_code == 0
    else:
        assert auto.json["device"] == "cpu"
        assert cuda.exit_code == 2 and "no CUDA device" in cuda.stderr and cuda.stdout == ""


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_path_matches_cpu_verdicts():
    cpu = verify(PADDED, "--target", FIXTURES / "targets/tight").json
    r = cli(
        "verify",
        PADDED,
        "--target",
        FIXTURES / "targets/tight",
        "--device",
        "cuda",
        "--tokens",
        "48",
        "--format",
        "json",
    )
    assert r.exit_code == 0, r.stderr
    gpu = r.json
    assert gpu["device"] == "cuda" and gpu["peak_memory_kind"] == "cuda_allocated"
    for mode in MODES:
        assert gpu["modes"][mode]["masked_illegal"] == 0
        assert gpu["modes"][mode]["unmasked_illegal"] > 0
        assert gpu["modes"][mode]["unmasked_out_of_bounds"] > 0
    # the same streaming code as on CPU; only the random streams differ by device
    assert {m: gpu["modes"][m]["sampled"] for m in MODES} == {
        m: cpu["modes"][m]["sampled"] for m in MODES
    }


def test_without_torch_verify_says_how_to_install_and_inspect_still_works(tmp_path):
    fake = tmp_path / "site" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named torch')\n")
    env = {"PYTHONPATH": f"{fake.parent}:{ROOT}"}
    r = cli_subprocess("verify", PADDED, "--target", SMALL, env=env)
    assert r.returncode == 2
    # an install line that works from this checkout (the package is not on PyPI)
    assert f"pip install -e '{ROOT}[verify]'" in r.stderr and "Traceback" not in r.stderr
    assert "--index-url https://download.pytorch.org/whl/cpu" in r.stderr
    assert r.stderr.count("\n") == 1
    assert r.stdout == ""
    ok = cli_subprocess("inspect", PADDED, "--target", SMALL, env=env)
    assert ok.returncode == 0, ok.stderr


# --- dtypes verify cannot compute with, d2t as inspect reads it, what a run proves ------


def head_as(root, dtype, tensor="lm_head.weight"):
    """The padded fixture with one head tensor re-stored in ``dtype`` (a torch dtype name)."""
    from safetensors.torch import load_file, save_file

    tensors = load_file(PADDED / "model.safetensors")
    t = tensors[tensor]
    if dtype == "float4_e2m1fn_x2":  # packed: two values per byte, as FP4 checkpoints store it
        t = torch.zeros(t.shape[0], t.shape[1] // 2, dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    else:
        t = t.to(getattr(torch, dtype))
    tensors[tensor] = t
    root.mkdir(parents=True)
    (root / "config.json").write_text((PADDED / "config.json").read_text())
    save_file(tensors, root / "model.safetensors", metadata={"format": "pt"})
    return root


@pytest.mark.parametrize("tensor", ["lm_head.weight", "markov_head.markov_w2.weight"])
def test_an_f4_head_is_refused_in_one_line_naming_file_and_tensor(tmp_path, tensor):
    d = head_as(tmp_path / "f4", "float4_e2m1fn_x2", tensor)
    r = verify(d, "--target", SMALL)
    assert r.exit_code == 1, r.stderr
    assert json.loads(r.stdout)["ok"] is False  # json mode: the one error object
    [err] = [line for line in r.stderr.splitlines() if "error" in line]
    assert str(d / "model.safetensors") in err and f"{tensor} is F4" in err, err
    assert "verify computes with F16, BF16, F32, F64, F8_E4M3" in err
    assert "loading" not in r.stderr  # refused before any tensor is loaded
    off = verify(d, "--target", SMALL, "--no-markov")  # an unused Markov head is not loaded
    assert off.exit_code == (1 if tensor == "lm_head.weight" else 0), off.stderr


def test_torch_errors_while_loading_name_the_file_and_tensor(tmp_path):
    """The second line of defence behind the allow-list: a tensor torch cannot convert."""
    from dspark_ckpt.commands.verify import load_tensor
    from dspark_ckpt.errors import CheckpointError
    from dspark_ckpt.source.safetensors import read_header

    path = head_as(tmp_path / "f4", "float4_e2m1fn_x2") / "model.safetensors"
    info = read_header(path).tensors["lm_head.weight"]
    with pytest.raises(CheckpointError) as e:
        load_tensor(info, "cpu")
    assert e.value.path == str(path)
    assert "cannot load 'lm_head.weight'" in e.value.message and "\n" not in e.value.message


def test_a_head_truncated_before_it_is_read_is_one_error_naming_the_file(tmp_path):
    """The head is read straight into an uninitialised tensor: a file cut after its header
    was read (by verify, before loading) is a ``CheckpointError`` naming the file and the
    tensor, never a tensor holding the memory's old bytes, never a signal."""
    from dspark_ckpt.commands.verify import load_tensor
    from dspark_ckpt.errors import CheckpointError
    from dspark_ckpt.source.safetensors import read_header

    values = np.arange(VT * 16, dtype=np.float32).reshape(VT, 16)
    root = synth.drafter(
        tmp_path / "d", vocab=VT, draft=VT, hidden=16,
        tensors={"lm_head.weight": T("F32", (VT, 16), values)},
    )  # fmt: skip
    path = root / "model.safetensors"
    info = read_header(path).tensors["lm_head.weight"]
    assert torch.equal(load_tensor(info, "cpu"), torch.from_numpy(values))  # every byte read
    with open(path, "r+b") as f:
        f.truncate(info.start + info.nbytes // 2)
    with pytest.raises(CheckpointError) as e:
        load_tensor(info, "cpu")
    assert e.value.path == str(path)
    assert "'lm_head.weight': file ended while reading" in e.value.message


@pytest.mark.parametrize(
    ("dtype", "stored"),
    [("float8_e4m3fn", "F8_E4M3"), ("float8_e5m2", "F8_E5M2"), ("float8_e8m0fnu", "F8_E8M0")],
)
def test_f8_heads_are_computed_in_float32(tmp_path, dtype, stored):
    from dspark_ckpt.commands.verify import computable_dtypes

    assert stored in computable_dtypes()  # this torch converts it
    r = verify(head_as(tmp_path / stored, dtype), "--target", SMALL)
    assert r.exit_code == 0, r.stderr
    out = r.json
    assert (out["dtype"], out["compute_dtype"], out["ok"]) == (dtype, "float32", True)
    assert all(out["modes"][m]["masked_illegal"] == 0 for m in MODES)


@pytest.mark.parametrize(
    ("d2t", "message"),
    [
        (T("F32", (64,), np.zeros(64)), "d2t is F32 [64]; expected I64 [64]"),
        (T("I64", (63,), np.zeros(63)), "d2t is I64 [63]; expected I64 [64]"),
    ],
)
def test_verify_refuses_the_d2t_inspect_reports_as_dsc206(tmp_path, d2t, message):
    head = T("F32", (64, 8), np.ones((64, 8), np.float32))
    d = synth.drafter(
        tmp_path / "d", vocab=VT, draft=64, tensors={"lm_head.weight": head, "d2t": d2t}
    )
    r = verify(d, "--target", SMALL)
    assert r.exit_code == 1 and json.loads(r.stdout)["error"]["file"] == str(
        d / "model.safetensors"
    )
    assert message in r.stderr and str(d / "model.safetensors") in r.stderr
    inspected = cli("inspect", d, "--target", SMALL, "--format", "json").json
    assert "DSC206" in [f["code"] for f in inspected["findings"]]


def test_table_says_what_the_run_proves(tmp_path):
    computed = cli("verify", PADDED, "--target", SMALL, "--tokens", "8", "--device", "cpu")
    assert computed.exit_code == 0
    text = " ".join(computed.stdout.split())
    assert "semantics hold on real logits" in text and "the risk the mask removes" in text
    assert "give --mask FILE" in text
    mask = write_mask(tmp_path / "m.safetensors", MASK_TENSOR, "BOOL", sampleable_mask(128, VT))
    shipped = cli("verify", PADDED, "--target", SMALL, "--tokens", "8", "--mask", mask)
    assert shipped.exit_code == 0
    assert "checks that the shipped file removes every id" in " ".join(shipped.stdout.split())


@pytest.mark.parametrize("keep", [0, 5])
def test_a_mask_that_hides_real_tokens_fails(tmp_path, keep):
    """An all-False mask (or one from another checkpoint) lets no illegal id through, but
    it hides real tokens: verify fails it and says how many."""
    values = np.zeros(128, dtype=bool)
    values[:keep] = True
    path = write_mask(tmp_path / "over.safetensors", "draft_vocab_mask", "BOOL", values)
    r = verify(PADDED, "--target", SMALL, "--mask", path)
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["ok"] is False and out["mask"]["hidden_tokens"] == 100 - keep
    assert all(m["masked_illegal"] == 0 for m in out["modes"].values())


# --- NaN and +inf logits, masks judged by their values -----------------------------------


def test_running_argmax_and_topk_agree_with_torch_on_the_full_row():
    """The chunked running best picks what torch.argmax / torch.topk pick on the unchunked
    logits: NaN counts as the largest value, then +inf; a NaN in a chunk never hides it."""
    from dspark_ckpt.commands.verify import _Running

    gen = torch.Generator().manual_seed(3)
    n, v, k = 40, 50, 4
    logits = torch.randn(n, v, generator=gen)
    nan, inf = float("nan"), float("inf")
    logits[0, 45] = nan  # a NaN in the last chunk, after larger numbers
    logits[1, 3], logits[1, 30] = inf, nan  # NaN beats an earlier +inf
    logits[2, 10], logits[2, 40] = nan, nan  # the first NaN wins
    logits[3, 20], logits[3, 22] = inf, inf  # the first +inf wins
    logits[4, 7], logits[4, 49] = nan, inf
    logits[5, :] = nan
    logits[6, 12:20] = nan  # more NaNs than k
    logits[7, 48] = -inf
    noise = torch.randn(n, v, generator=gen)
    for chunk in (7, 8192):
        run = _Running(n, k, "cpu")
        for start in range(0, v, chunk):
            cols = slice(start, start + chunk)
            run.update(slice(0, n), logits[:, cols], noise[:, cols], start)
        assert torch.equal(run.greedy_idx, logits.argmax(dim=1)), chunk
        assert torch.equal(run.gumbel_idx, (logits + noise).argmax(dim=1)), chunk
        top = logits.topk(k, dim=1)
        torch.testing.assert_close(run.topk_val, top.values, equal_nan=True)
        # the same values at the chosen ids; among ties torch.topk's order is unspecified
        torch.testing.assert_close(logits.gather(1, run.topk_idx), top.values, equal_nan=True)
        assert all(len(set(row.tolist())) == k for row in run.topk_idx)
        plain = [r for r in range(n) if torch.isfinite(top.values[r]).all() and r > 7]
        for r in plain:
            assert set(run.topk_idx[r].tolist()) == set(top.indices[r].tolist())
        assert 45 in run.samples()["topk"].tolist()  # a NaN candidate is counted


def nan_padded_drafter(root):
    """The reviewer's repro: a padded drafter whose padded lm_head rows are NaN."""
    w = np.random.default_rng(0).standard_normal((128, 8), dtype=np.float32)
    w[VT:] = np.nan
    return synth.drafter(
        root, vocab=128, draft=128, tensors={"lm_head.weight": T("F32", (128, 8), w)}
    )


def test_nan_padded_rows_are_sampled_unmasked_and_a_leaky_mask_fails(tmp_path):
    d = nan_padded_drafter(tmp_path / "nanpad")
    computed = verify(d, "--target", SMALL)
    assert computed.exit_code == 0, computed.stderr
    for mode in MODES:  # torch picks a NaN row: so must the count
        assert computed.json["modes"][mode]["unmasked_illegal"] > 0, mode
        assert computed.json["modes"][mode]["masked_illegal"] == 0, mode
    leaky = write_mask(tmp_path / "leaky.safetensors", MASK_TENSOR, "BOOL", np.ones(128, bool))
    r = verify(d, "--target", SMALL, "--mask", leaky)
    assert r.exit_code == 1
    out = r.json
    assert out["ok"] is False and out["illegal_rows"] == 28
    assert out["mask"]["masked_rows"] == 0 and out["mask"]["leaked_rows"] == 28
    assert all(out["modes"][m]["masked_illegal"] > 0 for m in MODES)
    # the verdict line says it in words: counts per sampling mode, no Python dict
    line = cli("verify", d, "--target", SMALL, "--mask", leaky, *FAST[:4], "-q").stdout
    counts = ", ".join(f"{out['modes'][m]['masked_illegal']} {m}" for m in MODES)
    assert line.startswith("FAIL: ") and f"sampled ids left [0, Vt) ({counts})" in line
    assert "{" not in line and "'" not in line


def test_a_bias_file_is_added_as_runtimes_add_it(tmp_path):
    """NaN + (-inf) is NaN, which argmax picks: on a head with NaN padded rows a correct
    bias file still leaks, while the bool mask (masked_fill) does not. Both runs note the
    non-finite rows; a finite head gets no such note."""
    d = nan_padded_drafter(tmp_path / "nanpad")
    good = sampleable_mask(128, VT)
    as_mask = write_mask(tmp_path / "mask.safetensors", MASK_TENSOR, "BOOL", good)
    bias = np.where(good, 0.0, -np.inf).astype(np.float32)
    as_bias = write_mask(tmp_path / "bias.safetensors", BIAS_TENSOR, "F32", bias)
    masked = verify(d, "--target", SMALL, "--mask", as_mask)
    assert masked.exit_code == 0 and masked.json["mask"]["leaked_rows"] == 0
    added = verify(d, "--target", SMALL, "--mask", as_bias)
    assert added.exit_code == 1 and added.json["mask"]["leaked_rows"] == 0
    assert all(added.json["modes"][m]["masked_illegal"] > 0 for m in MODES)
    for r in (masked, added):
        assert any(n.startswith("28 row(s) of the head hold NaN or inf") for n in r.json["notes"])
    clean = verify(PADDED, "--target", SMALL, "--mask", as_bias)
    assert clean.exit_code == 0 and not any("NaN" in n for n in clean.json["notes"])


def test_large_finite_weights_are_not_called_non_finite(tmp_path):
    """An F16 row of 64 x 2000.0 sums past F16's max: finite all the same, no note."""
    w = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float16)
    w[0] = 2000.0
    d = synth.drafter(
        tmp_path / "big",
        vocab=128,
        draft=128,
        hidden=64,
        tensors={"lm_head.weight": T("F16", (128, 64), w)},
    )
    r = verify(d, "--target", SMALL)
    assert r.exit_code == 0, r.stderr
    assert not any("NaN or inf" in n for n in r.json["notes"])


def unreachable_padding_drafter(root):
    """Padded rows that no sampler reaches: the Markov bias pushes every real row up by
    ~1000 and every padded row down by as much, far beyond any Gumbel noise."""
    rng = np.random.default_rng(2)
    w1 = np.zeros((128, 4), np.float32)
    w1[:, 0] = 1.0
    w2 = np.zeros((128, 4), np.float32)
    w2[:VT, 0], w2[VT:, 0] = 1000.0, -1000.0
    return synth.drafter(
        root,
        vocab=128,
        draft=128,
        tensors={
            "lm_head.weight": T("F32", (128, 8), rng.standard_normal((128, 8), np.float32)),
            "markov_head.markov_w1.weight": T("F32", (128, 4), w1),
            "markov_head.markov_w2.weight": T("F32", (128, 4), w2),
        },
        config={"markov_rank": 4},
    )


@pytest.mark.parametrize("leak", [1, 28])
def test_a_mask_that_leaves_illegal_rows_sampleable_fails_from_its_values(tmp_path, leak):
    """No sampled id leaves the vocab, but the mask would let one: FAIL all the same."""
    d = unreachable_padding_drafter(tmp_path / "d")
    values = sampleable_mask(128, VT)
    values[VT : VT + leak] = True
    path = write_mask(tmp_path / "leaky.safetensors", MASK_TENSOR, "BOOL", values)
    r = verify(d, "--target", SMALL, "--mask", path)
    assert r.exit_code == 1, r.stderr
    out = r.json
    assert all(out["modes"][m]["unmasked_illegal"] == 0 for m in MODES)
    assert all(out["modes"][m]["masked_illegal"] == 0 for m in MODES)
    assert out["ok"] is False and out["mask"]["leaked_rows"] == leak
    table = cli("verify", d, "--target", SMALL, "--mask", path, "--tokens", "8")
    assert table.exit_code == 1
    text = " ".join(table.stdout.split())
    assert f"it lets {leak} illegal row(s) through" in text
    assert f"FAIL: the mask lets {leak} row(s) outside [0, Vt) be sampled" in text
    # the mask fix writes passes the same drafter
    assert verify(d, "--target", SMALL).exit_code == 0


# --- bounded options, bounded memory -------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--seed", "99999999999999999999"),
        ("--seed", "-99999999999999999999"),
        ("--seed", "-1"),
        ("--seed", str(2**63)),
        ("--tokens", "99999999999999999999"),
        ("--tokens", "1000000000"),
        ("--tokens", "65537"),
        ("--tokens", "0"),
        ("--tokens", "-5"),
    ],
)
def test_out_of_range_seed_and_tokens_are_usage_errors(option, value):
    r = cli("verify", PADDED, "--target", SMALL, "--device", "cpu", option, value)
    assert r.exit_code == 2, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    [err] = [line for line in r.stderr.splitlines() if "rror" in line]
    assert option in err, r.stderr


def test_the_largest_seed_and_the_bounds_are_the_librarys():
    from dspark_ckpt.errors import UsageError
    from dspark_ckpt.facts.config import MAX_SEED, MAX_TOKENS

    assert (MAX_TOKENS, MAX_SEED) == (65536, 2**63 - 1)  # one definition, CLI and library
    too_many = cli("verify", PADDED, "--target", SMALL, "--tokens", str(MAX_TOKENS + 1))
    assert too_many.exit_code == 2 and "65536" in too_many.stderr
    r = verify(PADDED, "--target", SMALL, "--seed", str(2**63 - 1))
    assert r.exit_code == 0, r.stderr
    assert r.json["seed"] == 2**63 - 1
    target = load_target(SMALL)
    for kwargs in ({"tokens": 10**9}, {"seed": -1}, {"seed": 2**64}):
        with pytest.raises(UsageError):
            verify_checkpoint(str(PADDED), target, device="cpu", **kwargs)


def test_hidden_states_are_built_per_chunk_and_depend_on_the_seed_alone():
    """Rows [b0, b1) are the same whichever chunks ask for them; the seed decides them."""
    from dspark_ckpt.commands.verify import HIDDEN_BLOCK, HiddenStates

    head = torch.randn(128, 8, generator=torch.Generator().manual_seed(0))
    illegal = torch.arange(VT, 128)
    tokens = HIDDEN_BLOCK + 40  # two random blocks, then 28 adversarial rows
    a = HiddenStates(head, illegal, tokens, 7, "cpu")
    whole = a.chunk(0, a.n)
    assert whole.shape == (tokens + 28, 8) and a.n == tokens + 28
    for step in (5, 64, 300):
        parts = [a.chunk(b, min(b + step, a.n)) for b in range(0, a.n, step)]
        assert torch.equal(torch.cat(parts), whole), step
    assert torch.equal(HiddenStates(head, illegal, tokens, 7, "cpu").chunk(0, a.n), whole)
    assert not torch.equal(HiddenStates(head, illegal, tokens, 8, "cpu").chunk(0, a.n), whole)
    # no attribute holds all tokens x H: only the head and the adversarial row ids
    held = [t for t in vars(a).values() if isinstance(t, torch.Tensor)]
    assert all(t is head or t.dim() == 1 for t in held)
    rms = whole.pow(2).mean(dim=1).sqrt()
    torch.testing.assert_close(rms, torch.ones_like(rms))


# --- mask files hold exactly one mask tensor ---------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        {BIAS_TENSOR: T("F32", (128,), np.where(sampleable_mask(128, VT), 0.0, -np.inf))},
        {"unrelated.weight": T("F32", (2,), np.zeros(2))},
    ],
)
@pytest.mark.parametrize("first", [MASK_TENSOR, "other"])
def test_a_mask_file_with_more_than_one_tensor_is_refused(tmp_path, extra, first):
    tensors = {MASK_TENSOR: T("BOOL", (128,), sampleable_mask(128, VT)), **extra}
    if first == "other":
        tensors = dict(reversed(tensors.items()))
    path = synth.write_safetensors(tmp_path / "two.safetensors", tensors)
    r = verify(PADDED, "--target", SMALL, "--mask", path)
    assert r.exit_code == 1
    assert json.loads(r.stdout)["error"]["file"] == str(path)
    [err] = [line for line in r.stderr.splitlines() if "error" in line]
    assert str(path) in err and "holds 2 tensors" in err and "exactly one" in err, err
    assert "Traceback" not in r.stderr and "loading" not in r.stderr


# --- -q/--quiet ------------------------------------------------------------------------------


def test_quiet_prints_no_progress_and_only_the_verdict():
    r = cli("verify", PADDED, "--target", SMALL, "--tokens", "8", "--device", "cpu", "-q")
    assert r.exit_code == 0 and r.stderr == ""
    [line] = r.stdout.splitlines()
    assert line.startswith("PASS: with the mask no sampled id leaves [0, Vt)")
    j = cli("verify", PADDED, "--target", SMALL, *FAST, "--quiet")
    assert j.exit_code == 0 and j.stderr == "" and j.json["ok"] is True
    loud = cli("verify", PADDED, "--target", SMALL, *FAST)
    assert "loading lm_head.weight" in loud.stderr
    bad = cli("verify", PADDED, "--target", SMALL, "--mask", ROOT / "README.md", "-q")
    assert bad.exit_code == 1 and "README.md" in bad.stderr  # errors still say why


# --- one map for fix and verify (commands/draft_map.py) --------------------------------


def test_a_pruned_drafter_without_any_map_is_refused_as_fix_refuses_it(tmp_path):
    """No d2t, no t2d: fix --emit-mask builds no mask (nothing says which draft ids are
    legal), so verify, which applies what fix writes, refuses too: the same one line."""
    src = FIXTURES / "vllm-table/v100-d40-lm_head"
    fixed = cli("fix", src, "--target-vocab-size", "100", "--mask-path", tmp_path / "m")
    r = verify(src, "--target-vocab-size", "100")
    assert fixed.exit_code == r.exit_code == 1
    assert "nothing says which draft ids are legal" in fixed.stderr
    assert r.stderr.splitlines()[-1] == fixed.stderr.strip()
    assert r.json == {
        "schema": "dspark-ckpt/verify/v1",
        "ok": False,
        "error": {
            "kind": "checkpoint",
            "file": str(src),
            "message": fixed.stderr.split(f"{src}: ", 1)[1].strip(),
        },
    }


def pruned_t2d_drafter(root, t2d_dtype="BOOL"):
    """A pruned drafter (Vd 32, Vt 100) with t2d and no d2t; the d2t it implies."""
    d2t, t2d = synth.sorted_mapping(VT, 32, seed=5)
    synth.drafter(
        root,
        vocab=VT,
        draft=32,
        tensors={"lm_head.weight": synth.head(32, 8, 1), "t2d": T(t2d_dtype, (VT,), t2d)},
    )
    return root, d2t


def test_a_pruned_drafter_with_t2d_only_is_verified_through_the_derived_d2t(tmp_path):
    """fix --emit-mask builds its mask through the d2t derived from t2d; verify maps the
    sampled ids through that same d2t, not the identity, and passes the mask fix wrote."""
    d, _ = pruned_t2d_drafter(tmp_path / "d")
    mask = tmp_path / "m.safetensors"
    side = ("--mask-path", mask, "--d2t-path", tmp_path / "d2t.safetensors")
    fixed = cli("fix", d, "--target", SMALL, *side, "--format", "json").json
    assert fixed["ok"] is True and fixed["d2t_origin"] == "derived from t2d"
    for args in ((), ("--mask", mask)):
        r = verify(d, "--target", SMALL, *args)
        assert r.exit_code == 0, r.stderr
        assert r.json["d2t"] is True and r.json["illegal_rows"] == 0
        assert any("derived from t2d" in n for n in r.json["notes"])


def test_a_pruned_drafter_whose_t2d_cannot_give_a_d2t_is_refused_as_fix_refuses_it(tmp_path):
    d, _ = pruned_t2d_drafter(tmp_path / "d", t2d_dtype="U8")
    fixed = cli("fix", d, "--target", SMALL, "--mask-path", tmp_path / "m")
    r = verify(d, "--target", SMALL)
    assert fixed.exit_code == r.exit_code == 1
    assert r.stderr.splitlines()[-1] == fixed.stderr.strip()
    assert "DSC303: t2d is U8 [100]; expected BOOL [100]: no d2t can be derived" in r.stderr


def test_a_valid_d2t_beside_a_t2d_of_another_dtype_is_verified(tmp_path):
    """vLLM skips t2d: a U8 t2d next to a valid d2t is inspect's warning (DSC303), no
    disagreement between two maps, so neither fix nor verify refuses the d2t."""
    d2t, t2d = synth.sorted_mapping(VT, 32, seed=5)
    tensors = {
        "lm_head.weight": synth.head(32, 8, 1),
        "d2t": T("I64", (32,), d2t),
        "t2d": T("U8", (VT,), t2d),
    }
    d = synth.drafter(tmp_path / "d", vocab=VT, draft=32, tensors=tensors)
    found = cli("inspect", d, "--target", SMALL, "--format", "json").json["findings"]
    assert [(f["code"], f["severity"]) for f in found] == [("DSC303", "warning")]
    assert cli("fix", d, "--target", SMALL, "--mask-path", tmp_path / "m").exit_code == 0
    r = verify(d, "--target", SMALL)
    assert r.exit_code == 0, r.stderr
    assert r.json["d2t"] is True and r.json["notes"] == []


# --- streaming: batch chunks outer, vocab chunks inner ----------------------------------


def test_fixed_seed_counts_are_those_recorded_before_the_loops_were_swapped():
    """Counts recorded (tokens 40, seed 5) with the vocab-chunk loop outside the batch-chunk
    loop, before the inputs of a batch chunk were built once instead of once per vocab chunk."""
    out = cli("verify", PADDED, "--target", SMALL, "--tokens", "40", "--seed", "5",
              "--device", "cpu", "--format", "json").json  # fmt: skip
    got = {m: [v[k] for k in ("unmasked_illegal", "masked_illegal", "sampled")]
           for m, v in out["modes"].items()}  # fmt: skip
    assert got == {"greedy": [68, 0, 68], "topk": [517, 0, 544], "gumbel": [68, 0, 68]}


def test_each_batch_chunk_is_built_once(monkeypatch):
    """A batch chunk's hidden states (seeded randn, RMS norm, head rows) are built once and
    scored against every vocab chunk, not rebuilt per vocab chunk."""
    from dspark_ckpt.commands import verify as v

    built = []
    chunk = v.HiddenStates.chunk
    monkeypatch.setattr(
        v.HiddenStates, "chunk", lambda self, b0, b1: built.append((b0, b1)) or chunk(self, b0, b1)
    )
    target = load_target(SMALL)
    tiny = verify_checkpoint(str(PADDED), target, device="cpu", tokens=40, chunks=(7, 5))
    assert tiny.tokens == 68 and built == [(b, min(b + 5, 68)) for b in range(0, 68, 5)]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_cpu_half_head_logits_are_the_half_gemm_s_to_one_ulp(dtype):
    """On CPU a bf16/f16 head is multiplied in float32 and each product rounded back to the
    head's dtype: every best logit is a value of that dtype (the rounding a runtime's half
    GEMM does), equal to torch's own half matmul on the whole row to one ulp, and the
    greedy and top-k ids are the reference's wherever its top values are apart."""
    from dspark_ckpt.commands.verify_sample import (
        HiddenStates,
        matmul_dtype,
        previous_tokens,
        sample_streaming,
    )

    assert matmul_dtype(dtype, "cpu") is torch.float32 and matmul_dtype(dtype, "cuda") is dtype
    assert matmul_dtype(torch.float32, "cpu") is torch.float32
    g = torch.Generator().manual_seed(3)
    vd, vt, h, r, k = 300, 280, 64, 4, 5
    head = torch.randn(vd, h, generator=g).to(dtype)
    w1 = (torch.randn(vd, r, generator=g) * 0.5).to(dtype)
    w2 = (torch.randn(vd, r, generator=g) * 0.5).to(dtype)
    gen = torch.Generator().manual_seed(0)
    hidden = HiddenStates(head, torch.arange(vt, vd), 16, 0, "cpu")
    prev = previous_tokens(w1, w2, hidden.adv_rows, 16, vt, gen, "cpu")
    mask = torch.arange(vd) < vt
    paths, _, _, _ = sample_streaming(
        head, hidden, w1, prev, w2, mask, gen, k=k, compute=dtype, device="cpu", chunks=(37, 11)
    )
    x = hidden.chunk(0, hidden.n).to(dtype)
    ref = (x @ head.T + w1[prev] @ w2.T).float()  # torch's half GEMM, whole rows
    best = paths[0].greedy_val
    assert torch.equal(best.to(dtype).float(), best)  # a value of the head's dtype
    ulp = ref.max(dim=1).values.abs() * 2.0 ** -(8 if dtype is torch.bfloat16 else 11)
    assert ((best - ref.max(dim=1).values).abs() <= 2 * ulp).all()
    top2 = ref.topk(2, dim=1).values
    apart = (top2[:, 0] - top2[:, 1]) > 4 * ulp
    assert apart.sum() > hidden.n // 2
    assert torch.equal(paths[0].greedy_idx[apart], ref.argmax(dim=1)[apart])
