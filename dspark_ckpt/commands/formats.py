"""``fix --to FORMAT``: a drafter converted between the formats its producers write, as
changes of the repair ``Draft`` (a new config, tensors renamed, dropped or copied from the
target), never a tensor loaded or cast: each one is the source's bytes.

- ``speculators``: a native EAGLE-3 or DFlash drafter as speculators' own converters write
  it (``speculators/convert/eagle/eagle3_converter.py``, ``convert/dflash/converter.py``):
  the config their ``SpeculatorConfig`` (its ``transformer_layer_config`` the LlamaConfig
  or Qwen3Config transformers writes for the native keys they read), EAGLE-3's
  ``midlayer.*`` renamed ``layers.0.*``, every tensor the converter does not save dropped.
  Where the converter would save a tensor it was not given (random values), cast one or
  rewrite one, the conversion is refused.
- ``native``: a speculators drafter (EAGLE-3, DFlash, DSpark) as the native config vLLM
  translates it into (``loader/view.py``'s ``native_config``); a one-layer EAGLE-3's
  ``layers.0.*`` go back to ``midlayer.*``, the name every native EAGLE-3 writes.
- ``sglang`` / ``hf``: SpecForge's two export layouts (``commands/formats_specforge.py``).

Where a key depends on transformers' serialisation (``transformers_version``, the
``auto_map`` naming a ``config.py`` the converter copies beside it) it is not written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dspark_ckpt.commands.formats_specforge import EMBED, to_hf, to_sglang
from dspark_ckpt.errors import CheckpointError, few
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.view import layer_model_type, native_config
from dspark_ckpt.profiles.registry import DFLASH, DSPARK, EAGLE3, Profile, detect_family
from dspark_ckpt.rules.repairs import Change, Drops, NewConfig, Rename

SPECULATORS, NATIVE, SGLANG, HF = "speculators", "native", "sglang", "hf"
FORMATS = (SPECULATORS, NATIVE, SGLANG, HF)
SPECULATORS_VERSION = "0.9.0"  # the speculators release whose converter this follows

# Eagle3Speculator's decoder layer (eagle3_legacy_model.py: Eagle3DecoderLayer): Llama's
# attention and MLP, its three norms
EAGLE3_LAYER = (
    "hidden_norm.weight",
    "input_layernorm.weight",
    "mlp.down_proj.weight",
    "mlp.gate_proj.weight",
    "mlp.up_proj.weight",
    "post_attention_layernorm.weight",
    "self_attn.k_proj.weight",
    "self_attn.o_proj.weight",
    "self_attn.q_proj.weight",
    "self_attn.v_proj.weight",
)
NATIVE_LAYER, SPECULATORS_LAYER = "midlayer.", "layers.0."
# torch_dtype names -> safetensors dtypes (what the converter's model.to(dtype) makes)
FLOAT_DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16"}

Plan = Callable[..., tuple[list[Change], str]]


def format_plan(to: str) -> Plan:
    """The changes ``fix --to`` asks for: ``(facts, profiles, root) -> (changes, summary)``,
    or a ``CheckpointError`` saying why the conversion is refused (nothing written)."""

    def plan(f: Facts, profiles: list[Profile], root: Path) -> tuple[list[Change], str]:
        family = detect_family(f.cfg)
        refuse = _refuser(root, to)
        spec = f.cfg.speculators_format
        if to == SPECULATORS:
            if spec:
                refuse("it is in the speculators format already")
            unread = [p.name for p in profiles if not p.reads_speculators_format]
            if unread:
                refuse(
                    f"{few(unread)} read(s) no speculators-format config (DSC604): choose "
                    "--profile of a runtime that does (vLLM)"
                )
            if family == DFLASH:
                return to_speculators_dflash(f, refuse)
            if family != EAGLE3:
                refuse(
                    f"speculators {SPECULATORS_VERSION} converts native EAGLE-3 and DFlash "
                    f"drafters (Eagle3Converter, DFlashConverter); its {family} model is "
                    "written by its trainer only"
                )
            return to_speculators_eagle3(f, refuse)
        if to == NATIVE:
            if not spec:
                refuse("it is in the native format already (no speculators_config)")
            return to_native(f, family, refuse)
        if family != EAGLE3 or spec:
            refuse(
                "SpecForge's SGLang exporter takes native EAGLE-3 drafters only (to_sglang.py "
                "refuses every other strategy)"
                if to == SGLANG
                else "the HF layout is converted for native EAGLE-3 drafters only (a DFlash "
                "or DSpark draft owns no embedding: its HF export is the drafter as it is)"
            )
        return to_sglang(f, refuse) if to == SGLANG else to_hf(f, refuse)

    return plan


def _refuser(root: Path, to: str) -> Callable[[str], Any]:
    def refuse(why: str):
        raise CheckpointError(root, f"refused: --to {to}: {why}; nothing written")

    return refuse


# --- native EAGLE-3 -> speculators ------------------------------------------------------


def _target_config(f: Facts, refuse) -> dict:
    """The verifier's config.json, read as the converter reads it (top-level keys)."""
    origin = f.target.origin
    if origin is None or f.target.model is None:
        refuse("the verifier's config is needed (speculators writes its architectures): --target")
    cfg = origin.read_json("config.json", "target config")
    return cfg if isinstance(cfg, dict) else {}


