"""``inspect`` through the CLI: the vLLM test table, every finding code, formats, exit codes."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, cli, cli_subprocess
from synth import VT, T, backbone, drafter, head, markov, shard, sorted_mapping, target, write_json

from dspark_ckpt.profiles.registry import applicable_profiles

TABLE = FIXTURES / "vllm-table"
SMALL = FIXTURES / "targets/small"


def inspect_json(path, *extra) -> tuple[int, dict]:
    if not {"--target", "--target-vocab-size"} & set(map(str, extra)):
        extra = (*extra, "--target-vocab-size", VT)
    r = cli("inspect", path, *extra, "--format", "json")
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout)  # exactly one JSON object on stdout


def codes(report: dict) -> set[str]:
    return {f["code"] for f in report["findings"]}


# --- the cases of vLLM's tests of the Qwen3 DSpark loader, Vt = 100 ------------------
# (fixture, the error vLLM raises under each generation: None = loads)
VLLM_TABLE = [
    ("v101-d100-none", "DSC101", "DSC101"),  # must include embed_tokens
    ("v99-d99-none", "DSC102", "DSC102"),  # must include lm_head
    ("v100-d40-none", "DSC102", "DSC102"),  # must include lm_head
    ("v100-d40-lm_head", "DSC103", "DSC103"),  # must include a d2t mapping
    ("v100-d100-none", None, None),  # loads
    ("v100-d101-none", None, "DSC102"),  # loads since #55133; refused before
]
LOAD_RULES = {"DSC101", "DSC102", "DSC103", "DSC105"}


@pytest.mark.parametrize(("name", "vllm_error", "legacy_error"), VLLM_TABLE)
def test_vllm_table_verdicts(name, vllm_error, legacy_error):
    for profile, expected in (("vllm", vllm_error), ("vllm-legacy", legacy_error)):
        rc, rep = inspect_json(TABLE / name, "--target-vocab-size", "100", "--profile", profile)
        load_errors = codes(rep) & LOAD_RULES
        if expected is None:
            assert not load_errors, (name, profile, rep["findings"])
        else:
            assert expected in load_errors, (name, profile, rep["findings"])
    # the padded row loads in vLLM but runs on an uninitialised head: our extra error
    _, rep = inspect_json(TABLE / name)
    assert ("DSC104" in codes(rep)) == (name == "v100-d101-none")
    assert rep["verdicts"]["vllm"] == (name == "v100-d100-none")


def test_vllm_table_messages_match_vllm():
    _, rep = inspect_json(TABLE / "v101-d100-none")
    assert "larger than the target" in rep["findings"][0]["message"]
    _, rep = inspect_json(TABLE / "v100-d40-lm_head")
    (f,) = rep["findings"]
    assert f["code"] == "DSC103" and "Vd < Vt: 40 < 100" in f["message"]


# --- classification -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cls", "padded_rows", "expanded"),
    [
        ("pruned-eagle3", "pruned", 0, False),
        ("equal", "equal", 0, False),
        ("padded", "padded", 28, True),
        ("sharded", "padded", 28, True),
    ],
)
def test_classification(name, cls, padded_rows, expanded):
    _, rep = inspect_json(FIXTURES / name)
    assert rep["classification"] == cls
    assert rep["padded_rows"] == padded_rows
    assert rep["expanded_input_vocab"] is expanded


# fixtures/padded against targets/small, by the profiles of today's releases
PADDED_VERDICTS = {
    "vllm": True,
    "vllm-legacy": False,
    "sglang-dspark": False,  # vLLM's class name, no markov_head_type: DSC680, DSC683
    "trtllm-dspark": True,
}


def test_json_schema_fields():
    rc, rep = inspect_json(FIXTURES / "padded", "--target", SMALL)
    assert rc == 0
    assert rep["schema"] == "dspark-ckpt/inspect/v2"
    assert rep["profile"] == "vllm"
    assert rep["drafter"] == {
        "source": str(FIXTURES / "padded"),
        "architectures": ["Qwen3DSparkModel"],
        "model_type": "qwen3",
        "vocab_size": 128,
        "draft_vocab_size": 128,
        "draft_vocab_size_defaulted": False,
        "hidden_size": 8,
        "markov_rank": 4,
        "files": 1,
        "tensors": 18,
    }
    assert rep["target"] == {
        "source": str(SMALL),
        "vocab_size": 100,
        "vocab_key": "vocab_size",
        "embedding_rows": 128,
        "embedding_tensor": "lm_head.weight",
        "text_config": "",
        "hidden_size": None,
        "num_hidden_layers": None,
        "architectures": ["Qwen3ForCausalLM"],
        "tie_word_embeddings": None,
        "dtype": None,
        "quantization": None,
    }
    # no hidden size, no layers, no tokenizer files: each comparison is named, none made
    assert {(c["check"], c["result"]) for c in rep["target_checks"]} == {
        ("aux_state_width", "not checked"),
        ("aux_layer_ids", "not checked"),  # the drafter names its layers (target_layer_ids)
        ("tokenizer", "not checked"),
    }
    # every profile of the family gets a verdict (the registry's: a new release is one more)
    assert list(rep["verdicts"]) == applicable_profiles("dspark")
    assert {n: rep["verdicts"][n] for n in PADDED_VERDICTS} == PADDED_VERDICTS
    assert rep["ok"] is True
    (f,) = rep["findings"]
    assert set(f) >= {"code", "severity", "message", "tensor", "hint"}
    assert f["code"] == "DSC401" and f["severity"] == "warning" and "--emit-mask" in f["hint"]


def test_table_output_for_people():
    r = cli("inspect", FIXTURES / "padded", "--target", SMALL, "--format", "full")
    assert r.exit_code == 0
    out = r.stdout
    for text in (
        "padded",
        "Vt 100",
        "Vd 128",
        "+28 padded rows",
        "vllm: PASS",
        "vllm-legacy: FAIL",
    ):
        assert text in out, text
    assert "DSC401" in out and "deployable under vLLM 0.33.0 (vllm)" in out
    assert r.stderr == ""


def test_profile_selects_exit_code():
    assert cli("inspect", FIXTURES / "padded", "--target-vocab-size", "100").exit_code == 0
    r = cli(
        "inspect", FIXTURES / "padded", "--target-vocab-size", "100", "--profile", "vllm-legacy"
    )
    assert r.exit_code == 1
    assert "NOT deployable under vLLM 0.29 (vllm-legacy)" in r.stdout


# --- targets --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("small", "vocab_size"),
        ("vl", "text_config.vocab_size"),
        ("omni", "thinker_config.text_config.vocab_size"),
    ],
)
def test_target_vocab_resolution(name, key):
    _, rep = inspect_json(FIXTURES / "equal", "--target", FIXTURES / "targets" / name)
    assert rep["target"]["vocab_size"] == 100 and rep["target"]["vocab_key"] == key


def test_target_embedding_rows_from_weights():
    _, rep = inspect_json(FIXTURES / "padded", "--target", FIXTURES / "targets/tight")
    assert rep["target"]["embedding_rows"] == 112
    assert "DSC207" in codes(rep) and rep["ok"] is False


# --- checkpoint layouts ---------------------------------------------------------------


def test_sharded_checkpoint():
    rc, rep = inspect_json(FIXTURES / "sharded", "--target", SMALL)
    assert rc == 0 and rep["drafter"]["files"] == 3 and rep["drafter"]["tensors"] == 18
    rc2, rep2 = inspect_json(FIXTURES / "sharded/model.safetensors.index.json", "--target", SMALL)
    assert (rc2, rep2["drafter"]["files"]) == (0, 3)


def test_one_shard_of_an_indexed_checkpoint_is_a_usage_error():
    shard = FIXTURES / "sharded/model-00001-of-00003.safetensors"
    r = cli("inspect", shard, "--target-vocab-size", VT)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(f"dspark-ckpt: error: {shard}: the folder holds")
    assert r.stderr.rstrip().endswith(f"pass the folder ({shard.parent})")


def test_single_file_checkpoint():
    rc, rep = inspect_json(FIXTURES / "single-file/drafter.safetensors")
    assert rc == 0 and rep["classification"] == "equal" and rep["drafter"]["files"] == 1
    rc, rep = inspect_json(FIXTURES / "single-file")  # the only .safetensors in the folder
    assert rc == 0 and rep["drafter"]["files"] == 1


# --- every finding code -------------------------------------------------------------


def _variant(tmp: Path, *, vocab=VT, draft=VT, tensors=None, config=None) -> Path:
    return drafter(tmp / "d", vocab=vocab, draft=draft, tensors=tensors, config=config)


def _d2t(values) -> T:
    arr = np.asarray(values, dtype=np.int64)
    return T("I64", arr.shape, arr)


def _pruned(d2t_values, t2d=None, vd=4) -> dict:
    tensors = {"lm_head.weight": head(vd, 8, 1), "d2t": _d2t(d2t_values)}
    if t2d is not None:
        tensors["t2d"] = T("BOOL", (VT,), np.asarray(t2d, dtype=bool))
    return tensors


def _t2d(ids) -> np.ndarray:
    m = np.zeros(VT, dtype=bool)
    m[list(ids)] = True
    return m


CASES = {
    "DSC101": dict(vocab=101, draft=VT),
    "DSC102": dict(draft=40),
    "DSC103": dict(draft=40, tensors={"lm_head.weight": head(40, 8, 1)}),
    "DSC104": dict(draft=101, tensors={}),
    "DSC105": dict(tensors={"d2t": _d2t(np.zeros(VT))}),
    "DSC201": dict(tensors={"lm_head.weight": head(99, 8, 1)}),
    "DSC202": dict(tensors={"embed_tokens.weight": head(90, 8, 1)}),
    "DSC203": dict(tensors={"lm_head.weight": head(VT, 16, 1)}),
    "DSC204": dict(tensors=markov(90, VT), config={"markov_rank": 4}),
    "DSC205": dict(tensors=markov(VT, 90), config={"markov_rank": 4}),
    "DSC206": dict(
        draft=4, tensors={"lm_head.weight": head(4, 8, 1), "d2t": T("F32", (4,), np.zeros(4))}
    ),
    "DSC208": dict(config={"dflash_config": {"mask_token_id": 100}}),
    "DSC209": dict(draft=4, tensors={**_pruned([0, 1, 2, 3]), "model.d2t": _d2t([0, 0, 0, 0])}),
    "DSC301": dict(draft=4, tensors=_pruned([0, 1, 2, 200])),
    "DSC302": dict(draft=4, tensors=_pruned([5, 4, 3, 2])),
    "DSC303": dict(draft=4, tensors=_pruned([1, 1, 1, 1], t2d=_t2d([1, 2, 3, 4, 5]))),
    "DSC304": dict(draft=4, tensors=_pruned([9, 0, 1, 2])),
    "DSC311": dict(draft=4, tensors=_pruned([10, 20, 30, 40], t2d=_t2d([10, 20, 30, 40]))),
    "DSC313": dict(draft=4, tensors=_pruned([0, 1, 2, 3])),
    "DSC314": dict(draft=4, tensors=_pruned([1, 1, 1, 1], t2d=_t2d([1, 2, 3, 5]))),
    "DSC401": dict(draft=101, tensors={"lm_head.weight": head(101, 8, 1)}),
    "DSC501": dict(draft=None),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_every_finding_code(tmp_path, code):
    path = _variant(tmp_path, **CASES[code])
    rc, rep = inspect_json(path)
    found = {f["code"]: f for f in rep["findings"]}
    assert code in found, rep["findings"]
    f = found[code]
    assert f["message"] and f["severity"] in ("error", "warning", "info")
    assert rc == (1 if any(x["severity"] == "error" for x in rep["findings"]) else 0)
    assert rep["ok"] is (rc == 0)


def test_a_tensor_under_two_names_is_named_and_only_once(tmp_path):
    path = _variant(tmp_path, **CASES["DSC209"])
    _, rep = inspect_json(path)
    (f,) = [f for f in rep["findings"] if f["code"] == "DSC209"]
    assert f["tensor"] == "d2t" and "(d2t, model.d2t)" in f["message"]
    _, clean = inspect_json(_variant(tmp_path / "one", draft=4, tensors=_pruned([0, 1, 2, 3])))
    assert "DSC209" not in codes(clean)


def test_dsc001_unreadable_checkpoint_is_one_json_object(tmp_path):
    d = drafter(tmp_path / "d", vocab=VT, draft=VT)
    weights = d / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-3])  # truncated
    r = cli("inspect", d, "--target-vocab-size", "100", "--format", "json")
    assert r.exit_code == 1
    rep = r.json
    (f,) = rep["findings"]
    assert f["code"] == "DSC001" and "truncated" in f["message"]
    assert f["file"] == str(weights)
    assert rep["ok"] is False and not any(rep["verdicts"].values())
    assert {"vllm", "vllm-legacy"} <= set(rep["verdicts"])
    assert rep["drafter"]["source"] == str(d)


def test_dsc106_omni_target_refuses_padded_draft_vocab():
    _, rep = inspect_json(FIXTURES / "padded", "--target", FIXTURES / "targets/omni")
    assert "DSC106" in codes(rep)
    _, rep = inspect_json(FIXTURES / "padded", "--target", FIXTURES / "targets/vl")
    assert "DSC106" not in codes(rep)


def test_dsc207_draft_vocab_beyond_target_embedding():
    _, rep = inspect_json(FIXTURES / "padded", "--target", FIXTURES / "targets/tight")
    (f,) = [f for f in rep["findings"] if f["code"] == "DSC207"]
    assert "128" in f["message"] and "112" in f["message"]


def test_sorted_pruned_mapping_with_t2d_is_clean(tmp_path):
    d2t, t2d = sorted_mapping(VT, 16, seed=5)
    path = _variant(
        tmp_path,
        draft=16,
        tensors={"lm_head.weight": head(16, 8, 1), "d2t": _d2t(d2t), "t2d": T("BOOL", (VT,), t2d)},
    )
    rc, rep = inspect_json(path, "--profile", "vllm-legacy")
    assert rc == 0 and rep["findings"] == []


def test_arange_identity_is_named(tmp_path):
    # the trainer bug: an arange "identity" maps i to 2i and runs past Vt
    path = _variant(tmp_path, draft=60, tensors=_pruned(np.arange(60), vd=60))
    _, rep = inspect_json(path)
    (f,) = [f for f in rep["findings"] if f["code"] == "DSC301"]
    assert f["message"].startswith(
        "10 of 60 draft ids map outside [0, 100); first: draft id 50 -> 100"
    )
    assert "looks like arange" in f["message"]


def test_prefixed_tensor_names_are_found(tmp_path):
    path = _variant(tmp_path, draft=101, tensors={"model.lm_head.weight": head(101, 8, 1)})
    _, rep = inspect_json(path)
    assert "DSC104" not in codes(rep)


def test_pickle_only_checkpoint_refused(tmp_path):
    d = tmp_path / "d"
    write_json(d / "config.json", {"vocab_size": 100})
    (d / "pytorch_model.bin").write_bytes(b"\x80\x04K\x01.")
    rc, rep = inspect_json(d)
    assert rc == 1 and rep["findings"][0]["code"] == "DSC001"
    finding = rep["findings"][0]
    assert "never unpickled" in finding["message"]
    assert f"dspark-ckpt fix {d} --target TARGET --out {d}-safetensors" in finding["hint"]


def test_sharded_index_must_agree_with_shards(tmp_path):
    d = tmp_path / "d"
    write_json(d / "config.json", {"vocab_size": 100})
    index = shard(d, {**backbone(8), "lm_head.weight": head(VT, 8, 1)}, 2)
    data = json.loads(index.read_text())
    data["weight_map"]["ghost.weight"] = next(iter(data["weight_map"].values()))
    index.write_text(json.dumps(data))
    rc, rep = inspect_json(d)
    assert rc == 1 and "ghost.weight" in rep["findings"][0]["message"]


# --- exit code 2: usage errors ------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["inspect", "/no/such/drafter", "--target-vocab-size", "100"],
        ["inspect", str(FIXTURES / "padded")],
        ["inspect", str(FIXTURES / "padded"), "--target-vocab-size", "100", "--target", str(SMALL)],
        ["inspect", str(FIXTURES / "padded"), "--target-vocab-size", "100", "--profile", "nope"],
        ["inspect", str(FIXTURES / "padded"), "--target-vocab-size", "0"],
        ["inspect", str(FIXTURES / "padded"), "--target", "/no/such/target"],
        ["inspect", str(FIXTURES / "padded"), "--target-vocab-size", "100", "--format", "xml"],
    ],
)
def test_usage_errors_exit_2(args):
    r = cli(*args)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert "Traceback" not in r.stderr


def test_target_without_vocab_size_is_usage_error(tmp_path):
    target(tmp_path / "t", {"architectures": ["X"], "hidden_size": 8})
    r = cli("inspect", FIXTURES / "padded", "--target", tmp_path / "t")
    assert r.exit_code == 2
    assert "cannot resolve the target vocab size" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# --- a real process -------------------------------------------------------------------


def test_inspect_never_imports_torch_nor_numpy():
    p = cli_subprocess(
        "inspect",
        FIXTURES / "pruned-eagle3",
        "--target",
        SMALL,
        "--format",
        "json",
        env={"PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert p.returncode == 0, p.stderr
    imported = {
        line.split("|")[-1].strip().split(".")[0] for line in p.stderr.splitlines() if "|" in line
    }
    assert "dspark_ckpt" in imported  # the profiler saw the real imports
    # the d2t values were read (the rules check them), without numpy
    assert not {"torch", "safetensors", "numpy"} & imported


def test_console_script_and_module_agree():
    p = cli_subprocess("--version")
    assert p.returncode == 0 and p.stdout.startswith("dspark-ckpt ")


def test_inkling_sized_padded_drafter(tmp_path):
    from synth import INKLING_ET, INKLING_VD, INKLING_VT, build_inkling

    d, t = build_inkling(tmp_path)
    assert (d / "model.safetensors").stat().st_size > 25_000_000  # logical size: sparse holes
    rc, rep = inspect_json(d, "--target", t)
    assert rc == 0
    assert (
        rep["target"]["vocab_size"] == INKLING_VT and rep["target"]["embedding_rows"] == INKLING_ET
    )
    assert (
        rep["classification"] == "padded" and rep["padded_rows"] == INKLING_VD - INKLING_VT == 966
    )
    assert [f["code"] for f in rep["findings"]] == ["DSC401"]
    assert rep["verdicts"]["vllm"] is True and rep["verdicts"]["vllm-legacy"] is False


def test_committed_fixtures_match_the_generator(tmp_path):
    from synth import build_committed

    build_committed(tmp_path)
    generated = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    for rel in generated:
        assert (FIXTURES / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


def test_uninitialised_head_is_a_vllm_dspark_rule(tmp_path):
    # padded, no lm_head: vLLM DSpark runs on an uninitialised head (DSC104); TensorRT-LLM
    # always takes the target's head, so DSC104 is not its finding
    path = _variant(
        tmp_path, vocab=128, draft=128, tensors={"embed_tokens.weight": head(128, 8, 2)}
    )
    _, rep = inspect_json(path, "--profile", "vllm,vllm-legacy,trtllm-dspark")
    found = {(f["code"], f["profile"]) for f in rep["findings"]}
    assert ("DSC104", "vllm") in found
    assert ("DSC102", "vllm-legacy") in found and ("DSC104", "vllm-legacy") not in found
    assert not any(code == "DSC104" for code, p in found if p == "trtllm-dspark")
    assert rep["checks"]["DSC104"]["vllm"] == "error"
    assert not set(rep["checks"]["DSC104"]) & {"vllm-legacy", "sglang-dspark", "trtllm-dspark"}


SCHEMA = json.loads((FIXTURES.parent / "dspark_ckpt/schemas/inspect-v2.json").read_text())


@functools.cache
def schema_validator():
    """The published schema, itself checked once, as a validator (``jsonschema.validate``
    checks the schema again on every call)."""
    import jsonschema

    cls = jsonschema.validators.validator_for(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA)


@pytest.mark.parametrize(
    "drafter",
    sorted(p.parent for p in FIXTURES.rglob("config.json") if "targets" not in p.parts),
    ids=lambda p: str(p.relative_to(FIXTURES)),
)
def test_json_output_follows_the_published_schema(drafter):
    for tgt in (["--target", FIXTURES / "targets/small"], ["--target-vocab-size", "100"]):
        _, rep = inspect_json(drafter, *tgt, "--profile", "all")
        schema_validator().validate(rep)


def test_unreadable_report_follows_the_published_schema(tmp_path):
    import jsonschema

    d = drafter(tmp_path / "d", vocab=VT, draft=VT)
    (d / "config.json").write_text("{")
    _, rep = inspect_json(d)
    schema_validator().validate(rep)
    with pytest.raises(jsonschema.ValidationError):  # the schema does reject a broken report
        schema_validator().validate({**rep, "ok": "no"})


def test_without_an_index_every_safetensors_file_is_loaded(tmp_path):
    """vLLM's loader reads every *.safetensors of a folder that has no index: a stray d2t
    file beside model.safetensors is part of the checkpoint (and breaks a padded one)."""
    import shutil

    from synth import write_safetensors

    d = tmp_path / "padded"
    shutil.copytree(FIXTURES / "padded", d)
    write_safetensors(d / "d2t.safetensors", {"d2t": _d2t(np.zeros(128))})
    rc, rep = inspect_json(d)
    assert rep["drafter"]["files"] == 2 and rep["drafter"]["tensors"] == 19
    assert rc == 1 and "DSC105" in codes(rep)


def test_the_mask_token_the_runtime_reads_is_checked(tmp_path):
    """vLLM reads dflash_config.mask_token_id before the top-level one: that id is checked."""
    config = {"mask_token_id": 5, "dflash_config": {"mask_token_id": 200, "noise_token_id": 99}}
    _, rep = inspect_json(_variant(tmp_path, config=config))
    found = [f for f in rep["findings"] if f["code"] == "DSC208"]
    assert [f["tensor"] for f in found] == ["dflash_config.mask_token_id"]
    assert found[0]["message"].startswith(
        "dflash_config.mask_token_id 200 (the mask id vLLM reads) is outside the input vocab "
        "[0, 100)"
    )


def test_unreadable_target_weights_still_report_the_drafter(tmp_path):
    target = tmp_path / "target"
    shutil.copytree(FIXTURES / "targets/small", target)
    (target / "lm_head.safetensors").write_bytes(b"garbage!")
    rc, rep = inspect_json(FIXTURES / "padded", "--target", target)
    assert rc == 1 and [f["code"] for f in rep["findings"]] == ["DSC001"]
    assert rep["findings"][0]["file"] == str(target / "lm_head.safetensors")
    assert rep["drafter"]["vocab_size"] == 128 and rep["drafter"]["markov_rank"] == 4


def test_missing_d2t_hint_on_a_padded_drafter_names_the_trade_off():
    _, rep = inspect_json(FIXTURES / "padded", "--profile", "vllm-legacy")
    (f,) = [f for f in rep["findings"] if f["code"] == "DSC103"]
    # fix trims the padding first (then Vd == Vt: vLLM 0.29 needs no d2t); --emit-d2t's
    # identity d2t [Vd] is the other way, refused where no d2t parameter is made
    assert f["hint"].startswith(
        "trim the padding: `dspark-ckpt fix DRAFTER --target T --out DIR` cuts Vd to Vt first"
    )
    assert (
        "`dspark-ckpt fix DRAFTER --target T --emit-d2t` writes the identity d2t [Vd]" in f["hint"]
    )
    assert "DSC105" in f["hint"]


def test_unreadable_weights_still_report_the_config(tmp_path):
    d = drafter(tmp_path / "d", vocab=128, draft=128)
    (d / "model.safetensors").write_bytes(b"\x00" * 7)
    rc, rep = inspect_json(d)
    assert rc == 1 and [f["code"] for f in rep["findings"]] == ["DSC001"]
    assert rep["drafter"]["vocab_size"] == rep["drafter"]["draft_vocab_size"] == 128
    assert rep["drafter"]["architectures"] == ["Qwen3DSparkModel"]
    assert rep["classification"] == "padded" and rep["padded_rows"] == 28
    assert rep["ok"] is False and not any(rep["verdicts"].values())


@pytest.mark.parametrize(("selected", "derivable"), [(32, True), (35, False)])
def test_t2d_without_d2t(tmp_path, selected, derivable):
    """A pruned drafter with t2d and no d2t: DSC103 points at fix --emit-d2t only when
    t2d selects exactly Vd ids; otherwise t2d itself is reported (DSC303)."""
    _, t2d = sorted_mapping(VT, selected, seed=2)
    path = _variant(
        tmp_path, draft=32, tensors={"lm_head.weight": head(32, 8, 1), "t2d": T("BOOL", (VT,), t2d)}
    )
    _, rep = inspect_json(path)
    found = {f["code"]: f for f in rep["findings"]}
    hint = found["DSC103"]["hint"]
    assert ("derives d2t from the t2d" in hint) is derivable
    assert ("`dspark-ckpt fix DRAFTER --target T --emit-d2t` refuses" in hint) is not derivable
    out = tmp_path / "d2t.safetensors"
    fixed = cli(
        "fix", path, "--target-vocab-size", VT, "--emit-d2t", "--d2t-path", out, "--format", "json"
    )
    assert (
        "error" in fixed.json
    ) is not derivable and out.exists() is derivable  # as the hint says
    assert ("DSC303" in found) is not derivable
    if not derivable:
        assert found["DSC303"]["message"].startswith("t2d selects 35 target ids; Vd is 32")


def test_a_folder_without_weights_is_told_where_to_point(tmp_path):
    """A folder with a config and no weights: the hint says to point at the weights, not
    to re-export a checkpoint that may well be fine elsewhere."""
    (tmp_path / "config.json").write_text("{}")
    r = cli("inspect", tmp_path, "--target", FIXTURES / "targets/small", "--format", "json")
    assert r.exit_code == 1
    (finding,) = r.json["findings"]
    assert finding["code"] == "DSC001" and "re-export" not in finding["hint"]
    assert finding["hint"].startswith("point at the folder that holds the drafter's weights")
    assert r.stderr.endswith(
        "; point at the folder that holds the drafter's weights (a "
        ".safetensors file, or an index and its shards)\n"
    )
