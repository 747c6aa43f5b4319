"""The drafter config as a runtime release's loader sees it (``ConfigView``): one place.

A speculators-format config (``speculators_config`` and no ``model_type``) is not read as
written by a runtime that translates it: the model is built from what vLLM's translation
makes of it (``translation``: its ``transformer_layer_config`` plus the top-level keys each
algorithm copies, ``Profile.speculators_copied``, its defaults, and the aux layer ids it
renames). That one translation is what the model view reads and what ``fix`` writes out as
the native config (``native_config``). A runtime that normalises a variant's config itself
has its own view (``Profile.config_view``: SGLang's M3.1 DSpark, ``minimax_m3_dspark``; vLLM's
Muse Spark DSpark, ``muse_spark_dspark``). Everything else is read as written. Values are read with the runtime's Python semantics: ``get`` is
``getattr(config, key, default)`` (a present null is None, not the default), ``truthy``
is ``if config.key:`` (``1`` is on, ``0`` and null are off), ``first`` is an ``or``-chain
of dotted keys (the first that is set). Pure functions of the ``Facts`` and a
``Profile``: no rule code, no file.
"""

from __future__ import annotations

from typing import Any

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.profiles.choices import MUSE_MOE_LAYERS
from dspark_ckpt.profiles.registry import PROFILES, Profile, newest

# a speculators aux id list, renamed by the translation (vLLM: algos.py:114-120,192-195)
SPECULATORS_AUX = "aux_hidden_state_layer_ids"


def dotted(node: Any, key: str) -> Any:
    """``node[a][b]`` for ``key`` ``a.b``; None where any part is missing."""
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def present(node: Any, key: str) -> bool:
    """Whether the dotted ``key`` is present in ``node`` (with any value, null included)."""
    *parents, last = key.split(".")
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    return isinstance(node, dict) and last in node


def translated(f: Facts, p: Profile) -> bool:
    """Whether ``p``'s runtime reads this config through its speculators translation: a
    ``speculators_config`` and no ``model_type`` (vLLM: transformers_utils/config.py:361-366
    picks its SpeculatorsConfig only then)."""
    raw = f.raw
    return (
        bool(p.speculators_types)
        and raw.get("speculators_config") is not None
        and (raw.get("model_type") is None)
    )


def speculators_kind(f: Facts) -> str:
    return str(f.raw.get("speculators_model_type") or "")


def layer_model_type(f: Facts) -> str:
    """The model_type the speculators translation picks the model class by (its default
    llama: vLLM algos.py:43)."""
    tlc = f.raw.get("transformer_layer_config")
    value = tlc.get("model_type") if isinstance(tlc, dict) else None
    return str(value) if value is not None else "llama"


def model_config(f: Facts, p: Profile) -> dict:
    """The config the runtime's model reads: the config itself, or for a translated
    speculators config what the translation makes of it (``translation``)."""
    if p.config_view:
        key = ("model_config", p.config_view)
        if key not in f.memo:
            f.memo[key] = (
                minimax_m3_dspark(f.raw)
                if p.config_view == "minimax_m3_dspark"
                else gemma4_mtp(f.raw)
                if p.config_view == GEMMA4_MTP
                else muse_spark_dspark(f.raw, f.layers)
            )
        return f.memo[key]
    if not translated(f, p):
        return f.raw
    key = ("model_config", p.speculators_copied)
    if key not in f.memo:
        f.memo[key] = translation(f.raw, p.speculators_copied)
    return f.memo[key]


def renamed(arch: str, rename: str) -> str:
    """``arch`` as the runtime's registry looks it up after its renaming by the method
    (``Profile.architecture_rename``: vLLM's EAGLEConfig, transformers_utils/configs/
    eagle.py:46-76)."""
    prefix = {"eagle": "Eagle", "eagle3": "Eagle3", "dflash": "DFlash"}.get(rename)
    if prefix is None:
        return arch
    kept = arch.startswith(prefix) or (rename != "eagle" and arch.endswith(prefix))
    return arch if kept or (rename, arch) == ("dflash", "LiLiCorrDraftModel") else prefix + arch


