"""``fix`` without ``--emit-*``: the repairs of what ``inspect`` finds, as a plan, through
the real CLI on real safetensors files: the plan (``--diff``), the bytes written, the
verdicts after, values the tool cannot know (``--set``), unsafe repairs, conflicts."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import FIXTURES, cli
from output.test_schemas import follows
from safetensors.numpy import load_file
from synth import VT, H, T

PADDED, SMALL = FIXTURES / "padded", FIXTURES / "targets/small"

# TensorRT-LLM's Qwen3 DSpark route (an earlier main): its load is strict
TRT_QWEN3 = "trtllm-dspark-legacy"


def tensors(folder: Path) -> dict[str, np.ndarray]:
    out = {}
    for f in sorted(folder.glob("*.safetensors")):
        out.update(load_file(f))
    return out


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_diff_shows_the_plan_and_writes_nothing(cwd):
    r = cli("fix", PADDED, "--target", SMALL, "--diff")
    assert r.exit_code == 1  # a change to make, as ruff --diff
    assert "DSC401 safe: trim the 28 padded rows [100, 128)" in r.stdout
    assert "- lm_head.weight F32 [128, 8] (model.safetensors)" in r.stdout
    assert "+ lm_head.weight F32 [100, 8] (model.safetensors)" in r.stdout
    assert "+ config.json draft_vocab_size: 100" in r.stdout
    assert "nothing written" in r.stdout.splitlines()[-1]
    assert files(cwd) == []
    obj = cli("fix", PADDED, "--target", SMALL, "--diff", "--format", "json").json
    follows("fix-v1", obj)
    plan = obj["plan"]
    assert obj["mode"] == "repair" and plan["written"] is False and obj["files"] == []
    assert [(t["name"], t["action"]) for t in plan["tensors"]] == [
        ("lm_head.weight", "cut"),
        ("markov_head.markov_w2.weight", "cut"),
    ]
    assert plan["repairs"] == [
        {
            "code": "DSC401",
            "profiles": [],
            "repair": "trim-padding",
            "safety": "safe",
            "summary": plan["repairs"][0]["summary"],
        }
    ]


def test_out_trims_the_padding_and_keeps_every_other_byte(cwd):
    r = cli("fix", PADDED, "--target", SMALL, "--out", "fixed", "--format", "json")
    assert r.exit_code == 0, r.stderr
    follows("fix-v1", r.json)
    assert r.json["verdicts_before"]["vllm"] is True and r.json["verdicts_after"]["vllm"] is True
    assert r.json["verdicts_after"]["vllm-legacy"] is True  # no d2t needed: Vd == Vt now
    src, out = tensors(PADDED), tensors(cwd / "fixed")
    assert set(src) == set(out)
    for name in ("lm_head.weight", "markov_head.markov_w2.weight"):
        assert np.array_equal(out[name], src[name][:VT])  # the source's first Vt rows
    for name in set(src) - {"lm_head.weight", "markov_head.markov_w2.weight"}:
        assert out[name].tobytes() == src[name].tobytes(), name
    cfg, before = (json.loads((d / "config.json").read_text()) for d in (cwd / "fixed", PADDED))
    assert cfg == {**before, "draft_vocab_size": VT}
    # the result inspects as the plan said, with nothing left to repair
    after = cli("inspect", cwd / "fixed", "--target", SMALL, "--format", "json").json
    assert after["classification"] == "equal" and after["ok"]
    assert cli("fix", cwd / "fixed", "--target", SMALL, "--diff").exit_code == 0


@pytest.mark.parametrize(
    ("mask", "inputs_cut"),
    [(0, True), (VT - 1, True), (VT, False), (127, False), (-1, False)],
)
def test_trim_padding_cuts_the_input_side_only_where_no_mask_id_is_in_the_padding(
    cwd, mask, inputs_cut
):
    """V == Vd == 128 over Vt 100: the input side (markov_w1 [V, r], vocab_size) is cut to Vt
    with the output side only while every mask token id is a row it keeps, [0, Vt)."""
    src = synth.drafter(cwd / "d", vocab=128, draft=128, config={"mask_token_id": mask})
    r = cli("fix", src, "--target", SMALL, "--diff", "--format", "json")
    plan = r.json["plan"]
    assert [a["repair"] for a in plan["repairs"] if a["code"] == "DSC401"] == ["trim-padding"]
    cut = {t["name"] for t in plan["tensors"] if t["action"] == "cut"}
    assert "markov_head.markov_w2.weight" in cut  # the output side, always
    assert ("markov_head.markov_w1.weight" in cut) is inputs_cut  # [V, r]: the input side
    summary = next(a["summary"] for a in plan["repairs"] if a["repair"] == "trim-padding")
    assert ("vocab_size 100" in summary.replace("draft_vocab_size", "")) is inputs_cut


def test_an_unchanged_shard_is_linked_and_a_changed_one_rewritten(cwd):
    drafter = synth.drafter(cwd / "sharded", vocab=128, draft=128, config={"mask_token_id": 5})
    tensors_now = load_file(drafter / "model.safetensors")
    (drafter / "model.safetensors").unlink()
    heads = {k: v for k, v in tensors_now.items() if k.startswith(("lm_head", "markov"))}
    rest = {k: v for k, v in tensors_now.items() if k not in heads}
    rest["lm_head.weight"] = np.zeros((128, H), dtype=np.float32)
    heads.pop("lm_head.weight", None)
    from safetensors.numpy import save_file

    save_file(rest, str(drafter / "model-00001-of-00002.safetensors"))
    save_file(heads, str(drafter / "model-00002-of-00002.safetensors"))
    index = {"weight_map": {k: "model-00001-of-00002.safetensors" for k in rest}}
    index["weight_map"].update({k: "model-00002-of-00002.safetensors" for k in heads})
    (drafter / "model.safetensors.index.json").write_text(json.dumps(index))
    r = cli("fix", drafter, "--target", SMALL, "--out", "fixed")
    assert r.exit_code == 0, r.stdout + r.stderr
    first, second = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    assert (cwd / "fixed" / first).stat().st_ino != (drafter / first).stat().st_ino  # cut
    assert (cwd / "fixed" / second).read_bytes() != (drafter / second).read_bytes()
    got = json.loads((cwd / "fixed/model.safetensors.index.json").read_text())["weight_map"]
    assert got == index["weight_map"]


def test_in_place_needs_force_and_leaves_no_temporary_file(tmp_path):
    drafter = tmp_path / "padded"
    shutil.copytree(PADDED, drafter)
    before = {p.name: p.read_bytes() for p in drafter.iterdir()}
    r = cli("fix", drafter, "--target", SMALL, "--in-place")
    assert r.exit_code == 2 and "--force" in r.stderr
    assert {p.name: p.read_bytes() for p in drafter.iterdir()} == before
    r = cli("fix", drafter, "--target", SMALL, "--in-place", "--force")
    assert r.exit_code == 0, r.stderr
    assert files(drafter) == sorted(before)  # no .tmp or .bak left, nothing added
    assert load_file(drafter / "model.safetensors")["lm_head.weight"].shape == (VT, 8)


def test_inspect_marks_and_counts_what_fix_repairs():
    table = cli("inspect", PADDED, "--target", SMALL, "--format", "full").stdout
    assert "│ DSC401 * │" in table
    concise = cli("inspect", PADDED, "--target", SMALL).stdout
    assert "DSC401 * lm_head.weight:" in concise and "1 of 1 fixable (*)" in concise
    assert "fix repairs 1 of 1 warning(s) under vllm (*)" in table
    obj = cli("inspect", PADDED, "--target", SMALL, "--format", "json").json
    (dsc401,) = [f for f in obj["findings"] if f["code"] == "DSC401"]
    assert dsc401["repair"] == "safe"
    equal = cli("inspect", FIXTURES / "equal", "--target", SMALL).stdout
    assert "fix repairs" not in equal


def test_a_config_that_is_no_object_is_refused_before_any_plan(cwd):
    src = synth.drafter(cwd / "d", vocab=VT, draft=VT)
    (src / "config.json").write_text("[]")
    r = cli("fix", src, "--target", SMALL, "--diff", "--format", "json")
    assert r.exit_code == 1 and "plan" not in r.json
    assert r.json["error"] == {
        "kind": "checkpoint",
        "file": str(src / "config.json"),
        "message": "config is not a JSON object",
    }


def test_nothing_to_repair_is_said_and_exits_by_the_verdict(cwd):
    r = cli("fix", FIXTURES / "equal", "--target", SMALL, "--diff")
    assert r.exit_code == 0 and "nothing to repair" in r.stdout
    r = cli("fix", FIXTURES / "equal", "--target", SMALL, "--out", "x")
    assert r.exit_code == 0 and not (cwd / "x").exists()


DFLASH = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3", "mask_token_id": None}


def test_a_value_the_tool_cannot_know_is_asked_for_and_then_checked(cwd):
    drafter = synth.drafter(cwd / "dflash", vocab=VT, draft=VT, config=DFLASH)
    r = cli("fix", drafter, "--target", SMALL, "--out", "out")
    assert r.exit_code == 1 and not (cwd / "out").exists()
    assert "DSC109 needs dflash_config.mask_token_id" in r.stderr
    assert "--set dflash_config.mask_token_id=VALUE" in r.stderr
    bad = cli("fix", drafter, "--target", SMALL, "--out", "out", "--set", "mask_token_id=500")
    assert bad.exit_code == 1 and not (cwd / "out").exists()  # outside [0, V)
    assert "the change (--set mask_token_id) brings DSC208" in bad.stderr
    ok = cli(
        "fix", drafter, "--target", SMALL, "--out", "out", "--set", "dflash_config.mask_token_id=7"
    )
    assert ok.exit_code == 0, ok.stdout + ok.stderr
    assert json.loads((cwd / "out/config.json").read_text())["dflash_config"] == {
        "mask_token_id": 7
    }
    assert cli("fix", drafter, "--target", SMALL, "--diff", "--set", "nope").exit_code == 2


def test_an_unsafe_repair_needs_the_flag(cwd):
    drafter = synth.drafter(
        cwd / "extra",
        vocab=VT,
        draft=VT,
        config={"markov_head_type": "vanilla"},
        tensors={"mask_embedding": T("F32", (H,))},
    )
    # the strict load of the Qwen3 DSpark route (DSC112 for mask_embedding)
    args = ["fix", drafter, "--target", SMALL, "--profile", TRT_QWEN3, "--diff"]
    safe = cli(*args, "--format", "json").json["plan"]
    assert not any(t["name"] == "mask_embedding" for t in safe["tensors"])
    assert any(x["code"] == "DSC112" and "--unsafe-fixes" in x["why"] for x in safe["left"])
    unsafe = cli(*args, "--unsafe-fixes", "--format", "json").json["plan"]
    assert {"name": "mask_embedding", "action": "drop"}.items() <= unsafe["tensors"][0].items()
    assert unsafe["repairs"][0]["safety"] == "unsafe"


def test_names_vllm_has_no_parameter_for_are_dropped_as_one_change(cwd):
    # a second decoder layer (num_hidden_layers 1) and a stray projection: vLLM's
    # AutoWeightsLoader refuses both (DSC112); --unsafe-fixes drops them in one change
    extra = {
        "layers.1.mlp.down_proj.weight": T("F32", (H, H)),
        "extra_proj.weight": T("F32", (H, H)),
    }
    drafter = synth.drafter(cwd / "extra", vocab=VT, draft=VT, tensors=extra)
    args = ["fix", drafter, "--target", SMALL, "--profile", "vllm"]
    assert cli(*args, "--out", "safe").exit_code == 1  # unsafe: left without the flag
    r = cli(*args, "--unsafe-fixes", "--out", "o")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert not set(extra) & set(tensors(cwd / "o"))
    assert "layers.0.mlp.down_proj.weight" in tensors(cwd / "o")


def test_a_conflict_between_runtimes_is_refused_before_anything_is_written(cwd):
    drafter = synth.drafter(cwd / "pruned", vocab=VT, draft=40, tensors=_pruned_map())
    r = cli("fix", drafter, "--target", SMALL, "--profile", f"vllm,{TRT_QWEN3}", "--out", "o")
    assert r.exit_code == 1 and not (cwd / "o").exists()
    assert "conflict" in r.stderr and f"drop-d2t for {TRT_QWEN3}" in r.stderr
    assert "make vllm fail (DSC103 d2t missing)" in r.stderr
    # for TensorRT-LLM alone, the same repair is written
    ok = cli("fix", drafter, "--target", SMALL, "--profile", TRT_QWEN3, "--out", "t")
    assert "d2t" not in tensors(cwd / "t"), ok.stdout + ok.stderr


def test_wrapper_prefixes_are_stripped_with_the_bytes_as_they_were(cwd):
    plain = synth.drafter(cwd / "plain", vocab=VT, draft=VT)
    raw = load_file(plain / "model.safetensors")
    prefixed = cwd / "prefixed"
    prefixed.mkdir()
    shutil.copy(plain / "config.json", prefixed)
    from safetensors.numpy import save_file

    save_file({f"model.{k}": v for k, v in raw.items()}, str(prefixed / "model.safetensors"))
    r = cli("fix", prefixed, "--target", SMALL, "--out", "o", "--format", "json")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert {t["action"] for t in r.json["plan"]["tensors"]} == {"rename"}
    out = tensors(cwd / "o")
    assert set(out) == set(raw) and all(out[k].tobytes() == raw[k].tobytes() for k in raw)


def test_a_nested_key_is_copied_where_the_runtime_reads_it(cwd):
    drafter = synth.drafter(
        cwd / "nested",
        vocab=VT,
        draft=VT,
        config={"markov_rank": None, "dflash_config": {"markov_rank": 4}},
        tensors=synth.markov(VT, VT),
    )
    r = cli("fix", drafter, "--target", SMALL, "--out", "o")
    assert r.exit_code == 0, r.stdout + r.stderr
    cfg = json.loads((cwd / "o/config.json").read_text())
    assert cfg["markov_rank"] == 4 and cfg["dflash_config"] == {"markov_rank": 4}


EAGLE3_ARCH = {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}


def _pruned_map(absolute: bool = False, dtype: str = "I64") -> dict[str, T]:
    return synth.pruned_tensors(VT, absolute=absolute, dtype=dtype)


def _without(name: str) -> dict[str, T]:
    return {k: v for k, v in _pruned_map().items() if k != name}


# code, drafter (vocab, draft, config, tensors), profile, the repair, its flags
REPAIRS = [
    ("DSC305", (VT, 40, {}, _pruned_map(dtype="I32")), "vllm", "d2t-int64", []),
    ("DSC311", (VT, 40, {}, _pruned_map(absolute=True)), "vllm", "d2t-offsets", []),
    (
        "DSC313",
        (VT, 40, {}, {**_without("t2d"), "d2t": T("I64", (40,), np.arange(40))}),
        "vllm",
        "d2t-identity",
        ["--unsafe-fixes"],
    ),
    (
        "DSC103",
        (VT, 40, {}, _without("d2t")),
        "vllm",
        "add-d2t",
        [],
    ),
    (
        "DSC654",
        (VT, VT, {"dflash_config": {"mask_token_id": None}, "mask_token_id": 3}, {}),
        "vllm",
        "drop-null-mask-key",
        [],
    ),
    (  # SpecForge issue #139: a tied EAGLE-3 config over a shipped, pruned head
        "DSC670",
        (VT, 40, {**EAGLE3_ARCH, "tie_word_embeddings": True}, _pruned_map()),
        "sglang-eagle3",
        "untie-shipped-head",
        [],
    ),
]


def test_two_repairs_setting_the_same_key_apply_once(cwd):
    """DSC603 (vllm-legacy) and DSC401 (every runtime) both answer trim-padding, which sets
    draft_vocab_size: one round applies the first, the second waits for the next round,
    where its finding is gone; the key is set once, and no conflict is said."""
    src = synth.drafter(cwd / "d", vocab=VT, draft=128)
    found = cli(
        "inspect", src, "--target", SMALL, "--profile", "vllm,vllm-legacy", "--format", "json"
    )
    assert {"DSC401", "DSC603"} <= {f["code"] for f in found.json["findings"]}
    r = cli(
        "fix", src, "--target", SMALL, "--profile", "vllm,vllm-legacy", "--diff", "--format", "json"
    )
    plan = r.json["plan"]
    assert [a["code"] for a in plan["repairs"] if a["repair"] == "trim-padding"] == ["DSC603"]
    keys = {c["key"]: (c["before"], c["after"]) for c in plan["config"]}
    assert keys == {"draft_vocab_size": (128, VT)}
    assert plan["conflicts"] == []


EAGLE3_HEADS = {
    "lm_head.weight": synth.head(128, H, 1),
    "embed_tokens.weight": synth.head(128, H, 2),
}


def _plan(src: Path, profile: str) -> dict:
    r = cli("fix", src, "--target", SMALL, "--profile", profile, "--diff", "--format", "json")
    return r.json["plan"]


def _new_d2t(plan: dict) -> list[int] | None:
    new = [t for t in plan["tensors"] if t["name"] == "d2t"]
    if not new:
        return None
    assert new[0]["action"] == "new" and new[0]["after"]["dtype"] == "I64"
    return new[0]["after"]["shape"]


@pytest.mark.parametrize(
    ("vocab", "draft", "config", "extra", "profile", "says"),
    [  # a pruned drafter: derived from t2d
        (VT, 40, {}, _without("d2t"), "vllm", "add d2t int64 [40]: derived from t2d"),
        # an equal drafter TensorRT-LLM's EAGLE-3 holds against its vocab_size (Vd 100 != V 128)
        (128, VT, EAGLE3_ARCH, EAGLE3_HEADS, "trtllm-eagle3", "add d2t int64 [100]: the identity"),
    ],
)
def test_add_d2t_plans_an_int64_d2t_of_vd(cwd, vocab, draft, config, extra, profile, says):
    """add-d2t's d2t is int64 [Vd] (the dtype vLLM's parameter has): derived from t2d for a
    pruned drafter, else the identity."""
    src = synth.drafter(cwd / "d", vocab=vocab, draft=draft, config=config, tensors=extra)
    assert _new_d2t(_plan(src, profile)) == [draft]
    assert says in cli("fix", src, "--target", SMALL, "--profile", profile, "--diff").stdout


def test_a_padded_drafter_is_trimmed_before_any_d2t_is_added(cwd):
    """A padded drafter (Vd 128 > Vt 100) lacks the d2t vLLM 0.29 wants for Vd != Vt
    (DSC103), and its padding is cut by trim-padding (DSC401/DSC603): once trimmed, Vd == Vt
    and vLLM 0.29 creates no d2t parameter, so an identity d2t [128] written in the same
    plan is refused (DSC105: 'There is no module or parameter named'). The plan trims alone.
    TensorRT-LLM's EAGLE-3 holds Vd against vocab_size: where the trim keeps vocab_size 128
    (a mask id in the padding), it still needs a d2t, which the next round writes for the
    trimmed Vd: the identity of 100 ids."""
    padded = synth.drafter(cwd / "d", vocab=VT, draft=128)
    plan = _plan(padded, "vllm-legacy")
    assert [a["repair"] for a in plan["repairs"]] == ["trim-padding"]
    assert _new_d2t(plan) is None and plan["conflicts"] == [] and plan["refusal"] is None
    assert plan["left"] == []
    masked = synth.drafter(cwd / "e", vocab=128, draft=128, tensors=EAGLE3_HEADS,
                           config={**EAGLE3_ARCH, "mask_token_id": 110})  # fmt: skip
    plan = _plan(masked, "trtllm-eagle3")
    assert [a["repair"] for a in plan["repairs"]] == ["trim-padding", "add-d2t"]
    assert _new_d2t(plan) == [VT] and plan["conflicts"] == []
    whole = synth.drafter(cwd / "f", vocab=128, draft=128, tensors=EAGLE3_HEADS, config=EAGLE3_ARCH)
    plan = _plan(whole, "trtllm-eagle3")  # the trim cuts vocab_size too: no d2t needed
    assert [a["repair"] for a in plan["repairs"]] == ["trim-padding"]
    assert _new_d2t(plan) is None


def test_a_repair_that_undoes_another_is_a_conflict_and_left_with_why(cwd):
    """An EAGLE-3 drafter with Vd == Vt 100 and vocab_size 128: TensorRT-LLM holds Vd against
    vocab_size and asserts its d2t parameter is loaded (add-d2t), vLLM holds it against Vt and
    has no d2t parameter (DSC105: drop-d2t). The drop would undo the add: one checkpoint
    cannot satisfy both, the plan says so and is refused; DSC105 is left as that conflict."""
    src = synth.drafter(cwd / "d", vocab=128, draft=VT, config=EAGLE3_ARCH,
                        tensors={"lm_head.weight": synth.head(VT, H, 1),
                                 "embed_tokens.weight": synth.head(128, H, 2)})  # fmt: skip
    plan = _plan(src, "trtllm-eagle3,vllm-eagle3")
    assert [a["repair"] for a in plan["repairs"]] == ["add-d2t"]
    assert plan["conflicts"][0] == (
        "trtllm-eagle3 needs DSC103's change (writes d2t), vllm-eagle3 needs DSC105's (drops "
        "d2t): one checkpoint cannot satisfy both (ship one per runtime)"
    )
    left = {x["code"]: x["why"] for x in plan["left"]}
    assert left["DSC105"] == "its repair would undo another's (a conflict)"
    assert _plan(src, "trtllm-eagle3")["conflicts"] == []  # one runtime alone: no conflict


def _prefixed(vocab: int, draft: int | None, heads: dict[str, T]) -> dict[str, T | None]:
    """Every tensor of the drafter stored under vLLM's ``model.`` wrapper prefix (DSC111)."""
    whole = {**synth.complete(synth.drafter_config(vocab, draft, H), H, heads), **heads}
    return {**dict.fromkeys(whole), **{"model." + k: v for k, v in whole.items()}}


