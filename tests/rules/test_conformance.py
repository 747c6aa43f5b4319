"""Conformance: real drafters (the SpecForge configs of fixtures/real-configs, with the
tensors SpecForge writes, header-true and sparse) against the targets they were trained
for, under every profile of their family, through the real CLI.

Each expectation is what the runtime release the profile mirrors does with exactly this
checkpoint; the ``why`` of each row says which of its behaviours decides (the profiles in
dspark_ckpt/profiles/ cite the runtime source lines). A row is (drafter, profile,
deployable, error codes that must be among the findings, why).
"""

from __future__ import annotations

import pytest
from conformance import TARGET_OF, build_real, build_target, real_config_names
from conftest import cli, cli_subprocess
from synth import T

EAGLE3_PRUNED = [
    "specforge-llama3.1-8b-eagle3",
    "specforge-qwen3-8b-eagle3",
    "specforge-gpt-oss-20b-eagle3",
    "specforge-gpt-oss-120b-eagle3",
]
LONGCAT = "specforge-longcat-flash-eagle3"
DFLASH = "specforge-qwen3-8b-dflash"
QWEN_DSPARK = "specforge-qwen3-8b-dspark"
INKLING = "specforge-inkling-dspark"

# checkpoints derived from a real one: name -> (real config, build_real keyword arguments)
NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}
VARIANTS = {
    # SpecForge's export without its d2t (a pruned drafter that lost its map)
    "qwen3-8b-eagle3-no-d2t": ("specforge-qwen3-8b-eagle3", {"drop": ("d2t",)}),
    # ... and without its lm_head (a pruned drafter whose head was dropped as "the target's")
    "qwen3-8b-eagle3-no-lm_head": ("specforge-qwen3-8b-eagle3", {"drop": ("lm_head.weight",)}),
    # the same map stored as int32: vLLM's weight loader copies it into its int64 parameter,
    # SGLang adds it to an int64 arange (DSC305, a warning)
    "qwen3-8b-eagle3-int32-d2t": ("specforge-qwen3-8b-eagle3", {"dtypes": {"d2t": "I32"}}),
    # a ModelOpt NVFP4 head: packed U8 [Vd, H/2] with its scales and a quantization_config
    "qwen3-8b-eagle3-nvfp4-head": (
        "specforge-qwen3-8b-eagle3",
        {
            "drop": ("lm_head.weight",),
            "add": {
                "lm_head.weight": T("U8", (32000, 2048)),
                "lm_head.weight_scale": T("F8_E4M3", (32000, 256)),
                "lm_head.weight_scale_2": T("F32", ()),
            },
            "config": {"quantization_config": NVFP4},
        },
    ),
    # SpecForge's midlayer takes [embedding, hidden state] into q/k/v ([*, 2H]); stored [*, H],
    # split or fused, it is a drafter the EAGLE-3 loaders refuse (DSC113)
    "llama3.1-8b-eagle3-q-of-hidden-width": (
        "specforge-llama3.1-8b-eagle3",
        {"add": {"midlayer.self_attn.q_proj.weight": T("F16", (4096, 4096))}},
    ),
    "qwen3-8b-eagle3-fused-qkv-of-hidden-width": (
        "specforge-qwen3-8b-eagle3",
        {
            "drop": tuple(f"midlayer.self_attn.{n}_proj.weight" for n in "qkv"),
            "add": {"midlayer.self_attn.qkv_proj.weight": T("BF16", (6144, 4096))},
        },
    ),
    # the DSpark configs after SpecForge's serving script (keys at the top level)
    "qwen3-8b-dspark-serving": (QWEN_DSPARK, {"serving": True}),
    "inkling-dspark-serving": (INKLING, {"serving": True}),
    # the served Qwen3 DSpark with the target's embedding under a wrapper prefix
    "qwen3-8b-dspark-serving-prefixed-embed": (
        QWEN_DSPARK,
        {"serving": True, "add": {"model.embed_tokens.weight": T("BF16", (151936, 4096))}},
    ),
}