def _eagle_format(f: Facts, p: Profile) -> bool:
    """Whether the config is vLLM's own EAGLE format already (model_type eagle) under a
    renaming profile: not renamed again (vllm/config/speculative.py:1520-1524
    `(EAGLEConfig, SpeculatorsConfig)`), its class named by its nested model and its method
    key (transformers_utils/configs/eagle.py:42-76)."""
    return bool(p.architecture_rename) and f.cfg.model_type == "eagle"


def architectures(f: Facts, p: Profile) -> tuple[str, ...]:
    """The config's architectures as ``p``'s registry looks them up (``renamed``), as written
    where the config is vLLM's EAGLE format already (``_eagle_format``)."""
    rename = "" if _eagle_format(f, p) else p.architecture_rename
    return tuple(renamed(a, rename) for a in f.cfg.architectures)


def written_names_judged(f: Facts, p: Profile) -> bool:
    """Whether the class ``p``'s registry is asked for comes from the config's architectures:
    not for a config vLLM reads through its speculators translation, which names the class
    itself (transformers_utils/configs/speculators/algos.py), nor for one in vLLM's EAGLE
    format (``_eagle_format``)."""
    return not (translated(f, p) or _eagle_format(f, p))


def architecture(f: Facts, p: Profile) -> str | None:
    """The architecture the model class is picked by: ``speculators:<model_type>`` for a
    translated speculators config, else the config's first architecture, as the runtime
    renames it (``renamed``)."""
    if translated(f, p):
        return f"speculators:{layer_model_type(f)}"
    archs = architectures(f, p)
    return archs[0] if archs else None


def aux_count_keys(f: Facts, p: Profile) -> tuple[str, ...]:
    """The keys the model class this config resolves to counts fc's aux states by: the
    class's own (``Profile.aux_layer_keys_by_class``), else ``Profile.aux_layer_keys``."""
    arch = architecture(f, p)
    for name, keys in p.aux_layer_keys_by_class:
        if name == arch:
            return keys
    return p.aux_layer_keys


# --- reading values with the runtime's semantics ------------------------------------------


def get(cfg: Any, key: str, default: Any = None) -> Any:
    """``getattr(config, key, default)`` for a dotted ``key``: a present null is None
    (not ``default``), a missing key is ``default``."""
    *parents, last = key.split(".")
    node = cfg
    for part in parents:
        node = node.get(part) if isinstance(node, dict) else None
    if isinstance(node, dict) and last in node:
        return node[last]
    return default


def truthy(value: Any) -> bool:
    """Python truthiness, as ``if config.key:`` reads a switch (``1``, ``"yes"`` are on;
    ``0``, ``""``, null, ``[]`` are off)."""
    return bool(value)


def first(cfg: Any, *keys: str, default: Any = None) -> Any:
    """The first of ``keys`` (dotted) whose value is not null, else ``default``: the
    runtimes' ``a or b`` / nested-then-top-level look-ups."""
    for key in keys:
        if (value := dotted(cfg, key)) is not None:
            return value
    return default


def count(value: Any) -> int | None:
    """A declared count (an int, not a bool), else None."""
    return value if type(value) is int else None


def norm_before_fc(cfg: dict, p: Profile) -> Any:
    """norm_before_fc as the EAGLE-3 model reads it from the config it is built from: the
    first of ``p.norm_before_fc_keys`` present, null included, else False (vLLM
    llama_eagle3.py:179-187, SGLang llama_eagle3.py:169-175: ``eagle_config.get(
    "norm_before_fc", getattr(config, "norm_before_fc", False))``, a null eagle_config read
    as {})."""
    return next((dotted(cfg, k) for k in p.norm_before_fc_keys if present(cfg, k)), False)