def test_a_padded_drafter_without_draft_vocab_size_gets_the_trimmed_one(cwd):
    """No draft_vocab_size (DSC501: the runtimes take vocab_size, 128) on a padded drafter:
    trim-padding writes draft_vocab_size Vt, never write-draft-vocab-size's 128 (the padded
    rows) first and then a conflict with the trim (here the rename of every tensor makes
    the trim wait a round). On an equal drafter the key is written as the head's rows."""
    padded = {"lm_head.weight": synth.head(128, H, 1), "embed_tokens.weight": synth.head(128, H, 1),
              **synth.markov(128, 128)}  # fmt: skip
    src = synth.drafter(cwd / "d", vocab=128, draft=None, tensors=_prefixed(128, None, padded))
    plan = _plan(src, "vllm")
    assert [a["repair"] for a in plan["repairs"]] == ["strip-prefix", "trim-padding"]
    assert plan["conflicts"] == [] and plan["refusal"] is None
    keys = {c["key"]: (c["before"], c["after"]) for c in plan["config"]}
    assert keys == {"vocab_size": (128, VT), "draft_vocab_size": (None, VT)}
    equal = synth.drafter(
        cwd / "e", vocab=VT, draft=None, tensors={"lm_head.weight": synth.head(VT, H, 1)}
    )
    plan = _plan(equal, "vllm")
    assert [(a["code"], a["repair"]) for a in plan["repairs"]] == [
        ("DSC501", "write-draft-vocab-size")
    ]
    assert [(c["key"], c["after"]) for c in plan["config"]] == [("draft_vocab_size", VT)]


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        (np.zeros(4, np.int32), "I32"),
        (np.zeros(4, np.int64), "I64"),
        (np.zeros(4, ">i8"), "I64"),
        (np.ones(4, bool), "BOOL"),
        (np.zeros((4, 2), np.float32), "F32"),
        (np.zeros(4, np.float16), "F16"),
    ],
)
def test_a_put_is_written_in_its_values_dtype(values, dtype):
    """A Put keeps its values' dtype (an int32 d2t is written I32, not a KeyError), little-endian."""
    from dspark_ckpt.commands.draft import Draft
    from dspark_ckpt.rules.repairs import Put
    from dspark_ckpt.source.checkpoint import build_checkpoint
    from dspark_ckpt.source.local import LocalSource

    draft = Draft.of(build_checkpoint(LocalSource(PADDED)), "new.safetensors")
    draft.apply(Put("d2t", values, "the test's"))
    t = draft.get("d2t")
    assert (t.dtype, t.shape, t.shard) == (dtype, values.shape, "new.safetensors")
    assert t.part == values.astype(values.dtype.newbyteorder("<")).tobytes()


