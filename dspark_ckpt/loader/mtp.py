"""What a runtime's MTP model reads from a target checkpoint, against what it stores:
``mtp_model(target, loader)``, once per (target, loader), for every MTP rule.

The layer count is resolved as the runtime does (the count the runtime fixes, else the first
config key set, else the default its model or config class gives); the draft layers are
``layer`` at stored indices ``first + k`` for k in [0, count * per_step). A layer no stored
name backs is ``missing_layers``; a layer stored in part names the modules it lacks
(``missing``). A block is never expanded beyond what is declared: a config declaring 2**31-1
layers is reported as such (``too_many``), not walked.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from dspark_ckpt.errors import whole_number
from dspark_ckpt.facts.mtp import MtpTarget
from dspark_ckpt.profiles.mtp_loader import Module, MtpLoader
from dspark_ckpt.record import record

# the dtypes whose shape is the module's logical shape (a packed int4 / fp4 weight is not)
FLOAT_DTYPES = ("BF16", "F16", "F32", "F64", "F8_E4M3", "F8_E5M2")
# more declared layers than this is not walked: reported as a count problem
MAX_WALKED = 1 << 12


@record
class Count:
    """The draft layers (steps) the runtime builds: ``value`` (None: none it can build),
    where it came from (``key``: a config key, ``default``, ``fixed``), the declared value."""

    value: int | None
    key: str
    declared: Any = None


@record
class MtpModel:
    loader: MtpLoader
    count: Count
    first: int | None  # the stored index of draft layer 0 (None: not resolved)
    per_step: int | None  # physical layers per step (None: the pattern key is missing)
    layers: tuple[int, ...]  # the stored indices the runtime builds and loads
    missing_layers: tuple[int, ...]  # built, and no stored name backs any of its modules
    missing: tuple[str, ...]  # modules of layers stored in part (and the once-loaded ones)
    misshapen: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...]
    beyond: tuple[int, ...]  # stored draft-layer indices past the count: never loaded
    too_many: bool = False  # declared more layers than are walked (or the runtime loads)
    layout: str = ""  # the stored layer prefix judged (``layer`` or one of ``layer_also``)
    incomplete: tuple[int, ...] = ()  # the draft layers missing a module, or whole
    refused: tuple[str, ...] = ()  # stored names under a draft layer the loader raises on
    moe_layers: tuple[int, ...] = ()  # draft layers a dense-only build refuses (MoE)
    where: tuple[str, ...] = ()  # each draft layer's prefix judged (as ``layers``)

    def prefix(self, index: int) -> str:
        if index in self.layers and len(self.where) == len(self.layers):
            return self.where[self.layers.index(index)]
        k = index - (self.first or 0)
        return (self.layout or self.loader.layer).format(i=index, k=k)


def resolve_count(t: MtpTarget, x: MtpLoader) -> Count:
    if x.count_fixed is not None:
        return Count(x.count_fixed, "fixed")
    for key in x.count_keys:
        found = _nested(t, key) if "." in key else t.get(key) if x.count_in_text else t.top(key)
        if found is not None:
            value, where = found
            # Python reads a JSON true as 1 (range(n, n + True) builds one layer)
            ok = isinstance(value, int) and value >= 0
            if ok and x.count_floor is not None:
                value = max(int(value), x.count_floor)
            return Count(int(value) if ok else None, where, value)
    if x.count_default is not None:
        return Count(x.count_default, "default")
    # a loader with no count key fixes its count or has a default (test_mtp_loaders.py)
    return Count(None, x.count_keys[0])


def _nested(t: MtpTarget, key: str) -> tuple[Any, str] | None:
    """A key of a node of the config's top level (``mtp_config.num_nextn_predict_layers``:
    a dict the runtime reads with ``.get``)."""
    head, _, rest = key.partition(".")
    node = t.config.get(head)
    return (node[rest], key) if isinstance(node, dict) and rest in node else None


def _first(t: MtpTarget, x: MtpLoader) -> int | None:
    return 0 if x.first == "0" else t.size(x.first)


def _per_step(t: MtpTarget, x: MtpLoader) -> int | None:
    if x.step_pattern is None:
        return 1
    found = t.get(x.step_pattern)
    pattern = found[0] if found else None
    return len(pattern) if isinstance(pattern, str) and pattern else None


def _span(names: list[str], prefix: str) -> bool:
    """Whether any stored name lies under ``prefix`` (a module path)."""
    i = bisect_left(names, prefix + ".")
    return i < len(names) and names[i].startswith(prefix + ".")


def _shape(spec: str, t: MtpTarget) -> tuple[int, ...] | None:
    """The shape a module spec names: ``H``, ``2H``, ``V`` (hidden size, vocab size),
    ``hc`` (``hc_mult``), ``hcH`` (hc x H), ``hccH`` (``hc_count`` x H), ``mix`` ((2 + hc) x hc: DeepSeek V4's
    hyper-connection mixes), or a number."""
    h = t.size("hidden_size")
    v = t.size("vocab_size")
    hc = t.size("hc_mult")
    hcc = t.size("hc_count")
    dims = {
        "hccH": hcc * h if hcc and h else None,
        "H": h,
        "2H": 2 * h if h else None,
        "V": v,
        "hc": hc,
        "hcH": hc * h if hc and h else None,
        "mix": (2 + hc) * hc if hc else None,
    }
    out = tuple(int(d) if d.isdigit() else dims[d] for d in spec.removeprefix("=").split(","))
    return None if any(d is None for d in out) else out  # type: ignore[return-value]


def _layouts(x: MtpLoader, k: int, count: int) -> tuple[str, ...]:
    """The stored prefixes draft layer k is read under: ``layer``, and ``layer_also`` where
    the loader reads it for that layer."""
    also = x.layer_also if k < max(count - x.also_short, 1) else ()
    return (x.layer, *also)


def _layout(t: MtpTarget, x: MtpLoader, first: int, k: int, count: int, prefer: str) -> str:
    """The stored layer prefix draft layer k is judged under: the first of ``prefer`` (the
    layout of layer 0) and its other layouts it is stored under, else the first of them."""
    mine = _layouts(x, k, count)
    ordered = [prefer] if prefer in mine else []
    ordered += [one for one in mine if one not in ordered]
    for layout in ordered:
        if _span(t.names, layout.format(i=first + k, k=k)):
            return layout
    return ordered[0]


def _modules(x: MtpLoader, step_pos: int, per_step: int) -> tuple[Module, ...]:
    mods = [*x.own, *x.decoder]
    if step_pos == 0:
        mods += x.first_of_step
    if step_pos == per_step - 1:
        mods += x.last_of_step
    return tuple(mods)


def _stored_as(x: MtpLoader, prefix: str, path: str) -> list[str]:
    """The full paths module ``path`` of a draft layer may be stored under: each of its
    alternatives (``a|b``) and the other names the loader reads them under (``also``)."""
    out = []
    for one in path.split("|"):
        out.append(one)
        out += [stored for mod, stored in x.also if mod in (one, path)]
    return [f"{prefix}.{one}" if prefix else one for one in dict.fromkeys(out)]


def _check(
    t: MtpTarget,
    full: str,
    shape: str | None,
    missing: list,
    wrong: list,
    dense: bool = False,
    others: tuple[str, ...] = (),
) -> None:
    """Records module ``full`` as missing unless it (or one of ``others``, the names it is
    also read under) is stored, and as misshapen where it is stored of another shape. A
    norm (a 1-D shape) is its exact ``.weight``; any other module is stored when some tensor
    lies under it (a quantised linear stores ``qweight`` / ``weight_packed`` ...). ``dense``: the model builds it
    unquantised, so a packed weight's shape is judged too."""
    bare = shape is not None and shape.startswith("=")  # a parameter, not a module
    one_d = shape is not None and "," not in shape
    end = "" if bare else ".weight"
    for name in (full, *others):
        weight = t.tensors.get(f"{name}{end}")
        if weight is not None if one_d or bare else _span(t.names, name):
            break
    else:
        shown = full.replace("|", " or ")
        missing.append(f"{shown}{end}" if shape else shown)
        return
    if shape and weight is not None and (dense or weight.dtype in FLOAT_DTYPES):
        want = _shape(shape, t)
        if want is not None and tuple(weight.shape) != want:
            wrong.append((f"{name}{end}", tuple(weight.shape), want))


