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

from bisect import bisect_left
from typing import Any

from dspark_ckpt.facts.mtp import MtpTarget
from dspark_ckpt.loader import names as N
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

    def prefix(self, index: int) -> str:
        return (self.layout or self.loader.layer).format(i=index)


def resolve_count(t: MtpTarget, x: MtpLoader) -> Count:
    if x.count_fixed is not None:
        return Count(x.count_fixed, "fixed")
    for key in x.count_keys:
        found = t.get(key) if x.count_in_text else t.top(key)
        if found is not None:
            value, where = found
            # Python reads a JSON true as 1 (range(n, n + True) builds one layer)
            ok = isinstance(value, int) and value >= 0
            return Count(int(value) if ok else None, where, value)
    if x.count_default is not None:
        return Count(x.count_default, "default")
    return Count(None, x.count_keys[0] if x.count_keys else "count")


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
    h = t.size("hidden_size")
    v = t.size("vocab_size")
    dims = {"H": h, "2H": 2 * h if h else None, "V": v}
    out = tuple(dims[d] for d in spec.split(","))
    return None if any(d is None for d in out) else out  # type: ignore[return-value]


def _layout(t: MtpTarget, x: MtpLoader, first: int) -> str:
    """The stored layer prefix the checkpoint uses: the first of ``layer`` and
    ``layer_also`` that draft layer 0 is stored under, else ``layer``."""
    for layout in (x.layer, *x.layer_also):
        if _span(t.names, layout.format(i=first)):
            return layout
    return x.layer


def _modules(x: MtpLoader, step_pos: int, per_step: int) -> tuple[Module, ...]:
    mods = [*x.own, *x.decoder]
    if step_pos == 0:
        mods += x.first_of_step
    if step_pos == per_step - 1:
        mods += x.last_of_step
    return tuple(mods)


def _check(
    t: MtpTarget, full: str, shape: str | None, missing: list, wrong: list, dense: bool = False
) -> bool:
    """Whether module ``full`` is stored; records what is missing or misshapen. A norm
    (a 1-D shape) is its exact ``.weight``; any other module is stored when some tensor lies
    under it (a quantised linear stores ``qweight`` / ``weight_packed`` ...). ``dense``: the
    model builds it unquantised, so a packed weight's shape is judged too."""
    weight = t.tensors.get(f"{full}.weight")
    one_d = shape is not None and "," not in shape
    stored = weight is not None if one_d else _span(t.names, full)
    if not stored:
        missing.append(f"{full}.weight" if shape else full)
        return False
    if shape and weight is not None and (dense or weight.dtype in FLOAT_DTYPES):
        want = _shape(shape, t)
        if want is not None and tuple(weight.shape) != want:
            wrong.append((f"{full}.weight", tuple(weight.shape), want))
    return True


def mtp_model(t: MtpTarget, x: MtpLoader) -> MtpModel:
    count = resolve_count(t, x)
    first, per_step = _first(t, x), _per_step(t, x)
    missing: list[str] = []
    wrong: list = []
    for path, shape in x.once:
        _check(t, path, shape, missing, wrong, t.fp4 and path in x.fp4_unquantised)
    if count.value is None or first is None or per_step is None:
        return MtpModel(x, count, first, per_step, (), (), tuple(missing), tuple(wrong), ())
    total = count.value * per_step
    layout = _layout(t, x, first)
    too_many = total > MAX_WALKED or (x.count_max is not None and count.value > x.count_max)
    walked = min(total, MAX_WALKED)
    layers, whole = [], []
    for k in range(walked):
        j = first + k
        mods = _modules(x, k % per_step, per_step)
        paths = [(layout + "." + p).format(i=j) for p, _ in mods]
        layers.append(j)
        if not any(_span(t.names, p) for p in paths):
            whole.append(j)
            continue
        for full, (_, shape) in zip(paths, mods, strict=True):
            _check(t, full, shape, missing, wrong)
    return MtpModel(
        x,
        count,
        first,
        per_step,
        tuple(layers),
        tuple(whole),
        tuple(missing),
        tuple(wrong),
        _beyond(t, layout, first + total),
        too_many,
        layout,
    )


def _beyond(t: MtpTarget, layout: str, end: int) -> tuple[int, ...]:
    """Stored indices at or past ``end`` under the layer block, where the layer prefix
    ends in its index (``model.layers.{i}``); () for other layouts. Walked by module
    (``names.children``), not name by name."""
    if not layout.endswith(".{i}"):
        return ()
    block = layout[: -len(".{i}")]
    lo, hi = N.span(t.names, block)
    found = {int(c) for c, _, _ in N.children(t.names, block + ".", lo, hi) if c.isdigit()}
    return tuple(sorted(i for i in found if i >= end))