def test_a_put_tensor_is_cut_and_its_rows_taken_from_its_own_bytes():
    """A tensor a repair put (bytes, no source range) cut to its first rows, or to some rows,
    in a later change: the bytes of those rows."""
    from dspark_ckpt.commands.draft import Draft
    from dspark_ckpt.rules.repairs import Cut, Put, Rows
    from dspark_ckpt.source.checkpoint import build_checkpoint
    from dspark_ckpt.source.local import LocalSource

    values = np.arange(12, dtype=np.int64).reshape(6, 2)
    draft = Draft.of(build_checkpoint(LocalSource(PADDED)), "new.safetensors")
    draft.apply(Put("x", values, "the test's"))
    draft.apply(Cut("x", 4))
    cut = draft.get("x")
    assert cut.shape == (4, 2) and cut.part == values[:4].tobytes()
    draft.apply(Rows("x", (3, 1)))
    rows = draft.get("x")
    assert rows.shape == (2, 2) and rows.part == values[[3, 1]].tobytes()


@pytest.mark.parametrize(
    ("new", "old", "undoes"),
    [
        (("Put", "d2t"), ("Drop", "d2t"), True),
        (("Drop", "d2t"), ("Put", "d2t"), True),
        (("Put", "d2t"), ("Drop", "t2d"), False),
        (("Put", "d2t"), ("Drops", ("t2d", "d2t")), True),
        (("Drops", ("t2d", "d2t")), ("Put", "d2t"), True),
        (("Drops", ("t2d",)), ("Put", "d2t"), False),
        (("Put", "d2t"), ("Put", "d2t"), False),
        (("SetKey", "k", 1), ("SetKey", "k", 2), True),
        (("SetKey", "k", 1), ("SetKey", "k", 1), False),
        (("SetKey", "k", 1), ("SetKey", "j", 2), False),
        (("DelKey", "k"), ("SetKey", "k", 1), True),
        (("SetKey", "k", 1), ("DelKey", "k"), True),
        (("SetKey", "k", 1), ("Drop", "k"), False),
    ],
)
def test_a_change_undoes_another_only_on_the_same_target(new, old, undoes):
    """The conflict test of the repair rounds: a Put after a Drop of its tensor (or the
    reverse), another value (or a removal) for a key set before."""
    from dspark_ckpt.commands.repair import _undoes
    from dspark_ckpt.rules import repairs

    def change(kind, *args):
        if kind == "Put":
            return repairs.Put(args[0], np.zeros(1), "")
        return getattr(repairs, kind)(*args)

    assert _undoes(change(*new), change(*old)) is undoes