def mtp_model(t: MtpTarget, x: MtpLoader) -> MtpModel:
    count = resolve_count(t, x)
    first, per_step = _first(t, x), _per_step(t, x)
    missing: list[str] = []
    wrong: list = []
    for path, shape in x.once:
        others = tuple(a + path[4:] for a in x.once_also if path.startswith("mtp."))
        _check(t, path, shape, missing, wrong, t.fp4 and path in x.fp4_unquantised, others)
    if count.value is None or first is None or per_step is None:
        return MtpModel(x, count, first, per_step, (), (), tuple(missing), tuple(wrong), ())
    total = count.value * per_step
    layout = _layout(t, x, first, 0, count.value, x.layer)
    too_many = total > MAX_WALKED or (x.count_max is not None and count.value > x.count_max)
    walked = min(total, MAX_WALKED)
    layers, whole, incomplete, refused, where = [], [], [], [], []
    for k in range(walked):
        j = first + k
        mods = _modules(x, k % per_step, per_step)
        prefix = _layout(t, x, first, k, count.value, layout).format(i=j, k=k)
        where.append(prefix)
        paths = [(_stored_as(x, prefix, p.format(i=j)), p, shape) for p, shape in mods]
        layers.append(j)
        if not any(_span(t.names, one) for names, _, _ in paths for one in names):
            whole.append(j)
            incomplete.append(j)
            continue
        before = len(missing)
        for names, path, shape in paths:
            full = names[0] if "|" not in path else f"{prefix}.{path.format(i=j)}"
            _check(t, full, shape, missing, wrong, others=tuple(n for n in names if n != full))
        if len(missing) > before:
            incomplete.append(j)
        refused += _refused(t, x, prefix)
    if x.accepts:
        refused += [n for n in t.names if not any(re.match(a, n) for a in x.accepts)]
    return MtpModel(
        x,
        count,
        first,
        per_step,
        tuple(layers),
        tuple(whole),
        tuple(missing),
        tuple(wrong),
        _beyond(t, layout, first, total),
        too_many,
        layout,
        tuple(incomplete),
        tuple(refused),
        _moe_layers(t, x, layers),
        tuple(where),
    )


