"""``fix --to sglang`` / ``--to hf``: a native EAGLE-3 drafter in the two layouts SpecForge's
exporter writes from one training checkpoint (``specforge/export/to_sglang.py``,
``to_hf.py``): ``sglang`` drops every embedding tensor and needs fc, norm, lm_head, t2d
and d2t; ``hf`` ships ``embed_tokens.weight``, copied from the target's
``model.embed_tokens.weight`` (the exporter's default ``--embedding-key``) as its
``--embedding-source`` does; both write the config keys the exporter adds (the model's
dtype, the legacy RoPE mirrors). A training checkpoint (``training_state.pt``) is read as a
pickle first (``commands/convert.py``): its ``draft_state_dict`` is what the exporter
writes. Changes of the repair ``Draft``, as ``commands/formats.py``'s.
"""

from __future__ import annotations

from dspark_ckpt.errors import few
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.rules.repairs import Change, Drops, SetKey, TargetRows

# the keys SGLang's EAGLE-3 loader needs, as the exporter checks them (to_sglang.py:40)
SGLANG_REQUIRED = ("fc.weight", "norm.weight", "lm_head.weight", "t2d", "d2t")
EMBED = "embed_tokens.weight"
TARGET_EMBED = "model.embed_tokens.weight"  # the exporter's default --embedding-key


def _bf16_only(f: Facts, refuse) -> None:
    """SpecForge's exporter builds the draft model in bfloat16: any other float tensor it
    casts, which fix never does."""
    cast = sorted(n for n, i in f.tensors.items() if i.dtype in ("F32", "F16", "F64"))
    if cast:
        refuse(
            f"SpecForge's exporter casts the weights to bfloat16, {few(cast)} stored as "
            f"{f.tensors[cast[0]].dtype}: dspark-ckpt copies tensors as stored, never casts"
        )


def _exporter_keys(raw: dict) -> list[Change]:
    """The config keys SpecForge's exporter writes beyond the draft config: the model's
    dtype (bfloat16, save_pretrained's) and ``apply_legacy_rope_scaling``'s mirrors (the
    top-level rope_theta of rope_parameters; rope_scaling and rope_parameters of each
    other where only one is set and its type is not default)."""
    out: list[Change] = []
    if raw.get("dtype") != "bfloat16":
        out.append(SetKey("dtype", "bfloat16"))
    params, scaling = raw.get("rope_parameters"), raw.get("rope_scaling")
    kind = lambda d: (d or {}).get("rope_type") or (d or {}).get("type")  # noqa: E731
    theta = params.get("rope_theta", raw.get("rope_theta")) if isinstance(params, dict) else None
    if theta is not None and raw.get("rope_theta") != theta:
        out.append(SetKey("rope_theta", theta))
    if (
        isinstance(params, dict)
        and params
        and not scaling
        and kind(params) not in (None, "default")
    ):
        mirrored = {k: v for k, v in params.items() if k != "rope_theta"}
        out.append(SetKey("rope_scaling", mirrored))
    elif (
        isinstance(scaling, dict)
        and scaling
        and not params
        and kind(scaling) not in (None, "default")
    ):
        mirrored = dict(scaling)
        if "rope_theta" in raw:
            mirrored.setdefault("rope_theta", raw["rope_theta"])
        out.append(SetKey("rope_parameters", mirrored))
    return out


def to_sglang(f: Facts, refuse) -> tuple[list[Change], str]:
    """A native EAGLE-3 drafter in the layout SpecForge's export_to_sglang writes: every
    tensor whose name holds "embed" dropped (SGLang takes the target's embedding); refused
    without fc, norm, lm_head, t2d and d2t, as the exporter refuses, and for weights
    other than bfloat16 (the exporter's cast). A SpecForge training checkpoint
    (training_state.pt, its draft config beside it as config.json) is converted first: its
    draft_state_dict is what the exporter writes."""
    missing = [n for n in SGLANG_REQUIRED if n not in f.tensors]
    if missing:
        refuse(f"no {few(missing)}: SpecForge's SGLang exporter requires it")
    prefixed = [n for n in f.tensors if n.startswith("draft_model.")]
    if prefixed:
        refuse(f"{few(prefixed)} still carry the trainer's prefix")
    _bf16_only(f, refuse)
    dropped = tuple(sorted(n for n in f.tensors if "embed" in n.lower()))
    keys = _exporter_keys(f.raw)
    if not dropped:  # a training checkpoint's state: its tensors are the layout
        return keys, "SpecForge's SGLang layout (export_to_sglang): no embedding to drop"
    return [Drops(dropped), *keys], (
        f"convert to SpecForge's SGLang layout (export_to_sglang): drops {few(dropped)}"
    )


def to_hf(f: Facts, refuse) -> tuple[list[Change], str]:
    """A native EAGLE-3 drafter in the layout SpecForge's export_to_hf writes with the
    target as its embedding source: embed_tokens.weight is the target's
    model.embed_tokens.weight, every row, read by offset (a Hub target by range requests),
    its dtype kept. Needs --target with weights."""
    if EMBED in f.tensors:
        refuse(f"it is in SpecForge's HF layout already (it ships {EMBED})")
    _bf16_only(f, refuse)
    ckpt = f.target.checkpoint
    src = ckpt.tensors.get(TARGET_EMBED) if ckpt is not None else None
    if src is None:
        refuse(
            f"the target's {TARGET_EMBED} is needed (SpecForge's --embedding-source): "
            "--target a folder or Hub repository with its weights"
        )
    files = {i.path.name for i in f.tensors.values()}
    into = files.pop() if len(files) == 1 else None  # one file: as the exporter writes it
    change = TargetRows(EMBED, src, tuple(range(src.shape[0])), "the target's embedding", into)
    return [change, *_exporter_keys(f.raw)], (
        f"convert to SpecForge's HF layout (export_to_hf): {EMBED} copied from the target's "
        f"{TARGET_EMBED} ({src.shape[0]} rows, {src.dtype})"
    )