def _verifier_name(f: Facts) -> str:
    """The target as the converter names its verifier: the path given, or a Hub
    repository's id (``hf://org/name@rev`` is ``org/name``, what transformers resolves)."""
    name = f.target.source
    if name.startswith("hf://"):
        name = name.removeprefix("hf://").split("@")[0]
    return name


def _dtype(native: dict) -> str | None:
    """The weights' dtype the native config names (``torch_dtype``, transformers 5's
    ``dtype``)."""
    value = native.get("torch_dtype") or native.get("dtype")
    return value if isinstance(value, str) else None


def _rope(native: dict) -> dict:
    """``rope_parameters`` as transformers 5's LlamaConfig stores what the converter passes
    (``build_llama_config_rope_kwargs``): the theta (top level, else a transformers 5
    config's ``rope_parameters``), the scaling's type and keys."""
    params = (
        native.get("rope_parameters") if isinstance(native.get("rope_parameters"), dict) else {}
    )
    theta = native.get("rope_theta", params.get("rope_theta", 10000.0))
    scaling = native.get("rope_scaling")
    if not isinstance(scaling, dict):
        scaling = {k: v for k, v in params.items() if k != "rope_theta"} or None
    out: dict[str, Any] = {"rope_theta": theta}
    if scaling is None:
        out["rope_type"] = "default"
        return out
    out["rope_type"] = scaling.get("rope_type", scaling.get("type", "default"))
    out.update({k: v for k, v in scaling.items() if k not in ("rope_type", "type")})
    return dict(sorted(out.items()))


def layer_config(native: dict, target: dict, vocab: int) -> dict:
    """The ``transformer_layer_config`` the converter builds (``_create_transformer_config_
    from_eagle``: a LlamaConfig of these keys, with transformers 5.19's defaults for the
    rest), keys sorted as transformers writes them."""
    heads = native.get("num_attention_heads", 32)
    hidden = native.get("hidden_size", 4096)
    out = {
        "attention_bias": native.get("attention_bias", False),
        "attention_dropout": 0.0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "head_dim": native.get("head_dim") or hidden // heads,
        "hidden_act": native.get("hidden_act", "silu"),
        "hidden_size": hidden,
        "initializer_range": native.get("initializer_range", 0.02),
        "intermediate_size": native.get("intermediate_size", 11008),
        "max_position_embeddings": max(
            native.get("max_position_embeddings", 4096),
            target.get("max_position_embeddings", 4096),
        ),
        "mlp_bias": native.get("mlp_bias", False),
        "model_type": "llama",
        "num_attention_heads": heads,
        "num_hidden_layers": native.get("num_hidden_layers", 1),
        "num_key_value_heads": native.get("num_key_value_heads", 8),
        "pad_token_id": None,
        "pretraining_tp": 1,
        "rms_norm_eps": native.get("rms_norm_eps", 1e-6),
        "rope_parameters": _rope(native),
        "tie_word_embeddings": False,
        "use_cache": True,
        "vocab_size": vocab,
    }
    if (dtype := _dtype(native)) is not None:
        out["dtype"] = dtype
    return dict(sorted(out.items()))


