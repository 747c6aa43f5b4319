"""``fix --prune-vocab K --frequencies FILE`` through the real CLI on real safetensors
files: the K most frequent target ids kept as the producers keep them, the head (and
DSpark's markov_w2) cut to their rows, d2t/t2d written; refused where the runtime serves
no reduced vocab and for a frequencies file it cannot trust."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import FIXTURES, cli
from safetensors.numpy import load_file
from synth import VT, H

SMALL = FIXTURES / "targets/small"


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def tensors(folder: Path) -> dict[str, np.ndarray]:
    out = {}
    for f in sorted(folder.glob("*.safetensors")):
        out.update(load_file(f))
    return out


def full(root: Path, **extra) -> Path:
    """A DSpark drafter whose own head scores every target id (Vd == Vt)."""
    return synth.drafter(
        root, vocab=VT, draft=VT, tensors={"lm_head.weight": synth.head(VT, H, 1)}, **extra
    )


def write(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path


def test_the_most_frequent_ids_are_kept_and_the_head_cut_to_their_rows(cwd):
    src = full(cwd / "d")
    counts = {str(i): (i * 37) % 11 for i in range(VT)}  # many ties: broken by id
    freq = write(cwd / "freq.json", counts)
    r = cli(
        "fix", src, "--target", SMALL, "--prune-vocab", "20", "--frequencies", freq, "--out", "o"
    )
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "prune the head to the 20 most frequent target ids (20 seen in freq.json)" in r.stdout
    want = sorted(sorted(range(VT), key=lambda i: (-counts[str(i)], i))[:20])
    before, after = tensors(src), tensors(cwd / "o")
    assert np.array_equal(after["lm_head.weight"], before["lm_head.weight"][want])
    w2 = "markov_head.markov_w2.weight"
    assert np.array_equal(after[w2], before[w2][want])
    assert after["d2t"].dtype == np.int64 and list(after["d2t"] + np.arange(20)) == want
    assert after["t2d"].dtype == bool and list(np.flatnonzero(after["t2d"])) == want
    assert (
        after["markov_head.markov_w1.weight"].tobytes()
        == before["markov_head.markov_w1.weight"].tobytes()
    )
    assert json.loads((cwd / "o/config.json").read_text())["draft_vocab_size"] == 20
    inspected = cli("inspect", cwd / "o", "--target", SMALL, "--format", "json").json
    assert inspected["ok"] and inspected["classification"] == "pruned"


def test_verify_on_the_pruned_copy_samples_no_illegal_id(cwd):
    src = full(cwd / "d")
    freq = write(cwd / "freq.json", list(range(VT)))  # a list of counts by id
    assert (
        cli(
            "fix",
            src,
            "--target",
            SMALL,
            "--prune-vocab",
            "30",
            "--frequencies",
            freq,
            "--out",
            "o",
        ).exit_code
        == 0
    )
    r = cli("verify", cwd / "o", "--target", SMALL, "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert list(np.flatnonzero(tensors(cwd / "o")["t2d"])) == list(range(70, 100))
    assert r.json["ok"]


def test_fewer_seen_ids_than_k_are_filled_with_the_lowest_ids(cwd):
    # speculators' build_vocab_mappings_from_distribution and SpecForge's fill
    src = full(cwd / "d")
    freq = write(cwd / "freq.json", {"90": 5, "3": 5, "50": 9})
    assert (
        cli(
            "fix", src, "--target", SMALL, "--prune-vocab", "6", "--frequencies", freq, "--out", "o"
        ).exit_code
        == 0
    )
    d2t = tensors(cwd / "o")["d2t"]
    assert list(d2t + np.arange(6)) == [0, 1, 2, 3, 50, 90]


def test_a_pruned_drafter_is_pruned_again_within_its_ids(cwd):
    pruned = synth.pruned_tensors(VT)
    ids = pruned["d2t"].values + np.arange(40)
    src = synth.drafter(cwd / "d", vocab=VT, draft=40, tensors=pruned)
    freq = write(cwd / "freq.json", {str(i): 100 - i for i in range(VT)})  # low ids first
    assert (
        cli(
            "fix",
            src,
            "--target",
            SMALL,
            "--prune-vocab",
            "10",
            "--frequencies",
            freq,
            "--out",
            "o",
        ).exit_code
        == 0
    )
    after = tensors(cwd / "o")
    assert list(after["d2t"] + np.arange(10)) == list(ids[:10])
    assert np.array_equal(after["lm_head.weight"], tensors(src)["lm_head.weight"][:10])


@pytest.mark.parametrize("prefix", ["", "model."])
def test_the_map_is_written_over_the_names_the_drafter_stores(cwd, prefix):
    """A drafter storing its map as ``model.d2t``/``model.t2d`` gets the new map under
    those names, which DSC111's repair then renames as vLLM reads them (vLLM prepends
    ``model.`` to every name but ``d2t``'s): one ``d2t`` and one ``t2d``, never a new
    bare map beside the stale prefixed one (two t2d: DSC209, the plan refused)."""
    pruned = synth.pruned_tensors(VT)
    stored = {prefix + k if k in ("d2t", "t2d") else k: v for k, v in pruned.items()}
    src = synth.drafter(cwd / "d", vocab=VT, draft=40, tensors=stored)
    freq = write(cwd / "freq.json", {str(i): 100 - i for i in range(VT)})
    r = cli("fix", src, "--target", SMALL, "--prune-vocab", "10", "--frequencies", freq,
            "--out", "o")  # fmt: skip
    assert r.exit_code == 0, r.stdout + r.stderr
    after = tensors(cwd / "o")
    assert sorted(n for n in after if n.endswith(("d2t", "t2d"))) == ["d2t", "t2d"]
    ids = list(after["d2t"] + np.arange(10))
    assert (
        ids == list(np.flatnonzero(after["t2d"])) == list(np.flatnonzero(pruned["t2d"].values)[:10])
    )


def test_refused_where_the_runtime_serves_no_reduced_vocab(cwd):
    src = full(cwd / "d")
    freq = write(cwd / "freq.json", list(range(VT)))
    args = [
        "fix",
        src,
        "--target",
        SMALL,
        "--prune-vocab",
        "20",
        "--frequencies",
        freq,
        "--out",
        "o",
    ]
    r = cli(*args, "--profile", "sglang-dspark")
    assert r.exit_code == 1 and not (cwd / "o").exists()
    assert (
        "sglang-dspark serves no reduced draft vocab" in r.stderr
        and len(r.stderr.splitlines()) == 1
    )
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ({"100": 1}, "'100' is outside the target vocab [0, 100)"),
        ({"-1": 1}, "'-1' is outside the target vocab"),
        ([1] * (VT + 1), "100 is outside the target vocab"),
        ({"000000000005": 1}, "'000000000005' is outside the target vocab"),  # 12 digits
        ({"3": -2}, "count of id 3 is not a non-negative integer"),
        ({"3": 1.5}, "count of id 3 is not a non-negative integer"),
        ("text", "a JSON object (target id -> count) or a list"),
        ('{"1": 1, "1": 2}', "not valid JSON"),
    ],
)
def test_a_bad_frequencies_file_is_refused_in_one_line(cwd, content, says):
    src = full(cwd / "d")
    path = cwd / "freq.json"
    path.write_text(
        content if isinstance(content, str) and content.startswith("{") else json.dumps(content)
    )
    r = cli(
        "fix", src, "--target", SMALL, "--prune-vocab", "20", "--frequencies", path, "--out", "o"
    )
    assert r.exit_code == 1 and not (cwd / "o").exists()
    assert says in r.stderr and "freq.json" in r.stderr and len(r.stderr.splitlines()) == 1


def test_an_id_of_up_to_11_digits_is_read(cwd):
    freq = write(cwd / "freq.json", {"00000000005": 3})  # 11 digits: id 5
    r = cli("fix", full(cwd / "d"), "--target", SMALL, "--prune-vocab", "20", "--frequencies",
            freq, "--diff")  # fmt: skip
    assert "(1 seen in freq.json)" in r.stdout, r.stdout + r.stderr


def test_a_head_that_scores_id_vt_is_refused(cwd):
    """Vd = Vt + 1: the head's last row scores id Vt, outside the target: not pruned."""
    src = synth.drafter(
        cwd / "d", vocab=VT, draft=VT + 1, tensors={"lm_head.weight": synth.head(VT + 1, H, 1)}
    )
    freq = write(cwd / "freq.json", [1] * VT)
    r = cli("fix", src, "--target", SMALL, "--prune-vocab", "20", "--frequencies", freq,
            "--out", "o")  # fmt: skip
    assert r.exit_code == 1 and not (cwd / "o").exists()
    assert "the head scores ids at or above Vt 100" in r.stderr, r.stderr