@pytest.mark.parametrize(
    ("a", "b", "clash"),
    [
        ({("key", "k")}, {("key", "k")}, True),
        ({("key", "k")}, {("key", "j")}, False),
        ({("key", "*")}, {("key", "j")}, True),
        ({("key", "j")}, {("key", "*")}, True),
        ({("key", "*")}, {("tensor", "d2t")}, False),
        ({("tensor", "d2t")}, {("key", "*")}, False),
        ({("tensor", "d2t")}, {("tensor", "d2t")}, True),
        (set(), set(), False),
    ],
)
def test_two_changes_wait_for_separate_rounds_where_their_targets_overlap(a, b, clash):
    from dspark_ckpt.commands.repair import _clash

    assert _clash(a, b) is clash


def test_a_rewritten_shard_keeps_the_source_data_first_and_new_tensors_after(cwd):
    """d2t-int64 puts a new d2t into the shard the int32 one was in: the source's tensors keep
    their data order, the new one comes after them, whatever the folder is named (here a
    relative "zz", which sorts after the tensor's name)."""
    synth.drafter(Path("zz"), vocab=VT, draft=40, tensors=_pruned_map(dtype="I32"))
    r = cli("fix", "zz", "--target", SMALL, "--out", "o")
    assert r.exit_code == 0, r.stdout + r.stderr
    raw = (cwd / "o/model.safetensors").read_bytes()
    header = json.loads(raw[8 : 8 + int.from_bytes(raw[:8], "little")])
    header.pop("__metadata__", None)
    starts = {name: entry["data_offsets"][0] for name, entry in header.items()}
    assert header["d2t"]["dtype"] == "I64"
    assert max(starts, key=starts.get) == "d2t"


