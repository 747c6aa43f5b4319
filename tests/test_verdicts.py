"""Issue 10: verdicts that match the runtimes as released. One CLI test per numbered
point, on real safetensors files (synth.py), graded against the profile of the release
the rule was read from (vLLM 0.33.0, SGLang 0.5.23, TensorRT-LLM main)."""

from __future__ import annotations

import numpy as np
import synth
from conftest import FIXTURES, cli
from synth import VT, H, T, head, markov, sorted_mapping

from dspark_ckpt.profiles.registry import PROFILES, RULE_FIELDS

EAGLE3 = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}
DFLASH = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3"}
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


def codes(r, profile=None, severity="error"):
    return [c for c, _ in found(r, profile, severity)]


def pruned_map(vd: int) -> dict[str, T]:
    offsets, t2d = sorted_mapping(VT, vd)
    return {"d2t": T("I64", (vd,), offsets), "t2d": T("BOOL", (VT,), t2d)}


def test_every_profile_names_its_release_and_cites_every_rule():
    r = cli("profiles", "--format", "json")
    for p in r.json["profiles"]:
        assert p["release"] and p["versions"] == p["release"]
        assert set(p["cites"]) == set(RULE_FIELDS) == set(p["rules"])
        assert all(p["cites"].values())
    vllm = [p for p in PROFILES.values() if p.name in ("vllm", "vllm-dflash", "vllm-eagle3")]
    assert {p.release for p in vllm} == {"vLLM 0.33.0"}
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
    assert r.json["releases"]["vllm-eagle3"] == "vLLM 0.33.0"


def test_2_mask_token_is_an_input_id_read_in_vllms_key_order(tmp_path):
    # a pruned DSpark drafter (Vd 40) whose mask id 90 is a real input id: valid
    tensors = {"lm_head.weight": head(40, H, 1), **pruned_map(40)}
    ok = synth.drafter(
        tmp_path / "ok",
        vocab=VT,
        draft=40,
        tensors=tensors,
        config={"mask_token_id": None, "dflash_config": {"mask_token_id": 90}},
    )
    r = inspect(ok)
    assert r.exit_code == 0 and "DSC208" not in codes(r, "vllm")
    # outside [0, V): the one vLLM reads first (dflash_config) is checked
    bad = synth.drafter(
        tmp_path / "bad",
        vocab=VT,
        draft=40,
        tensors=tensors,
        config={"mask_token_id": 3, "dflash_config": {"mask_token_id": VT}},
    )
    r = inspect(bad)
    assert codes(r, "vllm") == ["DSC208"] and r.exit_code == 1
    # none at all: vLLM's proposer refuses a DFlash drafter
    none = synth.drafter(
        tmp_path / "none", vocab=VT, draft=VT, config={**DFLASH, "mask_token_id": None}
    )
    r = inspect(none)
    assert r.json["profile"] == "vllm-dflash" and codes(r, "vllm-dflash") == ["DSC109"]
    assert "refuses" in found(r, "vllm-dflash")[0][1]
    assert r.exit_code == 1


def test_3_draft_vocab_above_the_input_vocab_is_an_index_error(tmp_path):
    """speculators' padded EAGLE-3 (V 100, Vd 128), and a DSpark drafter with Vd > V."""
    e3 = synth.drafter(
        tmp_path / "e3",
        vocab=VT,
        draft=128,
        config=EAGLE3,
        tensors={"lm_head.weight": head(128, H, 1)},
    )
    r = inspect(e3)
    [(code, message)] = found(r, "vllm-eagle3")
    assert code == "DSC603" and "V-wide" not in message and "index error" in message
    assert r.exit_code == 1
    ds = synth.drafter(
        tmp_path / "ds", vocab=VT, draft=101, tensors={"lm_head.weight": head(101, H, 1)}
    )
    r = inspect(ds)
    assert "DSC603" in codes(r, "vllm") and "markov_w1" in dict(found(r, "vllm"))["DSC603"]
    assert r.exit_code == 1


