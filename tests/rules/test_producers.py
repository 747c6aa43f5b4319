"""Conformance on drafters written by the producers' own save code (fixtures/producers.py:
speculators 0.9.0, SpecForge 0.2.0, eagle-llm 1.2.1, tiny and on CPU), through the real
CLI, against tiny targets. Each expectation says which behaviour of the runtime release
the profile mirrors decides it (the profiles in dspark_ckpt/profiles/ cite the source).

The producers are pyproject's ``producers`` extra, installed ``--no-deps`` (``.ci/run``
does, and sets DSPARK_CKPT_REQUIRE_PRODUCERS=1 so that these tests fail there rather than
skip). In a venv without the extra they are skipped with the command that installs it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from conftest import FIXTURES, cli
from synth import T, write_json, write_safetensors

PRODUCERS = ("speculators", "specforge", "eagle")
MISSING = [m for m in PRODUCERS if importlib.util.find_spec(m) is None]
INSTALL = "bash tools/install-producers"
# the producers' own code writes the drafters, in a process of its own (about a minute)
pytestmark = pytest.mark.slow

H, LAYERS = 64, 8  # the targets: hidden size and layer count of a tiny Qwen3


def _require_producers():
    if not MISSING:
        return
    message = f"the producers extra is not installed (missing {', '.join(MISSING)}): {INSTALL}"
    if os.environ.get("DSPARK_CKPT_REQUIRE_PRODUCERS"):
        pytest.fail(message)
    pytest.skip(message)


def build_drafters(out, *names: str):
    """The drafters ``names`` (all by default) of fixtures/producers.py, written under ``out``
    by the producers' own code in a process of its own."""
    _require_producers()
    p = subprocess.run(
        [sys.executable, str(FIXTURES / "producers.py"), str(out), *names],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def drafters(tmp_path_factory):
    """Every drafter of fixtures/producers.py, written once."""
    return build_drafters(tmp_path_factory.mktemp("producers"))


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


# (drafter, target Vt, profile, deployable, error codes among the findings, why: the runtime's
# behaviour that decides)
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
        "speculators-eagle3-pruned",
        1000,
        "vllm-eagle3-legacy",
        True,
        (),
        "the parameter always exists",
    ),
    (
        "speculators-eagle3-pruned",
        1000,
        "sglang-eagle3",
        False,
        ("DSC604",),
        "SGLang: 'Only "
        "the LlamaForCausalLMEagle3 config format is read: a speculators-format config is not'",
    ),
    (
        "speculators-eagle3-pruned",
        1000,
        "trtllm-eagle3",
        False,
        ("DSC604",),
        "TensorRT-LLM's load_pretrained_config routes by model_type, else AutoConfig: nothing "
        "translates speculators_model_type / transformer_layer_config",
    ),
    (
        "speculators-eagle3-padded",
        1000,
        "vllm-eagle3",
        False,
        ("DSC603",),
        "Vd 1024 > V 1000: "
        "'EAGLE-3/DFlash scatter into a V-wide row: an index error inside the drafter itself'",
    ),
    (
        "speculators-eagle3-padded",
        1000,
        "vllm-eagle3-legacy",
        False,
        ("DSC603",),
        "the same scatter (compute_logits) before PR #53458",
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
        "speculators-eagle3-equal",
        1024,
        "vllm-eagle3",
        False,
        ("DSC110",),
        "own embed_tokens "
        "of V 1000 < Vt 1024 rows: 'keeps it (shapes differ), and target tokens >= V index "
        "past its end'",
    ),
    (
        "speculators-eagle3-4-aux",
        1000,
        "vllm-eagle3",
        True,
        (),
        "speculators writes no model_type, so vLLM translates the config; its "
        "transformer_layer_config is a Qwen3 one, so the translation picks "
        "Eagle3Qwen3ForCausalLM, which counts the top-level eagle_aux_hidden_state_layer_ids "
        "(4: 'the Qwen3 class counts 4 and loads'), and Model Runner V2 feeds those 4; its "
        "target_hidden_size: null is not copied by the translation (no DSC657)",
    ),
    (
        "speculators-peagle-pruned",
        1000,
        "vllm-eagle3",
        True,
        (),
        "'P-EAGLE checkpoints are "
        "served by the same classes'; mask id 999 in [0, V) though >= Vd 500",
    ),
    (
        "speculators-dflash-pruned",
        1000,
        "vllm-dflash",
        True,
        (),
        "lm_head [Vd, H] and d2t "
        "(Vd != Vt); mask id 999 in [0, V): 'its range is the draft input vocab [0, V), not "
        "[0, Vd)'; fc [H, 3H] for its 3 aux ids (vLLM maps aux_hidden_state_layer_ids, "
        "transformers_utils/configs/speculators/algos.py:114-115)",
    ),
    (
        "speculators-dflash-pruned",
        1000,
        "sglang-dflash",
        False,
        ("DSC604",),
        "SGLang DFlash reads dflash_config and top-level keys (parse_dflash_draft_config); no "
        "speculators-format translation anywhere in SGLang",
    ),
    (
        "speculators-dspark-pruned",
        1000,
        "vllm",
        True,
        (),
        "rules 1-3 met (lm_head, d2t, "
        "V = Vt); markov_w1 [V, r], markov_w2 [Vd, r] as vLLM builds them; mask id in [0, V)",
    ),
    (
        "speculators-dspark-pruned",
        1000,
        "vllm-legacy",
        True,
        (),
        "Vd != Vt: the same requirements, all met",
    ),
    (
        "speculators-dspark-pruned",
        1000,
        "sglang-dspark",
        False,
        ("DSC205", "DSC604"),
        "SGLang: "
        "'markov_w1 and markov_w2 must both be [V, r] (asserted)'; speculators writes w2 [Vd, r]; "
        "and SGLang reads no speculators-format config for any family",
    ),
    (
        "speculators-dspark-pruned",
        1000,
        "trtllm-dspark-legacy",
        False,
        ("DSC105", "DSC205", "DSC604"),
        "TensorRT-LLM: strict load rejects d2t and t2d; 'markov_w1, markov_w2 both [V, r]'; "
        "its config loader has no speculators-format translation (load_pretrained_config)",
    ),
    ("specforge-eagle3-pruned", 1000, "vllm-eagle3", True, (), "pruned, lm_head and d2t"),
    ("specforge-eagle3-pruned", 1000, "vllm-eagle3-legacy", True, (), "pruned, lm_head, d2t"),
    (
        "specforge-eagle3-pruned",
        1000,
        "sglang-eagle3",
        True,
        (),
        "its own config format; d2t -> hot_token_id; draft_vocab_size with lm_head",
    ),
    (
        "specforge-eagle3-pruned",
        1000,
        "trtllm-eagle3",
        True,
        (),
        "V != Vd: the d2t parameter exists and the checkpoint fills it",
    ),
    (
        "specforge-eagle3-full",
        1000,
        "vllm-eagle3",
        False,
        ("DSC105",),
        "'an equal-vocab "
        "checkpoint that ships d2t (SpecForge always writes one ...) fails to load in 0.33.0'",
    ),
    (
        "specforge-eagle3-full",
        1000,
        "vllm-eagle3-legacy",
        True,
        (),
        "before PR #53458 the parameter always existed",
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
    ("specforge-dflash", 1000, "sglang-dflash", True, (), "head and embedding from the target"),
    (
        "specforge-dflash-no-mask",
        1000,
        "vllm-dflash",
        False,
        ("DSC109",),
        "'the proposer raises when none is set'",
    ),
    *[
        (
            "specforge-dspark",
            1000,
            profile,
            False,
            ("DSC107",),
            "'A DSpark config with "
            "markov_rank only nested fails to build' (vLLM; SGLang and TensorRT-LLM alike)",
        )
        for profile in ("vllm", "vllm-legacy", "sglang-dspark", "trtllm-dspark-legacy")
    ],
    # TensorRT-LLM's later main (issue 30): the standalone route, GQADSparkForCausalLM
    # (modeling_dspark.py @008b54fe), resolves the DSpark head keys nested too
    (
        "specforge-dspark",
        1000,
        "trtllm-dspark",
        True,
        (),
        "GQADSparkForCausalLM: markov_rank and markov_head_type from dflash_config "
        "(resolve_dspark_head_config), the vanilla head [V, r], the confidence head loaded as "
        "given; which route a drafter takes decides what it needs",
    ),
    (
        "specforge-dspark-gated-serving",
        1000,
        "trtllm-dspark",
        False,
        ("DSC658",),
        "GQADSparkForCausalLM builds the vanilla head only: 'only 'vanilla' is supported'",
    ),
    (
        "specforge-dflash",
        1000,
        "trtllm-dflash",
        True,
        (),
        "TensorRT-LLM DFlash: mask id and target_layer_ids from dflash_config, fc the shipped "
        "tensor, embed_tokens and lm_head the target's",
    ),
    # TensorRT-LLM reads no aux ids from the drafter: for this 8-layer target it captures the
    # outputs of (1, 3, 4), the states entering (2, 4, 5); SpecForge trained on [1, 3, 5] + 1
    (
        "specforge-eagle3-aux-ids",
        1000,
        "trtllm-eagle3",
        False,
        ("DSC651",),
        "Eagle3OneModelSpecMetadata: '(1, num_layers // 2 - 1, num_layers - 4)' without the "
        "serving config's eagle3_layers_to_capture: other layers than trained",
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


@pytest.mark.parametrize(
    "name", ["speculators-peagle-pruned", "specforge-peagle-pruned"], ids=lambda n: n
)
def test_peagle_is_judged_as_eagle3(drafters, targets, name):
    """P-EAGLE (speculators ``peagle``, SpecForge ``PEagleDraftModel``) is served by vLLM's
    EAGLE-3 classes (vllm/model_executor/models/registry.py:698-699, and a speculators
    ``peagle`` config turns on parallel drafting, transformers_utils/configs/speculators/
    base.py:133-134): its family is eagle3 and its default profile vllm-eagle3."""
    r = cli("inspect", drafters / name, "--target", targets[1000], "--format", "json")
    assert r.json["family"] == "eagle3", r.stdout[-2000:]
    assert r.json["profiles"] == ["vllm-eagle3"]


def test_eagle1_under_its_targets_class_is_judged_by_the_method(drafters, targets, tmp_path):
    """eagle-llm writes its EAGLE-1 drafter's config naming the target's class
    (LlamaForCausalLM). vLLM serves it by the method the model path names ("eagle-":
    classic EAGLE; config/speculative.py:1440-1456), renamed EagleLlamaForCausalLM: judged
    as classic EAGLE (its trained fc bias, which vLLM ignores, fails it: DSC672), never by
    DSpark rules. Where no name says the method it is not judged (DSC108) until --profile
    names one."""
    target = ("--target", targets[1000], "--format", "json")
    r = cli("inspect", drafters / "eagle-llm-eagle1", *target)
    assert r.json["family"] == "eagle" and r.json["profile"] == "vllm-eagle", r.stdout[-2000:]
    assert r.exit_code == 1 and r.json["ok"] is False
    assert "DSC672" in {f["code"] for f in r.json["findings"]}
    plain = tmp_path / "drafter"
    shutil.copytree(drafters / "eagle-llm-eagle1", plain)
    r = cli("inspect", plain, *target)
    assert r.exit_code == 3 and {f["code"] for f in r.json["findings"]} == {"DSC108"}
    r = cli("inspect", plain, *target, "--profile", "vllm-eagle")
    assert r.json["family"] == "eagle" and r.json["ok"] is False


@pytest.mark.parametrize(
    "name,profile,errors",
    [
        # vLLM 0.33.0 llama_eagle.py builds fc without a bias and ignores the trained one
        ("eagle-llm-eagle1-vllm", "vllm-eagle", {"DSC672"}),
        ("eagle-llm-eagle1-vllm", "sglang-eagle", {"DSC680"}),  # not SGLang's class name
        ("eagle-llm-eagle1-sglang", "sglang-eagle", set()),  # every weight it builds
        ("eagle-llm-eagle1-sglang", "vllm-eagle", {"DSC672", "DSC680"}),
    ],
)
def test_eagle1_as_the_runtimes_name_it(drafters, targets, name, profile, errors):
    """The EAGLE release code's drafter (eagle-llm), its config naming the class each runtime
    registers, is judged as classic EAGLE by each runtime's loader model."""
    r = inspect(drafters / name, targets[1000], profile)
    assert r.json["family"] == "eagle", r.stdout[-2000:]
    assert errors_under(r.json, profile) == errors, r.stdout[-3000:]


def test_fix_accepts_speculators_placeholder_t2d(drafters, targets, tmp_path):
    """speculators' padded EAGLE-3 ships the identity d2t with an all-False placeholder
    t2d (speculators writes an all-False t2d when it has no mapping): fix --emit-mask
    builds the mask on the d2t, not on that placeholder."""
    from safetensors.numpy import load_file

    mask = tmp_path / "mask.safetensors"
    r = cli(
        "fix",
        drafters / "speculators-eagle3-padded",
        "--target",
        targets[1000],
        "--mask-path",
        mask,
        "--profile",
        "vllm-eagle3",
    )
    assert mask.is_file(), r.stdout + r.stderr
    m = load_file(mask)["draft_vocab_mask"]
    assert m.shape == (1024,)
    assert np.array_equal(m, np.arange(1024) < 1000)


# DSC671 on SpecForge's own EAGLE-3: its config names no aux layer ids unless given one (it
# then trains on [1, N // 2 - 1, N - 4], specforge/algorithms/model_providers.py), so each
# runtime feeds its own default; with eagle_config's ids SGLang reads them and vLLM's runner
# does not (DSC651 says so). https://github.com/vllm-project/vllm/pull/50170: a head with no
# ids measured 1.2% acceptance instead of 59% on the default layers.
@pytest.mark.parametrize(
    ("name", "profile", "warned"),
    [
        ("specforge-eagle3-pruned", "vllm-eagle3", True),
        ("specforge-eagle3-pruned", "sglang-eagle3", True),
        ("specforge-eagle3-aux-ids", "sglang-eagle3", False),
        ("specforge-eagle3-aux-ids", "vllm-eagle3", False),
        # TensorRT-LLM's default capture, the outputs of (1, N // 2 - 1, N - 4): the same states
        ("specforge-eagle3-pruned", "trtllm-eagle3", True),
    ],
    ids=lambda v: str(v),
)
def test_specforge_eagle3_without_aux_ids_is_warned(drafters, targets, name, profile, warned):
    r = inspect(drafters / name, targets[1000], profile)
    found = {f["code"] for f in r.json["findings"] if f.get("profile") in (None, profile)}
    assert ("DSC671" in found) is warned, found
    if warned:  # the layers fed for the 8-layer target: (2, N // 2, N - 3)
        (w,) = [f for f in r.json["findings"] if f["code"] == "DSC671"]
        assert "the states entering layers [2, 4, 5]" in w["message"]


def test_trtllm_refuses_its_default_capture_for_a_shallow_target(drafters, targets, tmp_path):
    """TensorRT-LLM raises 'Not enough hidden layers for default EAGLE3 capture' for a target
    of 5 layers or fewer when its serving config names no layers (speculative/eagle3.py):
    DSC693 on SpecForge's own EAGLE-3 drafter, and not against the 8-layer target."""
    shallow = tmp_path / "shallow"
    write_json(
        shallow / "config.json",
        {
            "architectures": ["Qwen3ForCausalLM"],
            "model_type": "qwen3",
            "vocab_size": 1000,
            "hidden_size": H,
            "num_hidden_layers": 5,
        },
    )
    r = inspect(drafters / "specforge-eagle3-pruned", shallow, "trtllm-eagle3")
    assert r.exit_code == 1 and "DSC693" in errors_under(r.json, "trtllm-eagle3"), r.stdout
    deep = inspect(drafters / "specforge-eagle3-pruned", targets[1000], "trtllm-eagle3")
    assert "DSC693" not in {f["code"] for f in deep.json["findings"]}


@pytest.mark.parametrize(
    "name", ["speculators-peagle-pruned", "specforge-peagle-pruned"], ids=lambda n: n
)
def test_trtllm_serves_peagle_as_plain_eagle3(drafters, targets, name):
    """TensorRT-LLM builds Eagle3ForCausalLM whatever architectures says
    (_build_eagle3_one_model_draft), with no mask_hidden and one token per draft step: DSC694
    warns under trtllm-eagle3, and not under vllm-eagle3, which runs parallel drafting."""
    r = inspect(drafters / name, targets[1000], "trtllm-eagle3")
    codes = {f["code"] for f in r.json["findings"] if f.get("profile") == "trtllm-eagle3"}
    assert "DSC694" in codes, r.stdout[-2000:]
    v = inspect(drafters / name, targets[1000], "vllm-eagle3")
    assert "DSC694" not in {f["code"] for f in v.json["findings"]}