# (drafter variant, profile, deployable, error codes among the findings, why: the runtime's
# behaviour that decides)
# SpecForge's gpt-oss EAGLE-3 configs name their aux layers in eagle_config only, for SGLang
# (captured at id + 1: [1, 11, 21] -> layers 2, 12, 22 of 24); vLLM's Model Runner V2 never
# reads that key and feeds its default (2, N // 2, N - 3): layers 2, 12, 21 of gpt-oss-20b,
# 2, 18, 33 of gpt-oss-120b (trained on 2, 18, 34)
GPT_OSS = {"specforge-gpt-oss-20b-eagle3", "specforge-gpt-oss-120b-eagle3"}
VLLM_AUX_WHY = (
    "vLLM 0.33.0 runs Model Runner V2, which 'never reads "
    "eagle_config.eagle_aux_hidden_state_layer_ids' and without ids 'uses the target's "
    "default (2, N // 2, N - 3)': one of the three layers is not the one the drafter was "
    "trained on ('other layers than trained, no error')"
)
# TensorRT-LLM reads no aux ids from the drafter: without the serving config's
# eagle3_layers_to_capture it captures the outputs of (1, N // 2 - 1, N - 4) (speculative/
# eagle3.py): (1, 11, 20) of gpt-oss-20b, (1, 17, 32) of gpt-oss-120b, one layer below the
# trained (1, 11, 21) and (1, 17, 33)
TRT_AUX_WHY = (
    "TensorRT-LLM's default capture '(1, num_layers // 2 - 1, num_layers - 4)' is not the "
    "layers SpecForge trained on, and it reads no drafter key ('other layers than trained, no "
    "error')"
)