def test_4_own_embedding_smaller_than_the_target_vocab(tmp_path):
    d = synth.drafter(
        tmp_path / "d",
        vocab=90,
        draft=90,
        config=EAGLE3,
        tensors={
            "embed_tokens.weight": head(90, H, 2),
            "lm_head.weight": head(90, H, 1),
            "d2t": T("I64", (90,), np.zeros(90, np.int64)),
        },
    )
    r = inspect(d, "all")
    assert codes(r, "vllm-eagle3") == ["DSC110"] and r.exit_code == 1
    assert "index error" in found(r, "vllm-eagle3")[0][1]
    assert "DSC110" not in codes(r, "sglang-eagle3")  # SGLang replaces it with the target's


def test_5_fc_width_as_the_runtime_counts_the_aux_hidden_states(tmp_path):
    """A speculators config with 4 top-level aux ids: vLLM's model builds fc for 3."""
    config = {
        **EAGLE3,
        "speculators_model_type": "eagle3",
        "eagle_config": None,
        "eagle_aux_hidden_state_layer_ids": [1, 2, 3, 4],
    }
    fc = {"fc.weight": T("F32", (H, 4 * H), np.zeros((H, 4 * H), np.float32))}
    d = synth.drafter(tmp_path / "spec", vocab=VT, draft=VT, config=config, tensors=fc)
    r = inspect(d)
    [f] = [f for f in r.json["findings"] if f["code"] == "DSC210"]
    assert "fc for 3 target hidden states (the default 3)" in f["message"]
    assert "num_aux_hidden_states: 4" in f["hint"] and r.exit_code == 1
    fixed = synth.drafter(
        tmp_path / "fixed",
        vocab=VT,
        draft=VT,
        tensors=fc,
        config={**config, "num_aux_hidden_states": 4},
    )
    assert inspect(fixed).exit_code == 0
    # input_norm is [n_aux * Ht] with norm_before_fc
    norm = {**fc, "input_norm.weight": T("F32", (3 * H,), np.ones(3 * H, np.float32))}
    d = synth.drafter(
        tmp_path / "norm",
        vocab=VT,
        draft=VT,
        tensors=norm,
        config={**config, "num_aux_hidden_states": 4, "norm_before_fc": True},
    )
    r = inspect(d)
    assert codes(r, "vllm-eagle3") == ["DSC211"]


def test_6_markov_rank_only_nested_fails_to_build(tmp_path):
    """SpecForge's DSpark training config nests markov_rank and target_layer_ids."""
    config = {
        "architectures": ["DSparkDraftModel"],
        "markov_rank": None,
        "target_layer_ids": None,
        "dflash_config": {"markov_rank": 4, "mask_token_id": 5, "target_layer_ids": [0, 1]},
    }
    d = synth.drafter(tmp_path / "d", vocab=VT, draft=VT, config=config, tensors=markov(VT, VT))
    r = inspect(d, "all")
    assert r.exit_code == 1
    for p in ("vllm", "sglang-dspark"):
        assert codes(r, p) == ["DSC107"], p
    assert "only nested as dflash_config.markov_rank" in found(r, "vllm")[0][1]
    assert sorted(codes(r, "trtllm-dspark")) == ["DSC107", "DSC107", "DSC112"]
    hint = [f["hint"] for f in r.json["findings"] if f["code"] == "DSC107"][0]
    assert hint.startswith("copy dflash_config.markov_rank to the top level")


def test_7_prefixed_names_are_not_the_tensor_for_vllm_dspark_and_trtllm(tmp_path):
    offsets, _ = sorted_mapping(VT, 40)
    d = synth.drafter(
        tmp_path / "d",
        vocab=VT,
        draft=40,
        tensors={"model.lm_head.weight": head(40, H, 1), "model.d2t": T("I64", (40,), offsets)},
    )
    r = inspect(d, "all")
    assert "DSC111" in codes(r, "vllm") and "DSC111" in codes(r, "trtllm-dspark")
    assert "DSC111" not in codes(r, "sglang-dspark")  # SGLang strips 'model.'
    assert "There is no module or parameter named" in dict(found(r, "vllm"))["DSC111"]
    assert r.exit_code == 1