def aux_count(f: Facts, p: Profile) -> tuple[int, str] | None:
    """n_aux, fc's count of target hidden states, and where it came from, resolved in the
    key order of the model class the config resolves to (``aux_count_keys``), on the config
    that model reads: each key at its own place in it, an undotted one at the top level only
    (``getattr(config, key)`` on the config object: vLLM llama_eagle3.py:209-215, eagle3_utils.py:
    119-138; SGLang llama_eagle3.py:156-161): a ``text_config`` or ``transformer_layer_config``
    of a config read as written is a dict the runtime does not look into for it."""
    cfg = model_config(f, p)
    for key in aux_count_keys(f, p):
        value = dotted(cfg, key)
        if isinstance(value, list) and value:
            return len(value), f"len({key})"
        # an int count is taken as it is, 0 included: the runtimes fall through on None only
        # (`if self.num_aux_hidden_states is None:`), and fc is then built [H, 0]
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value, key
    if p.aux_default == "3":
        return 3, "the default 3"
    if p.aux_default == "num_hidden_layers":
        n = dotted(cfg, "num_hidden_layers")  # config.num_hidden_layers (qwen3_dflash.py:89)
        if isinstance(n, int) and not isinstance(n, bool) and n > 0:
            return n, "num_hidden_layers"
    return None


def fc_input(f: Facts, p: Profile) -> tuple[int, str, int, int] | None:
    """fc's input as the runtime builds it: n_aux target hidden states (and where n_aux
    came from), each ``Ht`` wide, ``n_aux * Ht`` in all; None where it is not checked."""
    h = f.cfg.hidden_size
    if (
        not (p.aux_layer_keys or p.aux_default)
        or h is None
        or (resolved := aux_count(f, p)) is None
    ):
        return None
    n, source = resolved
    ht = h
    if p.fc_input_hidden == "target_hidden_size":
        ht = f.cfg.value("target_hidden_size") or h
    return n, source, ht, n * ht


# --- vLLM's speculators translation: one, read by the model view and written out by fix ---

# the speculators algorithms whose aux ids the translation renames: (the top-level copy under
# eagle_aux_hidden_state_layer_ids, the shifted copy's key; None: under dflash_config)
# (vLLM: algos.py:114-120 dflash and dflash2, 192-195 dspark)
SHIFTED_AUX = {"dflash": None, "dflash2": None, "dspark": "target_layer_ids"}
# the defaults each algorithm's translation writes where the config has no such key (vLLM:
# algos.py:33-39 eagle3, 67-70 peagle, 117-121 dflash, 178-180 dspark)
DEFAULTS = {
    "eagle3": {
        "norm_before_residual": True,
        "norm_before_fc": False,
        "fc_norm": False,
        "norm_output": False,
    },
    "peagle": {"norm_before_residual": False, "norm_before_fc": False},
    "dspark": {"sample_from_anchor": False},
}


def translation(raw: dict, copied: tuple[str, ...]) -> dict:
    """vLLM's speculators translation (transformers_utils/configs/speculators/algos.py): the
    ``transformer_layer_config``, the top-level keys the algorithm copies where not null
    (``Profile.speculators_copied``, "type:key" or "type:key>renamed"), its defaults, and its
    aux layer ids renamed. A key the
    translation requires and the config lacks is left out here (the KeyError is DSC662's)."""
    tlc = raw.get("transformer_layer_config")
    view = dict(tlc) if isinstance(tlc, dict) else {}
    kind = str(raw.get("speculators_model_type") or "")
    for entry in copied:
        algorithm, _, key = entry.partition(":")
        key, _, name = key.partition(">")
        if algorithm == kind and raw.get(key) is not None:
            view[name or key] = raw[key]
    for key, value in DEFAULTS.get(kind, {}).items():
        view[key] = raw.get(key, value)
    if kind == "dspark":
        view["dspark_bonus_anchor"] = not view["sample_from_anchor"]
    aux = raw.get(SPECULATORS_AUX)
    if isinstance(aux, list) and kind in SHIFTED_AUX:
        view["eagle_aux_hidden_state_layer_ids"] = aux
        shifted = [i - 1 for i in aux if type(i) is int]
        if SHIFTED_AUX[kind]:
            view[SHIFTED_AUX[kind]] = shifted
        else:  # the mask id moves under dflash_config, where a null is read as is
            view["dflash_config"] = {
                "mask_token_id": raw.get("mask_token_id"),
                "target_layer_ids": shifted,
                "sample_from_anchor": raw.get("sample_from_anchor", False),
                "causal": not raw.get("sliding_window_non_causal", True),
            }
    return view