@pytest.mark.parametrize(("code", "drafter", "profile", "repair", "flags"), REPAIRS)
def test_each_repair_clears_its_finding(cwd, code, drafter, profile, repair, flags):
    vocab, draft, config, extra = drafter
    src = synth.drafter(cwd / "d", vocab=vocab, draft=draft, config=config, tensors=extra)
    before = cli("inspect", src, "--target", SMALL, "--profile", profile, "--format", "json").json
    assert code in {f["code"] for f in before["findings"]}
    args = ["fix", src, "--target", SMALL, "--profile", profile, "--out", "o", *flags]
    r = cli(*args, "--format", "json")
    assert r.exit_code in (0, 1), r.stderr
    assert repair in {a["repair"] for a in r.json["plan"]["repairs"]}
    after = cli("inspect", cwd / "o", "--target", SMALL, "--profile", profile, "--format", "json")
    assert code not in {f["code"] for f in after.json["findings"]}
    if not flags:  # a safe repair: the same run without the flag would not need it
        assert all(a["safety"] == "safe" for a in r.json["plan"]["repairs"])


def test_an_unsafe_d2t_repair_is_left_without_the_flag(cwd):
    src = synth.drafter(
        cwd / "d", vocab=VT, draft=VT, tensors={"d2t": T("I64", (VT,), np.arange(VT))}
    )
    r = cli("fix", src, "--target", SMALL, "--profile", "vllm-legacy", "--diff", "--format", "json")
    left = {x["code"]: x["why"] for x in r.json["plan"]["left"]}
    assert "--unsafe-fixes" in left["DSC313"] and r.json["plan"]["repairs"] == []