def test_a_head_of_other_rows_than_vd_is_refused(cwd):
    """No lm_head (the target's is shared), or one of other rows than Vd: nothing to cut."""
    freq = write(cwd / "freq.json", [1] * VT)
    for name, head in (("none", None), ("rows-99", synth.head(VT - 1, H, 1))):
        src = synth.drafter(cwd / name, vocab=VT, draft=VT, tensors={"lm_head.weight": head})
        r = cli("fix", src, "--target", SMALL, "--prune-vocab", "20", "--frequencies", freq,
                "--out", f"o-{name}")  # fmt: skip
        assert r.exit_code == 1 and not (cwd / f"o-{name}").exists(), r.stdout + r.stderr
        assert "the drafter has no lm_head of Vd (100) rows to prune" in r.stderr, r.stderr


def test_an_eagle3_head_is_cut_alone(cwd):
    """An EAGLE-3 drafter has no Markov head: the head alone is cut."""
    eagle3 = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}
    src = full(cwd / "d", config=eagle3)
    freq = write(cwd / "freq.json", list(range(VT)))
    r = cli(
        "fix",
        src,
        "--target",
        SMALL,
        "--profile",
        "vllm-eagle3",
        "--prune-vocab",
        "30",
        "--frequencies",
        freq,
        "--set",
        "eagle_aux_hidden_state_layer_ids=[2, 3]",
        "--out",
        "o",
    )  # fmt: skip (SGLang's ids [1, 2] as the capture points vLLM reads)
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "lm_head cut to their rows, d2t/t2d written" in r.stdout, r.stdout
    after = tensors(cwd / "o")
    assert after["lm_head.weight"].shape == (30, H)
    assert not any(n.startswith("markov_head.") for n in after)


