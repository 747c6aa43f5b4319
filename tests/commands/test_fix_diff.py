"""``fix --diff`` as a review: a tensor whose values are rewritten in the same shape shows
what changes in them, and the exit code says whether ``fix --diff && deploy`` may deploy:
0 only for a plan that changes nothing on a drafter deployable as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import FIXTURES, cli
from output.test_schemas import follows
from synth import VT, H, T

PADDED, SMALL = FIXTURES / "padded", FIXTURES / "targets/small"


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_rewritten_d2t_shows_its_values_not_its_shape_twice(cwd):
    """DSC313's unsafe repair: a pruned drafter's arange d2t becomes the identity (zeros),
    the same shape."""
    d2t = {"d2t": T("I64", (VT,), np.arange(VT, dtype=np.int64))}
    src = synth.drafter(cwd / "d", vocab=VT, draft=VT, tensors=d2t)
    r = cli("fix", src, "--target-vocab-size", 10 * VT, "--diff", "--unsafe-fixes")
    lines = r.stdout.splitlines()
    assert f"~ d2t I64 [{VT}] (model.safetensors): {VT - 1} of {VT} entries changed" in lines
    assert "    d2t[1]: 1 -> 0" in lines and "    d2t[3]: 3 -> 0" in lines
    assert f"    ... {VT - 4} more" in lines
    assert f"    range: [0, {VT - 1}] -> [0, 0]" in lines
    assert not any(line.startswith(("- d2t", "+ d2t")) for line in lines)
    obj = cli(
        "fix", src, "--target-vocab-size", 10 * VT, "--diff", "--unsafe-fixes", "--format", "json"
    )
    follows("fix-v1", obj.json)
    (t,) = obj.json["plan"]["tensors"]
    assert (t["action"], t["values"]["changed"], t["values"]["total"]) == ("replace", VT - 1, VT)
    assert t["values"]["first"][0] == {"index": [1], "before": 1, "after": 0}
    assert (t["values"]["before_range"], t["values"]["after_range"]) == ([0, VT - 1], [0, 0])


def test_a_cut_keeps_its_shape_lines(cwd):
    """A cut changes the shape: the - / + lines say it all, no value summary."""
    obj = cli("fix", PADDED, "--target", SMALL, "--diff", "--format", "json").json
    assert all(t["values"] is None for t in obj["plan"]["tensors"])


def test_diff_exits_0_only_for_nothing_to_change_on_a_deployable_drafter(cwd):
    clean = synth.drafter(cwd / "clean", vocab=VT, draft=VT)
    r = cli("fix", clean, "--target-vocab-size", VT, "--diff")
    assert r.exit_code == 0, r.stdout
    assert r.stdout.splitlines()[-1] == "plan: nothing to repair under vllm"
    # a change to make
    assert cli("fix", PADDED, "--target", SMALL, "--diff").exit_code == 1
    # nothing any repair changes, and an error left (fc sized for 5 states, DSC210)
    fc5 = {"fc.weight": T("F32", (H, 5 * H), np.zeros((H, 5 * H), np.float32))}
    bad = synth.drafter(cwd / "bad", vocab=VT, draft=VT, tensors=fc5)
    r = cli("fix", bad, "--target-vocab-size", VT, "--diff")
    assert r.exit_code == 1, r.stdout
    assert r.stdout.splitlines()[-1] == (
        "plan: nothing to repair under vllm; NOT deployable (1 error(s) no repair fixes)"
    )
    assert cli("fix", bad, "--target-vocab-size", VT, "--diff", "--format", "json").exit_code == 1