def _aux_ids(native: dict) -> list[int] | None:
    """The aux layer ids as vLLM reads them (the speculators format's meaning): the
    top-level ones, else SGLang's ``eagle_config`` ones, which name the layer before
    (SGLang captures the state entering id + 1: DSC651)."""
    ids = native.get("eagle_aux_hidden_state_layer_ids")
    if isinstance(ids, list) and ids:
        return ids
    eagle = native.get("eagle_config") if isinstance(native.get("eagle_config"), dict) else {}
    ids = eagle.get("eagle_aux_hidden_state_layer_ids")
    if isinstance(ids, list) and ids and all(type(i) is int for i in ids):
        return [i + 1 for i in ids]
    return None


def speculators_config(native: dict, target: dict, target_name: str, vocab: int) -> dict:
    """The ``Eagle3SpeculatorConfig`` the converter saves for ``native`` (its keys sorted,
    as transformers writes them). Unlike the converter, the native config's own
    ``norm_before_residual`` and aux layer ids are kept (the converter takes them from its
    command line only, and writes false / null otherwise)."""
    cfg = {
        "architectures": ["Eagle3Speculator"],
        "draft_vocab_size": native.get("draft_vocab_size", 32000),
        "dtype": _dtype(native) or "float32",
        "eagle_aux_hidden_state_layer_ids": _aux_ids(native),
        "embed_requires_grad": False,
        "fc_norm": bool(native.get("fc_norm", False)),
        "norm_before_fc": bool(native.get("norm_before_fc", False)),
        "norm_before_residual": bool(native.get("norm_before_residual", False)),
        "norm_output": bool(native.get("norm_output", False)),
        "speculators_config": _speculators_block("eagle3", 3, target, target_name),
        "speculators_model_type": "eagle3",
        "speculators_version": SPECULATORS_VERSION,
        "target_hidden_size": native.get("target_hidden_size"),
        "tie_word_embeddings": False,
        "transformer_layer_config": layer_config(native, target, vocab),
    }
    return cfg


def _speculators_block(algorithm: str, tokens: int, target: dict, target_name: str) -> dict:
    """The ``speculators_config`` a converter writes: one greedy proposal method of
    ``tokens`` speculative tokens, the verifier's name and architectures."""
    archs = target.get("architectures")
    default = ["LlamaForCausalLM"] if algorithm == "eagle3" else []
    return {
        "algorithm": algorithm,
        "default_proposal_method": "greedy",
        "proposal_methods": [
            {
                "accept_tolerance": 0.0,
                "proposal_type": "greedy",
                "speculative_tokens": tokens,
                "verifier_accept_k": 1,
            }
        ],
        "verifier": {
            "architectures": archs if isinstance(archs, list) else default,
            "name_or_path": target_name,
        },
    }


def _eagle3_names(native: dict, prefix: str) -> list[str]:
    """The parameters of the converter's model (``Eagle3Speculator``) besides the optional
    embedding and vocab map, its layer under ``prefix``."""
    layer = list(EAGLE3_LAYER)
    if native.get("attention_bias"):
        layer += [f"self_attn.{p}_proj.bias" for p in "qkvo"]
    if native.get("mlp_bias"):
        layer += [f"mlp.{p}_proj.bias" for p in ("gate", "up", "down")]
    return ["fc.weight", "norm.weight", "lm_head.weight", *(prefix + n for n in layer)]


def _refuse_what_the_converter_cannot_compute(native: dict, target: dict, refuse) -> None:
    """The numbers ``layer_config`` computes with, as the converter does (the larger
    max_position_embeddings, hidden_size // num_attention_heads without a head_dim): a
    value it cannot compute with (a string, null, a boolean, 0 heads) fails the converter,
    so it is refused, naming the config and the key."""

    def positive(cfg: dict, key: str, whose: str) -> None:
        value = cfg.get(key, 1)
        if type(value) is not int or value < 1:
            refuse(f"the {whose} config's {key} is {value!r}, not a positive integer")

    positive(native, "max_position_embeddings", "drafter's")
    positive(target, "max_position_embeddings", "target's")
    if not native.get("head_dim"):
        positive(native, "num_attention_heads", "drafter's")