EXPECTED = [
    *[
        row
        for name in EAGLE3_PRUNED
        for row in [
            (
                name,
                "vllm-eagle3",
                name not in GPT_OSS,
                ("DSC651",) if name in GPT_OSS else (),
                VLLM_AUX_WHY
                if name in GPT_OSS
                else "pruned, ships lm_head [Vd, H] and d2t: "
                "'draft_id_to_target_id exists only when Vd != Vt' (it does here) and "
                "compute_logits scatters into a V-wide row at arange(Vd) + d2t, all < V = Vt; "
                "no aux ids: V2's default (2, N // 2, N - 3) is SpecForge's default + 1",
            ),
            (
                name,
                "vllm-eagle3-legacy",
                name not in GPT_OSS,
                ("DSC651",) if name in GPT_OSS else (),
                VLLM_AUX_WHY
                if name in GPT_OSS
                else "before PR #53458 'the parameter always existed': d2t loads",
            ),
            (
                name,
                "sglang-eagle3",
                True,
                (),
                "SGLang: 'd2t becomes hot_token_id'; the "
                "LlamaForCausalLMEagle3 config format is the one it reads; draft_vocab_size set "
                "and lm_head shipped (no DSC601)",
            ),
            (
                name,
                "trtllm-eagle3",
                name not in GPT_OSS,
                ("DSC651",) if name in GPT_OSS else (),
                TRT_AUX_WHY
                if name in GPT_OSS
                else "TensorRT-LLM EAGLE-3 creates d2t [Vd] 'when "
                "V != Vd' and the checkpoint fills it; t2d: 'every runtime skips it'",
            ),
        ]
    ],
    (
        LONGCAT,
        "vllm-eagle3",
        False,
        ("DSC105", "DSC705"),
        "vLLM EAGLE-3: 'an equal-vocab checkpoint "
        "that ships d2t (SpecForge always writes one, zeros, plus an all-True t2d) fails to "
        "load in 0.33.0'; and the target: vLLM 0.33.0's LongcatFlashForCausalLM "
        "(longcat_flash.py:551) does not implement SupportsEagle3",
    ),
    (
        LONGCAT,
        "vllm-eagle3-legacy",
        False,
        ("DSC705",),
        "before PR #53458 the parameter always existed: the zero d2t loads (no DSC105); the "
        "target still gives no aux hidden states (longcat_flash.py:551, no SupportsEagle3)",
    ),
    (
        LONGCAT,
        "sglang-eagle3",
        True,
        (),
        "SGLang: hot_token_id = d2t + arange, the identity for a zero d2t",
    ),
    # SpecForge's SGLang export without d2t (a pruned drafter that lost its map)
    (
        "qwen3-8b-eagle3-no-d2t",
        "vllm-eagle3",
        False,
        ("DSC103",),
        "vLLM EAGLE-3: 'a missing d2t stays all zeros': draft id i is proposed as target id i "
        "(Gaps: 'absent, so a runtime silently maps draft id i to target id i')",
    ),
    (
        "qwen3-8b-eagle3-no-d2t",
        "trtllm-eagle3",
        False,
        ("DSC103",),
        "TensorRT-LLM EAGLE-3: d2t is an int32 [Vd] parameter made with torch.empty when "
        "V != Vd, and its weight loader requires every parameter ('assert n in module_weights'): "
        "a checkpoint without it is refused at load",
    ),
    (
        "qwen3-8b-eagle3-no-lm_head",
        "vllm-eagle3",
        False,
        ("DSC102",),
        "vLLM EAGLE-3 shares the target's head when none is shipped (eagle/utils.py:107-119) "
        "and keeps its first Vd logits: draft id i is scored as target token i",
    ),
    (
        "qwen3-8b-eagle3-no-lm_head",
        "trtllm-eagle3",
        False,
        ("DSC102",),
        "TensorRT-LLM EAGLE-3: no name holds 'lm_head', so load_weights_from_target_model "
        "takes the target's head (Vt rows) for a drafter whose d2t has Vd = 32000 entries",
    ),
    (
        "qwen3-8b-eagle3-no-lm_head",
        "sglang-eagle3",
        False,
        ("DSC601",),
        "SGLang EAGLE-3 with an explicit draft_vocab_size builds its own head and nothing "
        "loads it (llama_eagle3.py:302-311; eagle_worker_v2.py:363 replaces the embedding only)",
    ),
    (
        DFLASH,
        "vllm-dflash",
        True,
        (),
        "Vd = V = Vt (no draft_vocab_size), no lm_head: shared "
        "from the target; mask id 151669 read from dflash_config.mask_token_id and in [0, V); "
        "fc [H, 5H] for the 5 nested target_layer_ids",
    ),
    (
        DFLASH,
        "trtllm-dflash",
        True,
        (),
        "TensorRT-LLM DFlash (modeling_dflash.py): mask id and target_layer_ids from "
        "dflash_config, fc built from the shipped fc.weight, embed_tokens and lm_head the "
        "target's",
    ),
    (
        DFLASH,
        "sglang-dflash",
        True,
        (),
        "SGLang DFlash: 'lm_head and embed_tokens are "
        "skipped and the target's used; d2t/t2d ignored'",
    ),
    *[
        (
            QWEN_DSPARK,
            profile,
            False,
            ("DSC107",),
            "'A DSpark config with markov_rank only "
            "nested fails to build in vLLM' (config.markov_rank, qwen3_dspark.py:212,224; "
            "'SGLang and TensorRT-LLM alike')",
        )
        for profile in ("vllm", "vllm-legacy", "sglang-dspark", "trtllm-dspark-legacy")
    ],
    # the same SpecForge drafter under the later main's standalone route: which route a drafter
    # takes decides what it needs
    (
        QWEN_DSPARK,
        "trtllm-dspark",
        True,
        (),
        "TensorRT-LLM's later main sends a standalone DSpark drafter to GQADSparkForCausalLM "
        "(modeling_dspark.py @008b54fe), which resolves markov_rank and markov_head_type in "
        "dflash_config too (resolve_dspark_head_config), takes the Markov head [V, r] and loads "
        "the confidence head as given",
    ),
    (
        "qwen3-8b-dspark-serving",
        "trtllm-dspark",
        True,
        (),
        "GQADSparkForCausalLM: top-level keys read as well; a vanilla head [V, r]",
    ),
    (
        "qwen3-8b-dspark-serving",
        "vllm",
        True,
        (),
        "keys at the top level; Vd = V = Vt: no "
        "lm_head, d2t or embed_tokens required (rules 1-3), markov_w2 [Vd, r] = [V, r]; "
        "mask id in [0, V)",
    ),
    (
        "qwen3-8b-dspark-serving",
        "vllm-legacy",
        True,
        (),
        "Vd == Vt: not reduced under the legacy != rule either",
    ),
    (
        "qwen3-8b-dspark-serving",
        "sglang-dspark",
        True,
        (),
        "SGLang: head and embedding from "
        "the target; markov_w1 and markov_w2 both [V, r] as asserted",
    ),
    (
        "qwen3-8b-dspark-serving",
        "trtllm-dspark-legacy",
        True,
        (),
        "TensorRT-LLM: top-level "
        "target_layer_ids and markov_rank, the confidence head configured, no d2t/t2d/"
        "mask_embedding, Markov [V, r], V = the target's logit width (151936)",
    ),
    (
        INKLING,
        "vllm",
        False,
        ("DSC101", "DSC104", "DSC107"),
        "V 201024 > Vt 200058 and no "
        "embed_tokens: rule 1 ('must include embed_tokens'); padded without lm_head: 'the head "
        "stays uninitialised memory'; markov_rank only nested",
    ),
    (
        INKLING,
        "vllm-legacy",
        False,
        ("DSC101", "DSC102", "DSC103"),
        "before #55133 rules 2-4 used Vd != Vt: a padded drafter needs lm_head and d2t",
    ),
    (
        INKLING,
        "sglang-dspark",
        False,
        ("DSC107",),
        "markov_rank only nested (getattr(config, 'markov_rank'))",
    ),
    (
        INKLING,
        "trtllm-dspark-legacy",
        False,
        ("DSC107",),
        "TensorRT-LLM needs top-level target_layer_ids and markov_rank",
    ),
    (
        "inkling-dspark-serving",
        "vllm",
        False,
        ("DSC101", "DSC104"),
        "rule 1 and the padded head without lm_head, whatever the config keys",
    ),
    (
        "inkling-dspark-serving",
        "sglang-dspark",
        True,
        (),
        "SGLang uses the target's head "
        "(201024 rows) and embedding; Markov [V, r] = [201024, r]; mask id 200064 < V",
    ),
    (
        "inkling-dspark-serving",
        "trtllm-dspark-legacy",
        True,
        (),
        "TensorRT-LLM: V 201024 equals the "
        "target's logit width (its head's rows, Et 201024); strict load finds every name",
    ),
    (
        "qwen3-8b-eagle3-int32-d2t",
        "vllm-eagle3",
        True,
        (),
        "d2t: 'int32 is converted on load by vLLM's weight loader ... a warning, not an error'",
    ),
    (
        "qwen3-8b-eagle3-int32-d2t",
        "sglang-eagle3",
        True,
        (),
        "d2t: int32 is 'used as is by SGLang: a warning, not an error'",
    ),
    (
        "qwen3-8b-dspark-serving-prefixed-embed",
        "vllm",
        False,
        ("DSC111",),
        "'vLLM DSpark prefixes every name except lm_head and d2t with model.: a checkpoint "
        "that stores ... model.embed_tokens.weight fails to load'",
    ),
    (
        "qwen3-8b-dspark-serving-prefixed-embed",
        "trtllm-dspark-legacy",
        False,
        ("DSC111",),
        "'TensorRT-LLM's load_state_dict(strict=True) rejects them too' (it skips only names "
        "starting with embed_tokens.)",
    ),
]


