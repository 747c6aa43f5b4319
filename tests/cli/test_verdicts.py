"""Verdicts that match the runtimes as released, through the CLI: what only the CLI shows
(the releases it reports, exit code 3, the table, fix and verify). Which rule fires on
which drafter under each profile is in tests/rules, in-process."""

from __future__ import annotations

import numpy as np
import synth
from conftest import FIXTURES, cli
from synth import VT, H, T, head

from dspark_ckpt.profiles.registry import PROFILES, RULE_FIELDS, covers

# SpecForge's EAGLE-3 keys: aux ids under eagle_config only (no DSpark target_layer_ids)
EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}
SMALL = FIXTURES / "targets/small"  # Vt 100, Et 128


def inspect(path, *profiles, target=("--target-vocab-size", VT)):
    args = ["inspect", path, *target, "--format", "json"]
    for p in profiles:
        args += ["--profile", p]
    return cli(*args)


def found(r, profile=None, severity="error"):
    """(code, message) of a profile's own findings (None: the common ones)."""
    return [
        (f["code"], f["message"])
        for f in r.json["findings"]
        if f["profile"] == profile and f["severity"] == severity
    ]


def test_every_profile_names_its_release_and_cites_every_rule():
    r = cli("profiles", "--format", "json")
    for p in r.json["profiles"]:
        assert p["release"] and p["versions"] == p["release"]
        assert set(p["cites"]) == set(RULE_FIELDS) == set(p["rules"])
        assert all(p["cites"].values())
    # the default profiles name the vLLM release their rules were read at, one they cover
    for name in ("vllm", "vllm-dflash", "vllm-eagle3"):
        runtime, _, version = PROFILES[name].release.partition(" ")
        assert runtime == "vLLM" and covers(PROFILES[name].releases, version), name
    assert all(".py" in cite for p in PROFILES.values() for cite in p.cites.values())
    lines = ("reduced_when", "d2t_param", "missing_lm_head", "draft_vocab_above_vocab")
    assert all(".py:" in PROFILES["vllm-eagle3"].cites[k] for k in lines)


def test_1_full_vocab_eagle3_with_d2t_fails_vllm_0_33_and_passes_the_legacy_loader(tmp_path):
    """SpecForge always writes d2t (zeros) and t2d (all True): V = Vd = Vt."""
    d = synth.drafter(
        tmp_path / "longcat",
        vocab=VT,
        draft=VT,
        config=EAGLE3,
        tensors={
            "lm_head.weight": head(VT, H, 1),
            "d2t": T("I64", (VT,), np.zeros(VT, np.int64)),
            "t2d": T("BOOL", (VT,), np.ones(VT, bool)),
        },
    )
    r = inspect(d, "vllm-eagle3,vllm-eagle3-legacy")
    assert r.exit_code == 1
    assert r.json["verdicts"]["vllm-eagle3"] is False
    assert r.json["verdicts"]["vllm-eagle3-legacy"] is True
    [(code, message)] = found(r, "vllm-eagle3")
    assert code == "DSC105" and "There is no module or parameter named" in message
    assert r.json["releases"]["vllm-eagle3"] == PROFILES["vllm-eagle3"].release


def test_9_families_p_eagle_is_eagle3_mtp_is_not_judged_and_all_is_the_familys(tmp_path):
    pe = synth.drafter(
        tmp_path / "pe", vocab=VT, draft=VT, config={"architectures": ["PEagleDraftModel"]}
    )
    r = inspect(pe)
    assert r.json["family"] == "eagle3" and r.json["profile"] == "vllm-eagle3"
    mtp = synth.drafter(
        tmp_path / "mtp",
        vocab=VT,
        draft=VT,
        config={"architectures": ["DeepSeekMTPModel"], "markov_rank": None},
    )
    r = inspect(mtp, "vllm")
    assert r.exit_code == 3 and r.json["covered"] is False and r.json["verdicts"] == {}
    assert [f["code"] for f in r.json["findings"]] == ["DSC108"] and r.json["profile"] is None
    table = cli("inspect", mtp, "--target-vocab-size", VT)
    assert table.exit_code == 3 and "NOT JUDGED" in table.stdout and "PASS" not in table.stdout
    # a good EAGLE-3 drafter (with its decoder layer, which SGLang would leave at its
    # initial values): --profile all is every EAGLE-3 profile, and none of DSpark's
    # (trained on three target layers: TensorRT-LLM builds fc for 3 without its serving
    # config's eagle3_layers_to_capture)
    good = synth.drafter(
        tmp_path / "good",
        vocab=VT,
        draft=VT,
        config={**EAGLE3, "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1, 2]}},
        tensors={
            "lm_head.weight": head(VT, H, 1),
            "fc.weight": T("F32", (H, 3 * H)),
            **synth.layer_weights(H, eagle3=True),
        },
    )
    r = inspect(good, "all")
    assert r.exit_code == 0 and set(r.json["verdicts"]) == {
        n for n, p in PROFILES.items() if p.family == "eagle3"
    }
    r = cli("inspect", good, "--target-vocab-size", VT)
    assert "vllm-legacy" not in r.stdout and "deployable" in r.stdout


def test_11_speculators_placeholder_t2d(tmp_path):
    """speculators' padded EAGLE-3 ships the identity d2t and an all-False t2d: fix and
    verify use the d2t."""
    d = synth.drafter(
        tmp_path / "d",
        vocab=128,
        draft=128,
        config=EAGLE3,
        tensors={
            "lm_head.weight": head(128, H, 1, padded_from=VT),
            "d2t": T("I64", (128,), np.zeros(128, np.int64)),
            "t2d": T("BOOL", (VT,), np.zeros(VT, bool)),
        },
    )
    out = tmp_path / "mask.safetensors"
    r = cli("fix", d, "--target", SMALL, "--mask-path", out)
    assert r.exit_code == 0, r.stderr
    assert out.exists()
    v = cli("verify", d, "--target", SMALL, "--tokens", "8", "--device", "cpu", "--format", "json")
    assert v.exit_code == 0, v.stderr
