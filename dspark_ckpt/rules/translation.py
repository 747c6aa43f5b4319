"""What the runtime reads the drafter config as: its speculators translation (DSC662), the
Qwen3-Omni DSpark contract it checks at start-up (DSC663), the architectures its loader
serves (DSC664).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read the ``Facts`` through the loader's view of the config
(``loader/view.py``), parameterised by a ``Profile``.
"""

from __future__ import annotations

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.view import (
    count,
    dotted,
    first,
    layer_model_type,
    model_config,
    speculators_kind,
    translated,
)
from dspark_ckpt.profiles.registry import DSPARK, Profile
from dspark_ckpt.rules.findings import ERROR, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, rule

# --- what the runtime reads the config as ---------------------------------------------------


@rule(
    "DSC662",
    ERROR,
    "speculators config the runtime's translation refuses",
    scope=PROFILE,
    hint="write the speculators config with the keys its algorithm needs",
)
def speculators_translation(f: Facts, p: Profile) -> list[Finding]:
    """vLLM translates a speculators-format config (speculators_config, no model_type) into its own
    config: an unknown speculators_model_type is a ValueError; eagle3/peagle need
    transformer_layer_config.model_type llama or qwen3 (a ValueError); peagle needs mask_token_id,
    dflash needs aux_hidden_state_layer_ids and mask_token_id, dspark aux_hidden_state_layer_ids (a
    KeyError). The drafter never builds."""
    if not translated(f, p):
        return []
    kind = speculators_kind(f)
    if kind not in p.speculators_types:
        msg = (
            f"speculators_model_type {kind!r}: {p.runtime} translates "
            f"{', '.join(p.speculators_types)} only and raises a ValueError for it"
        )
        return [new_finding("DSC662", msg, tensor="speculators_model_type")]
    out = []
    for entry in p.speculators_required:
        algo, _, key = entry.partition(":")
        if algo == kind and key not in f.raw:
            out.append(
                new_finding(
                    "DSC662",
                    f"a speculators {kind} config without {key}: {p.runtime}'s translation "
                    f"reads config_dict[{key!r}], a KeyError when the config is loaded",
                    tensor=key,
                )
            )
    allowed = [t.partition(":")[2] for t in p.speculators_layer_types if t.startswith(kind + ":")]
    if allowed and (mt := layer_model_type(f)) not in allowed:
        out.append(
            new_finding(
                "DSC662",
                f"transformer_layer_config.model_type {mt!r}: {p.runtime} builds a speculators "
                f"{kind} drafter only for {' or '.join(allowed)} ('Unsupported model_type', a "
                "ValueError)",
                tensor="transformer_layer_config.model_type",
            )
        )
    return out


def _omni_problems(f: Facts, cfg: dict) -> list[tuple[str, str]]:
    """vLLM's Qwen3-Omni DSpark contract (config/speculative.py:167-377), as (key, why)."""
    model = f.target.model
    out: list[tuple[str, str]] = []
    archs = set(f.cfg.architectures) | set(cfg.get("architectures") or [])
    if "Qwen3OmniDSparkModel" not in archs:
        out.append(("architectures", "must be ['Qwen3OmniDSparkModel']"))
    ht = model.hidden_size if model else None
    if ht is not None:
        for key in ("target_hidden_size", "hidden_size"):
            if cfg.get(key) != ht:
                out.append((key, f"is {cfg.get(key)!r}; must be the thinker's hidden_size {ht}"))
        heads = count(cfg.get("num_attention_heads"))
        hidden = count(cfg.get("hidden_size"))
        head_dim = count(cfg.get("head_dim"))
        if head_dim is None and heads and hidden and hidden % heads == 0:
            head_dim = hidden // heads
        mine = {
            "num_attention_heads": heads,
            "num_key_value_heads": count(cfg.get("num_key_value_heads")) or heads,
            "head_dim": head_dim,
        }
        for key, value in mine.items():
            want = getattr(model, key)
            if want is not None and value != want:
                out.append((key, f"is {value!r}; must be the thinker's {want}"))
    ids = first(
        cfg, "dflash_config.target_layer_ids", "dspark_target_layer_ids", "target_layer_ids"
    )
    n = model.num_hidden_layers if model else None
    if not isinstance(ids, list) or not ids or not all(type(i) is int for i in ids):
        out.append(("target_layer_ids", "must be a non-empty list of integers"))
    elif ids != sorted(set(ids)):
        out.append(("target_layer_ids", f"{ids} must be unique and strictly increasing"))
    elif n is not None and (ids[0] < 0 or ids[-1] >= n):
        out.append(("target_layer_ids", f"{ids} must lie in [0, {n - 1}]"))
    if (
        first(
            cfg,
            "dflash_config.use_aux_hidden_state",
            "eagle_config.use_aux_hidden_state",
            "use_aux_hidden_state",
        )
        is not True
    ):
        out.append(("use_aux_hidden_state", "must be set to true"))
    rank = count(cfg.get("markov_rank"))
    if rank is None or rank <= 0:
        out.append(("markov_rank", "must be a positive integer at the top level"))
    if cfg.get("markov_head_type") != "vanilla":
        out.append(("markov_head_type", f"is {cfg.get('markov_head_type')!r}; must be 'vanilla'"))
    if (
        cfg.get("sample_from_anchor", True) is not True
        or cfg.get("dspark_bonus_anchor", False) is not False
    ):
        out.append(("sample_from_anchor", "must be true, with dspark_bonus_anchor false"))
    mask = dotted(cfg, "dflash_config.mask_token_id")
    for key in ("mask_token_id", "dspark_noise_token_id", "pard_token", "ptd_token_id"):
        if mask is None:
            mask = cfg.get(key)
    if type(mask) is not int or not 0 <= mask < f.V:
        out.append(("mask_token_id", f"is {mask!r}; must be an id in [0, {f.V - 1}]"))
    return out