def _variant(key: str) -> tuple[str, dict]:
    """(real config name, build_real keyword arguments) of an EXPECTED drafter."""
    return VARIANTS.get(key, (key, {}))


def _id(row) -> str:
    return f"{row[0].removeprefix('specforge-')}@{row[1]}"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every drafter variant of EXPECTED and every target, built once (sparse)."""
    out = tmp_path_factory.mktemp("real")
    targets = {t: build_target(t, out / "targets") for t in set(TARGET_OF.values())}
    drafters = {}
    for key in {row[0] for row in EXPECTED} | set(VARIANTS):
        name, kw = _variant(key)
        drafters[key] = (build_real(name, out / key, **kw), targets[TARGET_OF[name]])
    return drafters


def errors_under(report: dict, profile: str) -> set[str]:
    """The error codes of the findings that count under ``profile`` (common + its own)."""
    return {
        f["code"]
        for f in report["findings"]
        if f["severity"] == "error" and f.get("profile") in (None, profile)
    }


def test_every_real_config_is_covered():
    """Each real config (and each of its family's profiles) has an expectation."""
    covered = {_variant(row[0])[0] for row in EXPECTED}
    assert covered == set(real_config_names())
    assert set(TARGET_OF) == set(real_config_names())


@pytest.mark.parametrize("row", EXPECTED, ids=_id)
def test_real_drafter_verdict(built, row):
    key, profile, deployable, codes, why = row
    drafter, target = built[key]
    r = cli("inspect", drafter, "--target", target, "--profile", profile, "--format", "json")
    assert r.exit_code == (0 if deployable else 1), (why, r.stdout[-3000:], r.stderr)
    report = r.json
    found = errors_under(report, profile)
    assert report["ok"] is deployable, (why, found)
    if deployable:
        assert not found, (why, found)
    else:
        assert set(codes) <= found, (why, found)


def test_longcat_zero_d2t_loads_before_pr_53458(built):
    """The zero d2t of the full-vocab LongCat drafter fails vLLM 0.33.0 (DSC105) but not
    the generation before PR #53458 ('before it the parameter always existed')."""
    drafter, target = built[LONGCAT]
    for profile, refused in (("vllm-eagle3", True), ("vllm-eagle3-legacy", False)):
        r = cli("inspect", drafter, "--target", target, "--profile", profile, "--format", "json")
        assert ("DSC105" in errors_under(r.json, profile)) is refused, (profile, r.stdout[-2000:])


def test_quantised_head_is_no_hidden_size_mismatch(built):
    """A ModelOpt NVFP4 head (packed U8 [Vd, H/2] with weight_scale tensors and a
    quantization_config) is not a hidden-size mismatch: NVFP4 stores two columns in each
    U8, so the packed head is H/2 wide and holds H columns."""
    drafter, target = built["qwen3-8b-eagle3-nvfp4-head"]
    r = cli("inspect", drafter, "--target", target, "--profile", "vllm-eagle3", "--format", "json")
    codes = {f["code"] for f in r.json["findings"] if f["severity"] == "error"}
    assert not codes & {"DSC001", "DSC201", "DSC203"}, r.stdout[-3000:]


def test_real_checkpoints_are_valid_safetensors(built):
    """The sparse builds are what the safetensors library itself reads: header-true,
    every tensor at its offsets, d2t/t2d with their values."""
    from safetensors import safe_open

    drafter, _ = built["specforge-qwen3-8b-eagle3"]
    with safe_open(drafter / "model.safetensors", framework="numpy") as f:
        d2t = f.get_tensor("d2t")
        t2d = f.get_tensor("t2d")
        assert f.get_slice("fc.weight").get_shape() == [4096, 12288]
    assert d2t.shape == (32000,) and t2d.sum() == 32000
    assert (t2d.nonzero()[0] == d2t + range(32000)).all()


def test_real_drafter_through_the_process(built):
    """One pair through ``python -m dspark_ckpt`` as a real process: the same verdict."""
    drafter, target = built["inkling-dspark-serving"]
    p = cli_subprocess("inspect", drafter, "--target", target, "--profile", "vllm")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "DSC101" in p.stdout


@pytest.mark.parametrize("profile", ["vllm-eagle3", "sglang-eagle3"])
def test_a_first_layer_qkv_of_hidden_width_fails_the_eagle3_load(built, profile):
    """The real EAGLE-3 drafters store midlayer q/k/v [heads x head_dim, 2H] (the embedding
    and the hidden state concatenated: llama_eagle3.py's qkv_input_size), and pass
    (test_real_drafter_verdict). One q_proj [4096, 4096], or q/k/v fused into a qkv_proj
    [6144, 4096], fails vLLM's and SGLang's weight loaders, which assert each shard's width."""
    cases = (
        ("llama3.1-8b-eagle3-q-of-hidden-width", "q_proj.weight is [4096, 4096]", "[4096, 8192]"),
        (
            "qwen3-8b-eagle3-fused-qkv-of-hidden-width",
            "qkv_proj.weight is [6144, 4096]",
            "[6144, 8192]",
        ),
    )
    for key, stored, builds in cases:
        drafter, target = built[key]
        r = cli("inspect", drafter, "--target", target, "--profile", profile, "--format", "json")
        assert r.exit_code == 1, r.stdout[-3000:]
        found = [f["message"] for f in r.json["findings"] if f["code"] == "DSC113"]
        assert len(found) == 1, r.stdout[-3000:]
        assert f"midlayer.self_attn.{stored}; {profile} builds it {builds}" in found[0]