def to_speculators_eagle3(f: Facts, refuse) -> tuple[list[Change], str]:
    """A native EAGLE-3 drafter as speculators' Eagle3Converter writes it: an
    Eagle3SpeculatorConfig (its transformer_layer_config the LlamaConfig of the native
    keys, max_position_embeddings the larger of the drafter's and the target's, the
    target as verifier), midlayer.* renamed layers.0.*, tensors its model has no parameter
    for dropped, every other tensor's bytes as they are. Refused where the converter would
    save a tensor it was not given (uninitialised) or cast one (a dtype other than
    torch_dtype). Unlike the converter, the drafter's norm_before_residual and aux layer
    ids are kept. Needs --target (the verifier's config)."""
    native = f.raw
    target = _target_config(f, refuse)
    names = set(f.tensors)
    mapped = "t2d" in names
    if mapped != ("d2t" in names):
        refuse("the drafter ships one of d2t and t2d: the converter would save the other as zeros")
    layer = NATIVE_LAYER if any(n.startswith(NATIVE_LAYER) for n in names) else SPECULATORS_LAYER
    wanted = _eagle3_names(native, layer)
    missing = [n for n in wanted if n not in names]
    if missing:
        refuse(f"no {few(missing)}: speculators' converter would save it uninitialised")
    kept = [*wanted, *(n for n in ("d2t", "t2d", EMBED) if n in names)]
    want = FLOAT_DTYPES.get(str(_dtype(native) or "float32"))
    cast = [n for n in kept if f.tensors[n].dtype in FLOAT_DTYPES.values()]
    cast = [n for n in cast if f.tensors[n].dtype != want]
    if want is None or cast:
        have = f.tensors[cast[0]].dtype if cast else "?"
        refuse(
            f"speculators' converter casts the weights to torch_dtype "
            f"{_dtype(native) or 'float32 (none set)'}, {few(cast) or 'all'} stored as {have}: "
            "dspark-ckpt copies tensors as stored, never casts (set torch_dtype to the "
            "stored dtype)"
        )
    vocab = f.t2d.shape[0] if mapped and f.t2d is not None else f.Vt
    _refuse_what_the_converter_cannot_compute(native, target, refuse)
    config = speculators_config(native, target, _verifier_name(f), vocab)
    changes: list[Change] = [NewConfig(config, "speculators' Eagle3SpeculatorConfig")]
    renamed = sorted(n for n in names if n.startswith(NATIVE_LAYER))
    changes += [Rename(n, SPECULATORS_LAYER + n.removeprefix(NATIVE_LAYER)) for n in renamed]
    dropped = tuple(sorted(names - set(kept)))
    if dropped:
        changes.append(Drops(dropped))
    said = f"; drops {few(dropped)} (no parameter of its model)" if dropped else ""
    return changes, (
        f"convert to the speculators format as speculators {SPECULATORS_VERSION}'s "
        f"Eagle3Converter writes it: Eagle3SpeculatorConfig, {len(renamed)} midlayer.* "
        f"tensors renamed layers.0.*{said}"
    )


# --- native DFlash -> speculators ---------------------------------------------------------

# the keys of a native DFlash config that are no part of its layer config
# (speculators/convert/dflash/converter.py: _NON_TRANSFORMER_KEYS)
DFLASH_OWN = ("architectures", "auto_map", "block_size", "dflash_config", "num_target_layers")
# transformers 5.19's Qwen3Config: what it writes for a key it is not given
QWEN3_DEFAULTS = {
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": None,
    "eos_token_id": None,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 22016,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "model_type": "qwen3",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "pad_token_id": None,
    "rms_norm_eps": 1e-6,
    "tie_word_embeddings": False,
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}
QWEN3_LAYER = (
    "input_layernorm.weight",
    "mlp.down_proj.weight",
    "mlp.gate_proj.weight",
    "mlp.up_proj.weight",
    "post_attention_layernorm.weight",
    "self_attn.k_norm.weight",
    "self_attn.k_proj.weight",
    "self_attn.o_proj.weight",
    "self_attn.q_norm.weight",
    "self_attn.q_proj.weight",
    "self_attn.v_proj.weight",
)