def test_k_out_of_range_and_a_missing_half_are_refused(cwd):
    src = full(cwd / "d")
    freq = write(cwd / "freq.json", [1] * VT)
    r = cli(
        "fix", src, "--target", SMALL, "--prune-vocab", "100", "--frequencies", freq, "--out", "o"
    )
    assert r.exit_code == 1 and "--prune-vocab 100 must be in [1, 100)" in r.stderr
    r = cli("fix", src, "--target", SMALL, "--prune-vocab", "20", "--out", "o")
    assert r.exit_code == 2 and "go together" in r.stderr
    assert not (cwd / "o").exists()


@pytest.mark.slow
def test_the_choice_is_speculators_own():
    from speculators.train.vocab_mapping import build_vocab_mappings_from_distribution

    from dspark_ckpt.commands.prune import top_ids

    rng = np.random.default_rng(5)
    for seen, k in ((300, 64), (20, 64), (0, 8)):
        ids = rng.choice(1000, size=seen, replace=False)
        counts = {int(i): int(c) for i, c in zip(ids, rng.integers(1, 6, size=seen), strict=True)}
        d2t, t2d = build_vocab_mappings_from_distribution(dict(counts), k, 1000)
        ours = top_ids(counts, list(range(1000)), k)
        assert ours == (d2t.numpy() + np.arange(k)).tolist() == np.flatnonzero(t2d.numpy()).tolist()