def minimax_m3_dspark(raw: dict) -> dict:
    """SGLang 0.5.23's normalisation of an M3.1 DSpark drafter config
    (configs/minimax_vl.py ``configure_minimax_m3_dspark``): its text_config (else the config
    itself) with the top-level ``dspark_*`` keys copied in; num_hidden_layers from
    dflash_config; every layer a dense MLP (moe_layer_freq all 0) sized by
    dspark_config.ffn_hidden_size (else dspark_ffn_hidden_size), and no sparse attention; the
    Markov head and mask id from the ``dspark_*`` keys. The two resolved alternatives are
    written under their top-level names (``dspark_use_dense_ffn``, ``dspark_ffn_hidden_size``),
    where a missing value is named; a key the normalisation requires and the config lacks is
    left unset (DSC690 names it)."""
    text = raw.get("text_config")
    view = dict(text) if isinstance(text, dict) else dict(raw)
    view.update({k: v for k, v in raw.items() if k.startswith("dspark_")})
    node = view.get("dspark_config")
    draft = node if isinstance(node, dict) else {}
    node = view.get("dflash_config")
    dflash = node if isinstance(node, dict) else {}
    view["dspark_use_dense_ffn"] = draft.get("use_dense_ffn", view.get("dspark_use_dense_ffn"))
    ffn = draft.get("ffn_hidden_size", view.get("dspark_ffn_hidden_size"))
    view["dspark_ffn_hidden_size"] = view["dense_intermediate_size"] = ffn
    view["num_hidden_layers"] = dflash.get("num_hidden_layers")
    view["sparse_attention_config"] = None  # and moe_layer_freq all 0: dense layers
    view["block_size"] = view.get("dspark_block_size")
    view["markov_rank"] = view.get("dspark_markov_rank")
    view["markov_head_type"] = view.get("dspark_markov_head_type", "vanilla")
    view["mask_token_id"] = view.get("dspark_noise_token_id")
    if dflash.get("layer_types"):
        view["layer_types"] = dflash["layer_types"]
    return view


# the architecture of each speculators algorithm's native config: vLLM's translation
# (transformers_utils/configs/speculators/algos.py), EAGLE-3 under the name SGLang and vLLM
# both register (LlamaForCausalLMEagle3)
NATIVE_ARCHITECTURE = {
    "eagle3": "LlamaForCausalLMEagle3",
    "dflash": "DFlashDraftModel",
    "dspark": "Qwen3DSparkModel",
}
DSPARK_ARCHITECTURES = ("Qwen3DSparkModel", "Qwen3OmniDSparkModel")


def native_config(raw: dict) -> dict | tuple[str, str] | None:
    """A speculators-format config as the native config vLLM translates it into
    (``translation``), plus what a written config needs: the architecture, EAGLE-3's aux ids
    under eagle_config where SGLang reads them, no null values. ``(key, why)`` where a key
    vLLM requires is missing (vLLM: a KeyError), None for an algorithm it has no translation
    for here."""
    kind = raw.get("speculators_model_type")
    if kind not in NATIVE_ARCHITECTURE or not isinstance(raw.get("transformer_layer_config"), dict):
        return None
    for key in ("mask_token_id", SPECULATORS_AUX):
        if kind != "eagle3" and key not in raw:
            return key, f"vLLM's {kind} translation requires it (a KeyError without it)"
    # a null aux id list falls back to eagle_aux_hidden_state_layer_ids where one is written
    aux = raw.get(SPECULATORS_AUX) or raw.get("eagle_aux_hidden_state_layer_ids")
    # the translation of vLLM's newest release (each algorithm here has a vLLM line)
    copied = newest(PROFILES, f"vllm-{kind}").speculators_copied
    out = translation({**raw, SPECULATORS_AUX: aux}, copied)
    if kind == "eagle3":
        if out.get("model_type", "llama") not in ("llama", "qwen3"):
            return None  # vLLM: ValueError (Unsupported model_type)
        eagle = {"norm_before_fc": out["norm_before_fc"]}
        if aux:
            out["eagle_aux_hidden_state_layer_ids"] = aux
            # where SGLang reads them, as it counts them: it captures the state entering
            # layer id + 1 (python/sglang/srt/models/llama.py:939-941
            # `[val + 1 for val in layer_ids]`; DSC651), so the same layers are one lower
            eagle["eagle_aux_hidden_state_layer_ids"] = [
                i - 1 if type(i) is int else i for i in aux
            ]
        out["eagle_config"] = eagle
    elif kind == "dspark":
        archs = [a for a in raw.get("architectures") or [] if a in DSPARK_ARCHITECTURES]
        out["architectures"] = archs or [NATIVE_ARCHITECTURE[kind]]
        return out
    out["architectures"] = [NATIVE_ARCHITECTURE[kind]]
    return {k: v for k, v in out.items() if v is not None}