def _refused(t: MtpTarget, x: MtpLoader, prefix: str) -> list[str]:
    """The stored names under a draft layer's prefix the loader raises on."""
    if not x.refused or not prefix:
        return []
    out = []
    i = bisect_left(t.names, prefix + ".")
    while i < len(t.names) and t.names[i].startswith(prefix + "."):
        rest = t.names[i][len(prefix) + 1 :]
        if any(re.match(pattern, rest) for pattern in x.refused):
            out.append(t.names[i])
        i += 1
    return out


def _indices(value: Any) -> set[int] | None:
    """A layer-index list as a config gives it: "1,2,3" or [1, 2, 3]; None if unreadable."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        return None
    try:
        return {int(str(v).strip()) for v in items if str(v).strip()}
    except ValueError:
        return None


def _moe_layers(t: MtpTarget, x: MtpLoader, layers: list[int]) -> tuple[int, ...]:
    """The draft layers a dense-only MTP build makes MoE (and so refuses): those the first
    of ``moe_keys`` the config sets lists, else every index from 1 below num_hidden_layers."""
    if not x.moe_keys:
        return ()
    listed = None
    for key in x.moe_keys:
        found = t.get(key)
        if found is not None and found[0] is not None:
            listed = _indices(found[0])
            break
    if listed is None:
        n = t.size("num_hidden_layers") or 0
        listed = set(range(1, n))
    return tuple(j for j in layers if j in listed)


def _beyond(t: MtpTarget, layout: str, first: int, total: int) -> tuple[int, ...]:
    """Stored indices (as ``{i}``: ``first`` + the step) past the ``total`` draft layers
    under the layer block, where the layer prefix ends in its index (``model.layers.{i}``,
    ``model.mtp_layers.{k}``); () for other layouts."""
    if not layout.endswith(("{i}", "{k}")):
        return ()
    step = layout.endswith("{k}")
    end = total if step else first + total
    parent = layout[: -len("{i}")]
    found = set()
    i = bisect_left(t.names, parent)
    while i < len(t.names) and t.names[i].startswith(parent):
        head = t.names[i][len(parent) :].partition(".")[0]
        if (at := whole_number(head)) is not None and at >= end:
            found.add(at + first if step else at)
        i = bisect_left(t.names, parent + head + "/") if head else i + 1  # "/" sorts after "."
    return tuple(sorted(found))