def test_8_int32_d2t_is_a_warning_and_a_quantised_head_is_not_a_width_mismatch(tmp_path):
    offsets, _ = sorted_mapping(VT, 40)
    d = synth.drafter(
        tmp_path / "i32",
        vocab=VT,
        draft=40,
        tensors={"lm_head.weight": head(40, H, 1), "d2t": T("I32", (40,), offsets)},
    )
    r = inspect(d)
    assert r.exit_code == 0 and codes(r, None, "warning") == ["DSC305"]
    nvfp4 = {
        "lm_head.weight": T("U8", (40, H // 2), np.zeros((40, H // 2), np.uint8)),
        "lm_head.weight_scale": T("F32", (40, 1), np.ones((40, 1), np.float32)),
        "d2t": T("I64", (40,), offsets),
    }
    q = synth.drafter(
        tmp_path / "q",
        vocab=VT,
        draft=40,
        tensors=nvfp4,
        config={"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}},
    )
    r = inspect(q)
    assert "DSC203" not in codes(r) and r.exit_code == 0
    plain = synth.drafter(tmp_path / "plain", vocab=VT, draft=40, tensors=nvfp4)
    assert "DSC203" in codes(inspect(plain))  # no quantization_config: really H/2 wide


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
    # a good EAGLE-3 drafter: --profile all is every EAGLE-3 profile, and none of DSpark's
    r = inspect(FIXTURES / "pruned-eagle3", "all")
    assert r.exit_code == 0 and set(r.json["verdicts"]) == {
        n for n, p in PROFILES.items() if p.family == "eagle3"
    }
    r = cli("inspect", FIXTURES / "pruned-eagle3", "--target-vocab-size", VT)
    assert "vllm-legacy" not in r.stdout and "deployable" in r.stdout


def test_10_sglang_and_tensorrt_llm_as_they_are(tmp_path):
    # SGLang 0.5.23 reads no speculators-format EAGLE-3 config
    spec = synth.drafter(
        tmp_path / "spec", vocab=VT, draft=VT, config={**EAGLE3, "speculators_model_type": "eagle3"}
    )
    r = inspect(spec, "all")
    assert "DSC604" in codes(r, "sglang-eagle3") and r.json["verdicts"]["vllm-eagle3"]
    # SGLang DSpark: head and embedding from the target, d2t ignored, Markov [V, r]
    pruned = synth.drafter(tmp_path / "sg", vocab=VT, draft=40, tensors=markov(VT, VT))
    r = inspect(pruned, "sglang-dspark")
    assert r.exit_code == 0 and codes(r, "sglang-dspark") == []
    vd_rows = synth.drafter(tmp_path / "sg2", vocab=VT, draft=40, tensors=markov(VT, 40))
    assert codes(inspect(vd_rows, "sglang-dspark"), "sglang-dspark") == ["DSC205"]
    # TensorRT-LLM DSpark: strict load rejects mask_embedding and an unconfigured confidence
    # head; V must be the target head's width
    extra = {
        **markov(VT, VT),
        "mask_embedding": T("F32", (H,), np.zeros(H, np.float32)),
        "confidence_head.proj.weight": T("F32", (1, H), np.zeros((1, H), np.float32)),
    }
    trt = synth.drafter(tmp_path / "trt", vocab=VT, draft=VT, tensors=extra)
    r = inspect(trt, "trtllm-dspark", target=("--target", SMALL))
    assert sorted(codes(r, "trtllm-dspark")) == ["DSC112", "DSC605"]
    assert (
        "confidence_head.proj.weight, mask_embedding" in dict(found(r, "trtllm-dspark"))["DSC112"]
    )
    # TensorRT-LLM EAGLE-3: no d2t with V != Vd samples through an uninitialised int32 d2t
    e3 = synth.drafter(
        tmp_path / "e3",
        vocab=VT,
        draft=40,
        config=EAGLE3,
        tensors={"lm_head.weight": head(40, H, 1)},
    )
    r = inspect(e3, "trtllm-eagle3")
    [(code, message)] = found(r, "trtllm-eagle3")
    assert code == "DSC103" and "uninitialised int32 d2t" in message


def test_11_speculators_placeholder_t2d_and_the_shared_head_message(tmp_path):
    """speculators' padded EAGLE-3 ships the identity d2t and an all-False t2d: fix and
    verify use the d2t; DSC102 says what vLLM does with the target's head."""
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
    pruned = synth.drafter(
        tmp_path / "p", vocab=VT, draft=40, config=EAGLE3, tensors=pruned_map(40)
    )
    r = inspect(pruned)
    [(code, message)] = found(r, "vllm-eagle3")
    assert code == "DSC102" and "draft id i is scored with target token i's row" in message