GEMMA4_MTP = "gemma4_mtp"
# the keys vLLM's Gemma4MTP reads on the assistant's own config, not on text_config
# (vllm/model_executor/models/gemma4_mtp.py:349-350, 487, 496-498)
GEMMA4_ASSISTANT_KEYS = (
    "architectures",
    "model_type",
    "backbone_hidden_size",
    "tie_word_embeddings",
    "use_ordered_embeddings",
    "num_centroids",
    "centroid_intermediate_top_k",
)


def gemma4_mtp(raw: dict) -> dict:
    """vLLM 0.33.0's Gemma4MTP as it reads a Gemma 4 assistant config: its model is built from
    ``_get_text_config(config)`` (text_config where there is one, else the config itself:
    gemma4.py:244-253), with the assistant's own keys read at the top level, each as
    ``getattr`` finds it: ``tie_word_embeddings`` true where absent (gemma4_mtp.py:487; the
    config class default too) and ``num_centroids`` 2048 (497). ``backbone_hidden_size`` is
    left out where absent: vLLM's default is hidden_size (349-350), transformers' config
    class has its own (1536), so the projections' widths are not judged without it. A value
    present but null is kept null."""
    node = raw.get("text_config")
    text = node if isinstance(node, dict) else raw
    view = {k: v for k, v in text.items() if k not in GEMMA4_ASSISTANT_KEYS}
    view.update({k: raw[k] for k in GEMMA4_ASSISTANT_KEYS if k in raw})
    view.setdefault("tie_word_embeddings", True)
    view.setdefault("num_centroids", 2048)
    return view


def muse_spark_dspark(raw: dict, target_layers: int | None) -> dict:
    """vLLM 0.33.0's MuseSparkDSparkConfig as its decoder layers read it: the config, with
    ``muse_moe_layers`` the draft layers built as a MuseSpark1xMoE instead of a dense MLP
    (nvidia/model.py MuseSpark1xDecoderLayer: ``moe.is_enabled``, default true, and
    ``interleave_moe_layer_step``, default 1, at the layer's index, which counts on from the
    target's last layer, its prefix ``layers.{i + target layers}``). Without a target
    (its depth unknown) only the layers every depth makes MoE are counted."""
    view = dict(raw)
    node = raw.get("moe")
    moe = node if isinstance(node, dict) else {}
    step = moe.get("interleave_moe_layer_step", 1)
    dense = moe.get("n_dense_layers_before_moe", 0)
    n = raw.get("num_hidden_layers")
    layers: list[int] = []
    if truthy(moe.get("is_enabled", True)) and isinstance(step, int) and step > 0:
        for i in range(n if isinstance(n, int) and 0 < n <= 4096 else 0):
            if target_layers is not None:
                index = target_layers + i
                if (index + 1) % step == 0 and index >= (dense or 0):
                    layers.append(i)
            elif step == 1 and not dense:
                layers.append(i)
    view[MUSE_MOE_LAYERS] = layers
    return view
