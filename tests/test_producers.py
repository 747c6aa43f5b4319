"""Conformance on drafters written by the producers' own save code (fixtures/producers.py:
speculators 0.9.0, SpecForge 0.2.0, eagle-llm 1.2.1, tiny and on CPU), through the real
CLI, against tiny targets. Each expectation cites the /work/shared/CONTRACT.md rule it is
derived from.

The producers are pyproject's ``producers`` extra, installed ``--no-deps`` (``.ci/run``
does, and sets DSPARK_CKPT_REQUIRE_PRODUCERS=1 so that these tests fail there rather than
skip). In a venv without the extra they are skipped with the command that installs it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import FIXTURES, cli
from synth import T, write_json, write_safetensors

PRODUCERS = ("speculators", "specforge", "eagle")
MISSING = [m for m in PRODUCERS if importlib.util.find_spec(m) is None]
INSTALL = "bash tools/install-producers"

H, LAYERS = 64, 8  # the targets: hidden size and layer count of a tiny Qwen3


def _require_producers():
    if not MISSING:
        return
    message = f"the producers extra is not installed (missing {', '.join(MISSING)}): {INSTALL}"
    if os.environ.get("DSPARK_CKPT_REQUIRE_PRODUCERS"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def drafters(tmp_path_factory):
    """Every drafter of fixtures/producers.py, written once by the producers' own code in a
    process of its own."""
    _require_producers()
    out = tmp_path_factory.mktemp("producers")
    p = subprocess.run(
        [sys.executable, str(FIXTURES / "producers.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    """Tiny Qwen3 targets of vocab Vt (logical = physical rows), hidden 64, 8 layers."""
    out = tmp_path_factory.mktemp("targets")
    made = {}
    for vt in (1000, 1024):
        root = out / f"vt{vt}"
        write_json(
            root / "config.json",
            {
                "architectures": ["Qwen3ForCausalLM"],
                "model_type": "qwen3",
                "vocab_size": vt,
                "hidden_size": H,
                "num_hidden_layers": LAYERS,
            },
        )
        write_safetensors(
            root / "model.safetensors",
            {"model.embed_tokens.weight": T("BF16", (vt, H)), "lm_head.weight": T("BF16", (vt, H))},
        )
        made[vt] = root
    return made


def inspect(drafter, target, profile):
    return cli("inspect", drafter, "--target", target, "--profile", profile, "--format", "json")


def errors_under(report: dict, profile: str) -> set[str]:
    return {
        f["code"]
        for f in report["findings"]
        if f["severity"] == "error" and f.get("profile") in (None, profile)
    }


# (drafter, target Vt, profile, deployable, error codes among the findings, why: CONTRACT.md)
EXPECTED = [
    (
        "speculators-eagle3-pruned",
        1000,
        "vllm-eagle3",
        True,
        (),
        "pruned with lm_head and d2t: the parameter exists (Vd != Vt) and every i + d2t[i] < V",
    ),
    (
        "speculators-eagle3-equal",
        1000,
        "vllm-eagle3",
        True,
        (),
        "V = Vd = Vt: no d2t parameter and none shipped; logits V wide",
    ),
    (
        "speculators-dspark-pruned",
        1000,
        "trtllm-dspark",
        False,
        ("DSC105", "DSC205"),
        "TensorRT-LLM: strict load rejects d2t and t2d; 'markov_w1, markov_w2 both [V, r]'",
    ),
    ("specforge-eagle3-pruned", 1000, "vllm-eagle3", True, (), "pruned, lm_head and d2t"),
    (
        "specforge-eagle3-pruned",
        1000,
        "sglang-eagle3",
        True,
        (),
        "its own config format; d2t -> hot_token_id; draft_vocab_size with lm_head",
    ),
    ("specforge-eagle3-full", 1000, "sglang-eagle3", True, (), "hot_token_id = 0 + arange"),
    (
        "specforge-dflash",
        1000,
        "vllm-dflash",
        True,
        (),
        "no lm_head/embed (shared, Vd = V = "
        "Vt); mask id from dflash_config.mask_token_id; fc [H, 3H] for 3 target_layer_ids",
    ),
]


@pytest.mark.parametrize("row", EXPECTED, ids=lambda r: f"{r[0]}@vt{r[1]}@{r[2]}")
def test_producer_drafter_verdict(drafters, targets, row):
    name, vt, profile, deployable, codes, why = row
    r = inspect(drafters / name, targets[vt], profile)
    assert r.exit_code == (0 if deployable else 1), (why, r.stdout[-3000:], r.stderr)
    found = errors_under(r.json, profile)
    assert r.json["ok"] is deployable, (why, found)
    if deployable:
        assert not found, (why, found)
    else:
        assert set(codes) <= found, (why, found)
