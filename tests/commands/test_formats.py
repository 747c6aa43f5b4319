"""``fix --to FORMAT`` through the real CLI on real safetensors files: a native EAGLE-3
drafter to the speculators format and back, byte for byte; SpecForge's SGLang and HF
layouts; the refusals, one line each, nothing written. (The producers' own conversions
on the same input: tests/commands/test_formats_producers.py.)"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import synth
from conftest import cli
from producer_conversions import LAYER, QWEN3_LAYER, VD, H, V  # the producers' shapes
from synth import T

NATIVE = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "hidden_size": H,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "num_hidden_layers": 1,
    "vocab_size": V,
    "draft_vocab_size": VD,
    "rms_norm_eps": 1e-5,
    "max_position_embeddings": 2048,
    "rope_theta": 500000.0,
    "torch_dtype": "bfloat16",
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [1, 3, 5]},
}


def raw(folder: Path) -> dict[str, tuple[str, list[int], bytes]]:
    """Every tensor of the folder's safetensors files: name -> (dtype, shape, bytes)."""
    out = {}
    for path in sorted(folder.glob("*.safetensors")):
        data = path.read_bytes()
        (n,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8 : 8 + n])
        header.pop("__metadata__", None)
        for name, e in header.items():
            lo, hi = e["data_offsets"]
            out[name] = (e["dtype"], e["shape"], data[8 + n + lo : 8 + n + hi])
    return out


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def target(tmp_path) -> Path:
    """A Llama target of V ids, hidden H, 8 layers, its embedding and head in BF16."""
    cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V}
    cfg |= {"hidden_size": H, "num_hidden_layers": 8, "max_position_embeddings": 8192}
    root = tmp_path / "target"
    synth.write_json(root / "config.json", cfg)
    rng = np.random.default_rng(7)
    heads = {
        n: T("BF16", (V, H), rng.standard_normal((V, H), dtype=np.float32))
        for n in ("model.embed_tokens.weight", "lm_head.weight")
    }
    synth.write_safetensors(root / "model.safetensors", heads, {"format": "pt"})
    return root


def native(root: Path, config: dict | None = None, *, embed=False, dtype="BF16", **drop) -> Path:
    """A native EAGLE-3 drafter (``midlayer.*``, a pruned vocab map), as SpecForge and the
    EAGLE-3 release write it; ``embed``: with its own embedding (SpecForge's HF layout)."""
    rng = np.random.default_rng(0)
    shapes = {"fc.weight": (H, 3 * H), "norm.weight": (H,), "lm_head.weight": (VD, H)}
    shapes |= {f"midlayer.{k}": s for k, s in LAYER.items()}
    if embed:
        shapes["embed_tokens.weight"] = (V, H)
    tensors = {k: T(dtype, s, rng.standard_normal(s, dtype=np.float32)) for k, s in shapes.items()}
    d2t, t2d = synth.sorted_mapping(V, VD)
    tensors |= {"d2t": T("I64", (VD,), d2t), "t2d": T("BOOL", (V,), t2d)}
    tensors = {k: t for k, t in tensors.items() if k not in drop.get("without", ())}
    synth.write_json(root / "config.json", {**NATIVE, **(config or {})})
    synth.write_safetensors(root / "model.safetensors", tensors, {"format": "pt"})
    return root


DFLASH = {
    "architectures": ["DFlashDraftModel"],
    "model_type": "qwen3",
    **{k: NATIVE[k] for k in ("hidden_size", "intermediate_size", "num_attention_heads")},
    **{k: NATIVE[k] for k in ("num_key_value_heads", "head_dim", "vocab_size", "torch_dtype")},
    "num_hidden_layers": 2,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "block_size": 4,
    "num_target_layers": 8,
    "dflash_config": {"mask_token_id": 999, "target_layer_ids": [1, 3, 5]},
}


def dflash(root: Path) -> Path:
    """A native DFlash drafter as z-lab releases it: the draft body only (fc over 3 target
    states, two Qwen3 layers), its head and embedding the target's at run time."""
    rng = np.random.default_rng(1)
    shapes = {"fc.weight": (H, 3 * H), "hidden_norm.weight": (H,), "norm.weight": (H,)}
    shapes |= {f"layers.{i}.{k}": v for i in range(2) for k, v in QWEN3_LAYER.items()}
    tensors = {k: T("BF16", s, rng.standard_normal(s, dtype=np.float32)) for k, s in shapes.items()}
    synth.write_json(root / "config.json", DFLASH)
    synth.write_safetensors(root / "model.safetensors", tensors, {"format": "pt"})
    return root


def convert(src: Path, to: str, out: Path, target: Path, *more) -> Path:
    r = cli("fix", src, "--target", target, "--to", to, "--out", out, *more)
    assert r.exit_code == 0, r.stdout + r.stderr
    return out