def qwen3_layer_config(source: dict) -> dict:
    """The ``transformer_layer_config`` DFlashConverter writes: the native config but its
    DFlash keys, as transformers 5.19's Qwen3Config stores it (its defaults for what is
    not given, ``dtype`` for ``torch_dtype``, ``rope_parameters`` for the RoPE keys, the
    layer types), keys sorted; the keys vLLM's translation adds beside the layer's
    (``draft_vocab_size``, the aux ids) left out, so that --to native comes back."""
    skip = (*DFLASH_OWN, "torch_dtype", "rope_theta", "rope_scaling", "transformers_version")
    # what vLLM's translation writes beside the layer keys (the native form --to native
    # writes): the speculators config's own keys, not the layer's
    skip += ("draft_vocab_size", "eagle_aux_hidden_state_layer_ids")
    cfg = {**QWEN3_DEFAULTS, **{k: v for k, v in source.items() if k not in skip}}
    if (dtype := _dtype(source)) is not None:
        cfg["dtype"] = dtype
    cfg["rope_parameters"] = _rope(source)
    cfg.setdefault("num_key_value_heads", cfg["num_attention_heads"])
    if cfg.get("num_key_value_heads") is None:
        cfg["num_key_value_heads"] = cfg["num_attention_heads"]
    sliding = bool(cfg["use_sliding_window"])
    cfg["sliding_window"] = source.get("sliding_window") if sliding else None
    if not isinstance(cfg.get("layer_types"), list):
        cfg["layer_types"] = [
            "sliding_attention" if sliding and i >= cfg["max_window_layers"] else "full_attention"
            for i in range(cfg["num_hidden_layers"])
        ]
    return dict(sorted(cfg.items()))


def to_speculators_dflash(f: Facts, refuse) -> tuple[list[Change], str]:
    """A native DFlash drafter (DFlashDraftModel, dflash_config) as speculators'
    DFlashConverter writes it: a DFlashSpeculatorConfig (its transformer_layer_config the
    native config as a Qwen3Config, the aux layer ids target_layer_ids + 1 without the
    verifier's last layer, its block_size - 1 speculative tokens), the draft body's tensors
    as they are, d2t, t2d and the head and embedding it takes from the verifier dropped
    (the converter saves none of them for a full-vocab drafter). Refused where it would
    split a fused qkv_proj, cast a tensor or fail (no block_size, no target_layer_ids, fc
    not of their count). Needs --target (the verifier's config)."""
    source = f.raw
    target = _target_config(f, refuse)
    dflash = source.get("dflash_config") if isinstance(source.get("dflash_config"), dict) else {}
    block = source.get("block_size") or dflash.get("block_size")
    ids = dflash.get("target_layer_ids")
    n_target = target.get("num_hidden_layers")
    if source.get("model_type", "qwen3") != "qwen3":
        refuse(f"a {source.get('model_type')} layer: speculators' DFlash model builds Qwen3 layers")
    if type(block) is not int or not isinstance(ids, list) or type(n_target) is not int:
        refuse(
            "the converter needs block_size, dflash_config.target_layer_ids and the "
            "verifier's num_hidden_layers"
        )
    if any("qkv_proj" in n for n in f.tensors):
        refuse("a fused qkv_proj: the converter splits it; dspark-ckpt never rewrites a tensor")
    aux = [i + 1 for i in ids if type(i) is int and i + 1 != n_target]
    layer = qwen3_layer_config(source)
    hidden = layer["hidden_size"]
    body = ["fc.weight", "hidden_norm.weight", "norm.weight"]
    body += [f"layers.{i}.{n}" for i in range(layer["num_hidden_layers"]) for n in QWEN3_LAYER]
    missing = [n for n in body if n not in f.tensors]
    if missing:
        refuse(f"no {few(missing)}: the converter refuses a drafter without it")
    if f.tensors["fc.weight"].shape != (hidden, len(aux) * hidden):
        refuse(f"fc.weight is not [{hidden}, {len(aux) * hidden}] ({len(aux)} aux layers)")
    verifier_filled = {"embed_tokens.weight", "lm_head.weight", "t2d", "d2t"}
    verifier_filled |= {"verifier_lm_head.weight", "verifier_norm.weight"}
    extra = sorted(set(f.tensors) - set(body) - verifier_filled)
    if extra:
        refuse(f"{few(extra)}: no parameter of speculators' DFlash model (the converter refuses)")
    dtypes = {f.tensors[n].dtype for n in body}
    if len(dtypes) != 1:
        refuse(f"the body holds {few(sorted(dtypes))}: the converter casts it to one dtype")
    (dtype,) = dtypes
    names = {v: k for k, v in FLOAT_DTYPES.items()}
    cfg = {
        "architectures": ["DFlashDraftModel"],
        "aux_hidden_state_layer_ids": aux,
        "block_size": block,
        "draft_vocab_size": layer["vocab_size"],
        "dtype": names.get(dtype, dtype.lower()),
        "mask_token_id": dflash.get("mask_token_id"),
        "sample_from_anchor": False,
        "sliding_window_non_causal": False,
        "speculators_config": _speculators_block("dflash", block - 1, target, _verifier_name(f)),
        "speculators_model_type": "dflash",
        "speculators_version": SPECULATORS_VERSION,
        "target_hidden_size": None,
        "tie_word_embeddings": False,
        "transformer_layer_config": layer,
    }
    dropped = tuple(sorted(set(f.tensors) & verifier_filled))
    changes: list[Change] = [NewConfig(cfg, "speculators' DFlashSpeculatorConfig")]
    if dropped:
        changes.append(Drops(dropped))
    said = f"; drops {few(dropped)} (taken from the verifier)" if dropped else ""
    return changes, (
        f"convert to the speculators format as speculators {SPECULATORS_VERSION}'s "
        f"DFlashConverter writes it: DFlashSpeculatorConfig, aux layers {aux}{said}"
    )