@rule(
    "DSC663",
    ERROR,
    "Qwen3-Omni DSpark contract not met",
    scope=PROFILE,
    hint="convert the drafter to vLLM's Qwen3-Omni DSpark layout (Qwen3OmniDSparkModel)",
)
def omni_dspark_contract(f: Facts, p: Profile) -> list[Finding]:
    """For a Qwen3-Omni target vLLM checks the DSpark drafter's config when it starts: the
    Qwen3OmniDSparkModel architecture, target_hidden_size, hidden_size, heads, KV heads and head_dim
    equal to the thinker's, target_layer_ids non-empty, strictly increasing and in [0, N-1],
    use_aux_hidden_state explicitly true, a positive top-level markov_rank with markov_head_type
    'vanilla', sample_from_anchor true with dspark_bonus_anchor false, and a mask id in [0, V).
    Any other config is a ValueError at start-up (draft_vocab_size <= Vt is DSC106; block_size
    against num_speculative_tokens is a serving setting, not checked here)."""
    if not p.omni_dspark_checks or p.family != DSPARK or not f.target.is_omni:
        return []
    cfg = model_config(f, p)
    return [
        new_finding(
            "DSC663",
            f"{key} {why}: {p.runtime} refuses a DSpark drafter for a Qwen3-Omni target "
            "otherwise (a ValueError at start-up)",
            tensor=key,
        )
        for key, why in _omni_problems(f, cfg)
    ]


def _served(entry: str, archs: list[str], model_type: str | None) -> bool:
    arch, _, needs = entry.partition("@")
    return arch in archs and (not needs or model_type == needs)


@rule(
    "DSC664",
    ERROR,
    "architecture the runtime serves with another drafter",
    scope=PROFILE,
    hint=(
        "name the architecture the runtime serves this drafter with (vLLM Qwen3 DSpark: "
        "Qwen3DSparkModel, or DSparkDraftModel with model_type qwen3)"
    ),
)
def architecture_not_served(f: Facts, p: Profile) -> list[Finding]:
    """vLLM serves a DSpark drafter with its Qwen3 DSpark model only for the architectures
    Qwen3DSparkModel and Qwen3OmniDSparkModel, and for SpecForge's DSparkDraftModel when its
    model_type is qwen3. Any other DSpark drafter is rewritten to the DeepSeek-V4 DSpark drafter,
    whose weights are read from the target checkpoint: this checkpoint is never loaded."""
    if not p.served_architectures or translated(f, p):  # a speculators dspark is Qwen3DSparkModel
        return []
    archs = list(f.cfg.architectures)
    if any(_served(e, archs, f.cfg.model_type) for e in p.served_architectures):
        return []
    served = ", ".join(e.replace("@", " with model_type ") for e in p.served_architectures)
    what = {
        "deepseek_v4": "rewrites it to the DeepSeek-V4 DSpark drafter, whose weights are read "
        "from the target checkpoint: this drafter's weights are never loaded"
    }.get(p.unserved_architecture, "does not serve it")
    return [
        new_finding(
            "DSC664",
            f"architectures {archs or 'none'} (model_type {f.cfg.model_type!r}): {p.name} "
            f"serves {served} only; {p.runtime} {what}",
            tensor="architectures",
        )
    ]