def test_aux_ids_outside_the_target_are_asked_for(cwd):
    target = cwd / "deep"
    synth.write_json(
        target / "config.json",
        {
            "architectures": ["Qwen3ForCausalLM"],
            "vocab_size": VT,
            "hidden_size": H,
            "num_hidden_layers": 4,
        },
    )
    src = synth.drafter(cwd / "d", vocab=VT, draft=VT, config={"target_layer_ids": [0, 9]})
    r = cli("fix", src, "--target", target, "--out", "o")
    assert r.exit_code == 1 and not (cwd / "o").exists()
    assert "DSC703 needs" in r.stderr and "--set " in r.stderr


def test_defaulted_aux_ids_are_pinned_with_set(cwd):
    """DSC671: an EAGLE-3 config that names no aux layer ids gets the runtime's default
    layers. Only the user knows the trained ones: fix leaves the warning, asking for the key,
    and ``--set KEY=[...]`` as the hint gives it writes them and re-judges the drafter."""
    target = cwd / "deep"
    synth.write_json(
        target / "config.json",
        {"architectures": ["Qwen3ForCausalLM"], "vocab_size": VT, "hidden_size": H,
         "num_hidden_layers": 80},
    )  # fmt: skip
    no_ids = {**EAGLE3_ARCH, "target_layer_ids": None, "eagle_config": None}
    fc3 = {"fc.weight": T("F32", (H, 3 * H), np.zeros((H, 3 * H), np.float32))}
    src = synth.drafter(cwd / "d", vocab=VT, draft=VT, config=no_ids, tensors=fc3)
    before = cli("inspect", src, "--target", target, "--profile", "vllm-eagle3", "--format", "json")
    (warned,) = [f for f in before.json["findings"] if f["code"] == "DSC671"]
    command = shlex.split(warned["hint"].split("`")[1])
    assert command[:8] == [
        "dspark-ckpt",
        "fix",
        "DRAFTER",
        "--target",
        "T",
        "--out",
        "DIR",
        "--set",
    ]
    key, value = command[8].split("=")
    assert (key, value) == ("eagle_aux_hidden_state_layer_ids", "[2,40,77]")
    asked = cli("fix", src, "--target", target, "--profile", "vllm-eagle3", "--diff",
                "--format", "json")  # fmt: skip
    assert {x["code"]: x["key"] for x in asked.json["plan"]["left"]}["DSC671"] == key
    r = cli("fix", src, "--target", target, "--profile", "vllm-eagle3", "--out", "o",
            "--set", f"{key}=[2,39,76]")  # fmt: skip
    assert r.exit_code == 0, r.stdout + r.stderr
    assert json.loads((cwd / "o/config.json").read_text())[key] == [2, 39, 76]
    after = cli("inspect", cwd / "o", "--target", target, "--profile", "vllm-eagle3",
                "--format", "json")  # fmt: skip
    assert "DSC671" not in {f["code"] for f in after.json["findings"]}