def test_native_to_speculators_renames_the_layer_and_keeps_every_byte(tmp_path, target):
    src = native(tmp_path / "native")
    out = convert(src, "speculators", tmp_path / "spec", target)
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["speculators_model_type"] == "eagle3" and "model_type" not in cfg
    assert cfg["architectures"] == ["Eagle3Speculator"]
    # the aux ids vLLM reads: SGLang's eagle_config ids name the layer before
    assert cfg["eagle_aux_hidden_state_layer_ids"] == [2, 4, 6]
    layer = cfg["transformer_layer_config"]
    assert layer["max_position_embeddings"] == 8192  # the larger of the two, as speculators
    assert layer["rope_parameters"] == {"rope_theta": 500000.0, "rope_type": "default"}
    assert cfg["speculators_config"]["verifier"]["name_or_path"] == str(target)
    before, after = raw(src), raw(out)
    renamed = {k.replace("midlayer.", "layers.0."): v for k, v in before.items()}
    assert after == renamed


def test_native_speculators_native_round_trip_is_byte_identical(tmp_path, target):
    """native -> speculators -> native: the weights byte for byte the source's file; the
    native config the first round writes comes back byte for byte, files and config."""
    src = native(tmp_path / "native")
    s1 = convert(src, "speculators", tmp_path / "s1", target)
    n1 = convert(s1, "native", tmp_path / "n1", target)
    assert (n1 / "model.safetensors").read_bytes() == (src / "model.safetensors").read_bytes()
    s2 = convert(n1, "speculators", tmp_path / "s2", target)
    n2 = convert(s2, "native", tmp_path / "n2", target)
    assert files(s2) == files(s1)
    assert files(n2) == files(n1)
    cfg = json.loads((n1 / "config.json").read_text())
    assert cfg["architectures"] == ["LlamaForCausalLMEagle3"]
    assert cfg["eagle_aux_hidden_state_layer_ids"] == [2, 4, 6]
    assert cfg["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == [1, 3, 5]


def test_dflash_native_speculators_native_round_trip_is_byte_identical(tmp_path, target):
    src = dflash(tmp_path / "native")
    s1 = convert(src, "speculators", tmp_path / "s1", target)
    cfg = json.loads((s1 / "config.json").read_text())
    assert cfg["speculators_model_type"] == "dflash"
    assert cfg["aux_hidden_state_layer_ids"] == [2, 4, 6]  # target_layer_ids + 1
    assert cfg["speculators_config"]["proposal_methods"][0]["speculative_tokens"] == 3
    assert raw(s1) == raw(src)
    n1 = convert(s1, "native", tmp_path / "n1", target)
    assert (n1 / "model.safetensors").read_bytes() == (src / "model.safetensors").read_bytes()
    n2 = convert(
        convert(n1, "speculators", tmp_path / "s2", target), "native", tmp_path / "n2", target
    )
    assert files(tmp_path / "s2") == files(s1)
    assert files(n2) == files(n1)
    for p in ("vllm-dflash", "sglang-dflash"):
        r = cli("inspect", n1, "--target", target, "--profile", p, "--format", "json")
        assert r.exit_code == 0 and r.json["verdicts"][p], (p, r.stdout)


def test_in_place_converts_the_folder_itself_as_out_writes_the_copy(tmp_path, target):
    out = convert(native(tmp_path / "a"), "speculators", tmp_path / "copy", target)
    src = native(tmp_path / "b")
    r = cli("fix", src, "--target", target, "--to", "speculators", "--in-place", "--force")
    assert r.exit_code == 0, r.stdout + r.stderr
    assert files(src) == files(out)


def test_each_form_passes_inspect_under_the_profiles_of_its_format(tmp_path, target):
    spec = convert(native(tmp_path / "native"), "speculators", tmp_path / "s", target)
    back = convert(spec, "native", tmp_path / "n", target)
    for folder, profiles in ((spec, ("vllm-eagle3",)), (back, ("vllm-eagle3", "sglang-eagle3"))):
        for p in profiles:
            r = cli("inspect", folder, "--target", target, "--profile", p, "--format", "json")
            assert r.exit_code == 0 and r.json["verdicts"][p], (folder.name, p, r.stdout)


def test_specforge_sglang_layout_drops_the_embedding_and_hf_copies_the_targets(tmp_path, target):
    hf = native(tmp_path / "hf", embed=True)
    sg = convert(hf, "sglang", tmp_path / "sg", target, "--profile", "sglang-eagle3")
    assert raw(sg) == {k: v for k, v in raw(hf).items() if k != "embed_tokens.weight"}
    back = convert(sg, "hf", tmp_path / "back", target, "--profile", "sglang-eagle3")
    assert [p.name for p in back.glob("*.safetensors")] == ["model.safetensors"]
    embed = raw(back)["embed_tokens.weight"]
    assert embed == raw(target)["model.embed_tokens.weight"]
    # the model's dtype, as SpecForge's exporter writes it
    assert json.loads((sg / "config.json").read_text()) == {**NATIVE, "dtype": "bfloat16"}
    assert (back / "config.json").read_bytes() == (sg / "config.json").read_bytes()


def test_a_specforge_training_checkpoint_converts_to_the_sglang_layout(tmp_path, target):
    """training_state.pt (the state under draft_state_dict, beside the trainer's other
    keys and a rank's RNG file) and the draft config: the state's tensors, as stored."""
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    src = native(tmp_path / "native")
    train = tmp_path / "run-step7"
    train.mkdir()
    state = {"draft_state_dict": load_file(src / "model.safetensors"), "strategy": "eagle3"}
    torch.save({**state, "global_step": 7, "epoch": 0}, train / "training_state.pt")
    torch.save({"rng": [1, 2]}, train / "training_state_rank0.pt")
    (train / "config.json").write_bytes((src / "config.json").read_bytes())
    out = convert(train, "sglang", tmp_path / "o", target, "--profile", "sglang-eagle3")
    assert raw(out) == raw(src)
    assert json.loads((out / "config.json").read_text()) == {**NATIVE, "dtype": "bfloat16"}


@pytest.mark.parametrize(
    ("case", "args", "says"),
    [
        ("dspark", ("--to", "speculators"), "converts native EAGLE-3 and DFlash drafters"),
        ("native", ("--to", "native"), "in the native format already"),
        ("spec", ("--to", "speculators"), "in the speculators format already"),
        ("spec", ("--to", "sglang"), "native EAGLE-3 drafters only"),
        ("native", ("--to", "speculators", "--profile", "sglang-eagle3"), "sglang-eagle3 read"),
        ("no-fc", ("--to", "speculators"), "no fc.weight: speculators' converter would save"),
        ("f32", ("--to", "speculators"), "casts the weights to torch_dtype bfloat16"),
        ("no-d2t", ("--to", "speculators"), "one of d2t and t2d"),
        ("native", ("--to", "hf"), "the target's model.embed_tokens.weight is needed"),
        ("hf", ("--to", "hf"), "in SpecForge's HF layout already"),
        ("no-t2d-sglang", ("--to", "sglang"), "no t2d: SpecForge's SGLang exporter requires it"),
        ("f32", ("--to", "sglang"), "casts the weights to bfloat16"),
    ],
)
def test_a_conversion_no_producer_offers_is_refused_in_one_line(tmp_path, target, case, args, says):
    root = tmp_path / case
    if case == "dspark":
        synth.drafter(root, vocab=100, draft=100)
    elif case == "spec":
        convert(native(tmp_path / "n"), "speculators", root, target)
    else:
        native(
            root,
            embed=case in ("hf", "no-t2d-sglang"),
            dtype="F32" if case == "f32" else "BF16",
            without={"no-fc": ("fc.weight",), "no-d2t": ("d2t",)}.get(case)
            or (("t2d",) if case == "no-t2d-sglang" else ()),
        )
    tgt = tmp_path / "notarget" if case == "native" and "hf" in args else target
    if tgt != target:  # the target's config alone: no embedding to copy
        synth.write_json(tgt / "config.json", json.loads((target / "config.json").read_text()))
    r = cli("fix", root, "--target", tgt, *args, "--out", tmp_path / "out")
    assert r.exit_code == 1, r.stdout + r.stderr
    assert says in r.stderr and "nothing written" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "more",
    [("--prune-vocab", "10", "--frequencies", "f.json"), ("--emit-d2t",)],
)
def test_to_goes_with_no_other_request(tmp_path, target, more):
    src = native(tmp_path / "native")
    r = cli("fix", src, "--target", target, "--to", "speculators", *more, "--out", tmp_path / "o")
    assert r.exit_code == 2 and "--to" in r.stderr
    assert not (tmp_path / "o").exists()


def test_diff_shows_the_conversion_and_writes_nothing(tmp_path, target):
    src = native(tmp_path / "native")
    before = files(src)
    r = cli("fix", src, "--target", target, "--to", "speculators", "--diff", "--format", "json")
    assert r.exit_code == 1, r.stdout + r.stderr  # a change to make
    plan = r.json["plan"]
    assert any("Eagle3Converter" in s for s in r.json["notes"])
    renamed = {t["name"] for t in plan["tensors"] if t["action"] == "rename"}
    assert renamed == {f"layers.0.{k}" for k in LAYER}
    assert files(src) == before