# --- speculators -> native ----------------------------------------------------------------


def to_native(f: Facts, family: str | None, refuse) -> tuple[list[Change], str]:
    """A speculators drafter (EAGLE-3 with a Llama layer, DFlash, DSpark) with the native
    config vLLM translates its config into (as the native-config repair writes it); a
    one-layer EAGLE-3's layers.0.* renamed midlayer.*, the name native EAGLE-3 drafters
    use; every tensor's bytes as they are. native -> speculators -> native gives back the
    same files, byte for byte."""
    native = native_config(f.raw)
    if native is None:
        refuse(
            f"no native form of a speculators {f.raw.get('speculators_model_type')!r} config "
            "(vLLM translates eagle3 with a llama or qwen3 layer, dflash and dspark)"
        )
    if isinstance(native, tuple):
        refuse(f"the config has no {native[0]}: {native[1]}")
    if family == EAGLE3 and (kind := layer_model_type(f)) != "llama":
        refuse(
            f"its transformer_layer_config is {kind}: the native EAGLE-3 model "
            "(LlamaForCausalLMEagle3) builds Llama layers only, vLLM's translation serves it"
        )
    if family in (DFLASH, DSPARK) and "block_size" in f.raw:  # native drafters carry it
        native = {**native, "block_size": f.raw["block_size"]}
    changes: list[Change] = [NewConfig(native, "the native config vLLM translates it into")]
    layers = {n.split(".")[1] for n in f.tensors if n.startswith("layers.")}
    renamed = []
    if family == EAGLE3 and layers == {"0"}:
        renamed = sorted(n for n in f.tensors if n.startswith(SPECULATORS_LAYER))
        changes += [Rename(n, NATIVE_LAYER + n.removeprefix(SPECULATORS_LAYER)) for n in renamed]
    said = f", {len(renamed)} layers.0.* tensors renamed midlayer.*" if renamed else ""
    kind = {EAGLE3: "EAGLE-3", DFLASH: "DFlash", DSPARK: "DSpark"}.get(family or "", family)
    return changes, (
        f"convert to the native {kind} config ({native['architectures'][0]}) vLLM translates "
        f"the speculators one into{said}"
    )


# --to NAME -> its conversion (docs/fix.md's repairs table lists them, with their docstrings)
CONVERSIONS: dict[str, Callable[..., tuple[list[Change], str]]] = {
    SPECULATORS: to_speculators_eagle3,
    f"{SPECULATORS} (DFlash)": to_speculators_dflash,
    NATIVE: to_native,
    SGLANG: to_sglang,
    HF: to_hf,
}