@pytest.mark.parametrize(
    ("config", "tensors", "profile", "code"),
    [  # vLLM's Llama 4 classic EAGLE has no d2t parameter: a d2t would be refused (DSC105)
        (
            {"architectures": ["EagleLlama4ForCausalLM"], "model_type": "llama4_text",
             "markov_rank": None, "target_layer_ids": None, "mask_token_id": None,
             "yoco_global_kv_layer": synth.NULL, "yoco_local_kv_layer": synth.NULL},
            {"embed_tokens.weight": T("F32", (VT, H)), "lm_head.weight": synth.head(40, H, 1),
             "t2d": T("BOOL", (VT,), synth.sorted_mapping(VT, 40)[1])},
            "vllm-eagle-llama4",
            "DSC103",
        ),
        # vLLM's MiniCPM classic EAGLE reads its names under model.: nothing to strip
        (
            {"architectures": ["EagleMiniCPMForCausalLM"], "model_type": "minicpm",
             "markov_rank": None, "target_layer_ids": None, "mask_token_id": None,
             "dim_model_base": 4, "scale_emb": 12, "scale_depth": 1.4,
             "tie_word_embeddings": True},
            {"model.embed_tokens.weight": T("F32", (VT, H)), "model.fc.weight": None,
             "fc.weight": T("F32", (H, 2 * H))},
            "vllm-eagle-minicpm",
            "DSC111",
        ),
    ],
)  # fmt: skip
def test_no_repair_is_planned_that_the_loader_would_refuse(cwd, config, tensors, profile, code):
    """add-d2t writes no d2t for a model with no d2t parameter (not even one a t2d derives),
    and strip-prefix strips no prefix a loader reads names under: the finding stays, with no
    repair planned."""
    draft = 40 if code == "DSC103" else None
    src = synth.drafter(cwd / "d", vocab=VT, draft=draft, config=config, tensors=tensors)
    r = cli("fix", src, "--target-vocab-size", str(VT), "--profile", profile, "--diff",
            "--format", "json")  # fmt: skip
    found = cli("inspect", src, "--target-vocab-size", str(VT), "--profile", profile,
                "--format", "json")  # fmt: skip
    assert code in {f["code"] for f in found.json["findings"]}
    assert [a for a in r.json["plan"]["repairs"] if a["code"] == code] == []
    assert [t for t in r.json["plan"]["tensors"] if t["name"] in ("d2t", "fc.weight")] == []
