"""The contract, one rule per function (CONTRACT.md).

``Facts`` gathers the numbers and tensors of one drafter/target pair once.
``common_findings`` holds the rules every runtime shares (shapes, ``d2t`` values,
sampling risk); ``profile_findings`` the load-time rules that a ``Profile``
parameterises. Nothing here reads a file except through ``Checkpoint.read`` for
``d2t`` and ``t2d``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.config import SPECULATORS_DEFAULT_DRAFT_VOCAB, DrafterConfig
from dspark_ckpt.facts.target import Target
from dspark_ckpt.rules.findings import ERROR, Finding
from dspark_ckpt.source.checkpoint import Checkpoint
from dspark_ckpt.source.safetensors import TensorInfo

PRUNED, EQUAL, PADDED = "pruned", "equal", "padded"

LM_HEAD = "lm_head.weight"
EMBED = "embed_tokens.weight"
D2T = "d2t"
T2D = "t2d"
MARKOV_W1 = "markov_head.markov_w1.weight"
MARKOV_W2 = "markov_head.markov_w2.weight"
FC = "fc.weight"
INPUT_NORM = "input_norm.weight"


def classify(vd: int, vt: int) -> str:
    """pruned (Vd < Vt, mapped through d2t), equal (identity), padded (rows [Vt, Vd) are padding)."""
    return PRUNED if vd < vt else EQUAL if vd == vt else PADDED


def padded_rows(vd: int, vt: int) -> int:
    """How many rows ``[Vt, Vd)`` of a padded drafter are padding, not tokens."""
    return max(vd - vt, 0)


@dataclass(frozen=True)
class Facts:
    cfg: DrafterConfig
    target: Target
    ckpt: Checkpoint
    lm_head: TensorInfo | None
    embed: TensorInfo | None
    d2t: TensorInfo | None
    t2d: TensorInfo | None
    markov_w1: TensorInfo | None
    markov_w2: TensorInfo | None
    fc: TensorInfo | None = None
    input_norm: TensorInfo | None = None

    @cached_property
    def t2d_selected(self):
        """The target ids ``t2d`` selects (read once), or None: no t2d, or not BOOL [Vt]."""
        import numpy as np

        t = self.t2d
        if t is None or t.dtype != "BOOL" or t.shape != (self.Vt,):
            return None
        return np.flatnonzero(self.ckpt.read(t))

    @property
    def V(self) -> int:  # noqa: N802 - the contract's names
        return self.cfg.vocab_size

    @property
    def Vd(self) -> int:  # noqa: N802
        return self.cfg.draft_vocab_size

    @property
    def Vt(self) -> int:  # noqa: N802
        return self.target.vocab_size

    @property
    def classification(self) -> str:
        return classify(self.Vd, self.Vt)

    @property
    def padded_rows(self) -> int:
        return padded_rows(self.Vd, self.Vt)

    @property
    def expanded_input_vocab(self) -> bool:
        return self.Vt < self.V


# the tensors the rules read, each looked up under its prefixed forms (Checkpoint.find)
ROLE_TENSORS = (LM_HEAD, EMBED, D2T, T2D, MARKOV_W1, MARKOV_W2, FC, INPUT_NORM)


def gather(ckpt: Checkpoint, cfg: DrafterConfig, target: Target) -> Facts:
    return Facts(cfg, target, ckpt, *(ckpt.find(name) for name in ROLE_TENSORS))


def new_finding(code: str, message: str, info: TensorInfo | None = None, *, tensor=None, hint=None):
    return Finding(
        code,
        message,
        tensor=tensor or (info.name if info else None),
        file=str(info.path) if info else None,
        hint=hint,
    )


def rank_of(f: Facts) -> int | None:
    """``r``: the config's markov_rank, else the columns of markov_w1."""
    if f.cfg.markov_rank:
        return f.cfg.markov_rank
    w1 = f.markov_w1
    return w1.shape[1] if w1 is not None and len(w1.shape) == 2 else None


# --- rules every runtime shares ---------------------------------------------------


def common_findings(f: Facts) -> list[Finding]:
    out: list[Finding] = []
    out += _config_info(f)
    out += _alias_rules(f)
    out += _shape_rules(f)
    out += _padding_rules(f)
    out += _d2t_rules(f)
    out += _t2d_alone_rules(f)
    return out


def _alias_rules(f: Facts) -> list[Finding]:
    """One tensor under several names (``d2t`` and ``model.d2t``): only the first is checked,
    and which one a runtime loads depends on how it maps names."""
    out = []
    for role in ROLE_TENSORS:
        names = f.ckpt.aliases(role)
        if len(names) > 1:
            first = f.ckpt.tensors[names[0]]
            out.append(
                new_finding(
                    "DSC209",
                    f"{role} is stored under {len(names)} names ({', '.join(names)}): only "
                    f"{names[0]} is checked, and a runtime may load any of them",
                    first,
                )
            )
    return out


def _t2d_alone_rules(f: Facts) -> list[Finding]:
    """``t2d`` without ``d2t``: the map fix would derive from it must be possible."""
    if f.t2d is None or f.d2t is not None:
        return []
    if (problem := t2d_problem(f)) is not None:
        return [new_finding("DSC303", problem, f.t2d)]
    return []


def _config_info(f: Facts) -> list[Finding]:
    if not f.cfg.draft_vocab_size_defaulted:
        return []
    spec = (
        f" (this is a speculators-format config, whose library defaults to "
        f"{SPECULATORS_DEFAULT_DRAFT_VOCAB})"
        if f.cfg.speculators_format
        else f"; the speculators library would default to {SPECULATORS_DEFAULT_DRAFT_VOCAB}"
    )
    return [
        new_finding(
            "DSC501",
            f"draft_vocab_size is missing: vLLM, SGLang and TensorRT-LLM use vocab_size "
            f"{f.V}{spec}",
            tensor="draft_vocab_size",
        )
    ]


def _rows_and_width(
    info: TensorInfo | None, rows: int, rows_name: str, code: str, f: Facts
) -> list[Finding]:
    if info is None:
        return []
    out = []
    if len(info.shape) != 2 or info.shape[0] != rows:
        out.append(
            new_finding(
                code, f"{info.name} is {list(info.shape)}; expected [{rows_name} {rows}, H]", info
            )
        )
    h = f.cfg.hidden_size
    if h is not None and len(info.shape) == 2 and info.shape[1] != h and not _packed(info, f):
        out.append(
            new_finding(
                "DSC203",
                f"{info.name} has {info.shape[1]} columns but hidden_size is {h}",
                info,
            )
        )
    return out


# packed quantised weights: columns per stored element (NVFP4 packs two in a U8)
PACKED_COLUMNS = {"U8": 2, "I8": 2}


def _packed(info: TensorInfo, f: Facts) -> bool:
    """A quantised config's packed weight (NVFP4 ``U8 [rows, H/2]``) is H wide, not a
    hidden-size mismatch (FP8 keeps H columns)."""
    per = PACKED_COLUMNS.get(info.dtype)
    return f.cfg.quantized and per is not None and info.shape[1] * per == f.cfg.hidden_size


def _shape_rules(f: Facts) -> list[Finding]:
    out = _rows_and_width(f.lm_head, f.Vd, "draft_vocab_size", "DSC201", f)
    out += _rows_and_width(f.embed, f.V, "vocab_size", "DSC202", f)
    w1, r = f.markov_w1, rank_of(f)
    if w1 is not None and (len(w1.shape) != 2 or w1.shape[0] != f.V or (r and w1.shape[1] != r)):
        out.append(
            new_finding(
                "DSC204",
                f"markov_w1 is {list(w1.shape)}; expected [vocab_size {f.V}, markov_rank {r}]",
                w1,
            )
        )
    return out


def _padding_rules(f: Facts) -> list[Finding]:
    if f.classification != PADDED:
        return []
    out = []
    et = f.target.embedding_rows
    if et is not None and f.Vd > et:
        out.append(
            new_finding(
                "DSC207",
                f"draft_vocab_size {f.Vd} exceeds the target's {et} embedding rows "
                f"({f.target.embedding_tensor}): sampled ids in [{et}, {f.Vd}) index out of "
                "bounds",
                tensor="draft_vocab_size",
            )
        )
    illegal = f"[{f.Vt}, {f.Vd})"
    out.append(
        new_finding(
            "DSC401",
            f"{f.padded_rows} padded rows {illegal} can be sampled (no runtime masks them): "
            "each becomes an illegal target token"
            + (f", or an out-of-bounds index at or above Et {et}" if et and et < f.Vd else ""),
            tensor=LM_HEAD,
        )
    )
    return out


def _d2t_rules(f: Facts) -> list[Finding]:
    d2t = f.d2t
    if d2t is None:
        return []
    if (problem := d2t_layout_problem(d2t, f.Vd)) is not None:
        return [new_finding("DSC206", problem, d2t)]
    offsets = read_d2t(f.ckpt, f.Vd)
    out = d2t_value_findings(offsets, f.Vt, info=d2t)
    if d2t.dtype != "I64":
        out.append(
            new_finding(
                "DSC305",
                f"d2t is {d2t.dtype} {list(d2t.shape)}: vLLM's weight loader converts it "
                "into its int64 parameter, SGLang adds it to an int64 arange",
                d2t,
            )
        )
    if f.t2d is not None and (problem := t2d_layout_problem(f.t2d, f.Vt)) is not None:
        # vLLM skips t2d: a warning, and nothing to compare d2t with
        out.append(new_finding("DSC303", problem, f.t2d))
    return out + _t2d_disagreement(f, offsets)


# d2t dtypes a runtime loads: int64, and int32 (converted on load: DSC305)
D2T_DTYPES = ("I64", "I32")


def d2t_layout_problem(info: TensorInfo, vd: int) -> str | None:
    """The DSC206 condition, stated once: a ``d2t`` is rank-1 ``I64`` (or ``I32``,
    converted on load) of length ``Vd``. What is wrong with ``info``, or None."""
    if info.dtype not in D2T_DTYPES or info.shape != (vd,):
        return f"d2t is {info.dtype} {list(info.shape)}; expected I64 [{vd}] (draft_vocab_size)"
    return None


def t2d_layout_problem(info: TensorInfo, vt: int) -> str | None:
    """A ``t2d`` is ``BOOL [Vt]``: what is wrong with ``info``, or None."""
    if info.dtype != "BOOL" or info.shape != (vt,):
        return f"t2d is {info.dtype} {list(info.shape)}; expected BOOL [{vt}]"
    return None


def t2d_problem(f: Facts) -> str | None:
    """The one answer to "can d2t be derived from t2d?" (``fix``, DSC303 on a lone
    ``t2d``, DSC103's hint): a ``BOOL [Vt]`` t2d that selects exactly ``Vd`` target ids.
    Why not, or None."""
    if f.t2d is None:
        return "the checkpoint has no t2d to derive d2t from"
    if (problem := t2d_layout_problem(f.t2d, f.Vt)) is not None:
        return f"{problem}: no d2t can be derived from it"
    if f.t2d_selected.size != f.Vd:
        return (
            f"t2d selects {f.t2d_selected.size} target ids; Vd is {f.Vd}: no d2t can be "
            "derived from it"
        )
    return None


def _derived_d2t(f: Facts):
    """``d2t[i] = nonzero(t2d)[i] - i`` of a t2d ``t2d_problem`` accepts: sorted, in
    ``[0, Vt)`` and injective by construction."""
    import numpy as np

    return (f.t2d_selected - np.arange(f.Vd)).astype(np.int64)


# what fix and verify say when they refuse a broken own map
BROKEN_MAP = "fix builds no mask or d2t on it and verify checks none (re-export d2t)"


def draft_map(ckpt: Checkpoint, cfg: DrafterConfig, target: Target):
    """The ``d2t`` a padded-row mask is built on and ``verify`` maps ids through: the one
    decision for ``fix`` and ``verify``. An int64 ``[Vd]`` numpy array, or None for the
    identity (an equal or padded drafter without ``d2t``).

    The checkpoint's own ``d2t``, checked; else, for a pruned drafter, the ``d2t``
    derived from its ``t2d``. Raises ``CheckpointError`` when no map can be trusted:

    * an own ``d2t`` that is not ``I64 [Vd]`` (DSC206), maps outside ``[0, Vt)``
      (DSC301), is not injective (DSC302), or whose ``BOOL [Vt]`` t2d selects other
      target ids (DSC303: which map was trained is unknown). A ``t2d`` of another dtype
      or shape is no disagreement (vLLM skips it): inspect warns, the ``d2t`` is used;
    * a pruned drafter without ``d2t`` whose ``t2d`` is missing or not derivable
      (``t2d_problem``): nothing says which draft ids are legal.
    """
    f = gather(ckpt, cfg, target)
    own = read_d2t(ckpt, f.Vd)
    if own is not None:
        broken = [x for x in d2t_value_findings(own, f.Vt, info=f.d2t) if x.severity == ERROR]
        broken += _t2d_disagreement(f, own)
        if broken:
            x = broken[0]
            raise CheckpointError(x.file or ckpt.root, f"{x.code}: {x.message}; {BROKEN_MAP}")
        return own
    if f.classification != PRUNED:
        return None
    if f.t2d is None:
        raise CheckpointError(
            ckpt.root,
            f"pruned drafter (Vd {f.Vd} < Vt {f.Vt}) has neither d2t nor t2d: no correct "
            "mapping can be invented, and without one nothing says which draft ids are "
            "legal; re-export d2t from the ids the trainer selected",
        )
    if (problem := t2d_problem(f)) is not None:
        raise CheckpointError(f.t2d.path, f"DSC303: {problem}")
    return _derived_d2t(f)


def read_d2t(ckpt: Checkpoint, vd: int):
    """The checkpoint's ``d2t`` as an int64 ``[Vd]`` numpy array, or None when it has
    none. Raises ``CheckpointError`` (DSC206) for any other dtype or shape: the one
    reader of ``d2t`` for every command."""
    info = ckpt.find(D2T)
    if info is None:
        return None
    if (problem := d2t_layout_problem(info, vd)) is not None:
        raise CheckpointError(info.path, f"DSC206: {problem}")
    return ckpt.read(info).astype("int64", copy=False)


def d2t_value_findings(offsets, vt: int, *, info: TensorInfo | None = None) -> list[Finding]:
    """The value rules of an int64 ``[Vd]`` d2t (and its ``t2d`` values, when given).

    Shared by ``inspect`` and by ``draft_map``, which refuses a map with an error here.
    Padded rows ``[Vt, Vd)`` that keep the identity (offset 0) are padding, not a
    mapping error: DSC401 reports them and the padded-row mask covers them.
    """
    import numpy as np

    from dspark_ckpt.facts.vocab import target_ids  # numpy only where a mapping is read

    vd = offsets.shape[0]
    ids = target_ids(vd, offsets)
    out = []
    padding = (np.arange(vd) >= vt) & (offsets == 0)
    bad = np.flatnonzero(((ids < 0) | (ids >= vt)) & ~padding)
    if bad.size:
        i = int(bad[0])
        out.append(
            new_finding(
                "DSC301",
                f"{bad.size} of {vd} draft ids map outside [0, {vt}); first: draft id {i} "
                f"-> {int(ids[i])}"
                + (
                    " (d2t looks like arange: the identity is all zeros)"
                    if _is_arange(offsets)
                    else ""
                ),
                info,
                tensor=None if info else D2T,
            )
        )
    # a strictly increasing map is injective: np.unique (a hash of Vd ids) only if not
    if ids.size > 1 and not bool(np.all(np.diff(ids) > 0)):
        unique = np.unique(ids)
        if unique.size != ids.size:
            out.append(
                new_finding(
                    "DSC302",
                    f"d2t maps {vd} draft ids onto {unique.size} distinct target ids",
                    info,
                    tensor=None if info else D2T,
                )
            )
        else:
            out.append(
                new_finding(
                    "DSC304",
                    "i + d2t[i] is not strictly increasing",
                    info,
                    tensor=None if info else D2T,
                )
            )
    return out


def _is_arange(offsets) -> bool:
    import numpy as np

    return offsets.size > 1 and bool(np.array_equal(offsets, np.arange(offsets.size)))


def _t2d_disagreement(f: Facts, offsets) -> list[Finding]:
    """A ``BOOL [Vt]`` t2d whose values contradict the ``d2t`` (DSC303): it must select
    exactly the ``Vd`` target ids d2t maps to. [] without t2d, or for a t2d of another
    layout (vLLM skips it; ``_d2t_rules`` warns about it), or for the all-False
    placeholder speculators writes when it has no mapping: nothing to compare."""
    import numpy as np

    from dspark_ckpt.facts.vocab import target_ids

    selected = f.t2d_selected
    if selected is None or selected.size == 0:  # none, or speculators' all-False placeholder
        return []
    vd = offsets.shape[0]
    if selected.size != vd:
        return [new_finding("DSC303", f"t2d selects {selected.size} target ids; Vd is {vd}", f.t2d)]
    if not np.array_equal(selected, np.sort(target_ids(vd, offsets))):
        return [new_finding("DSC303", "t2d selects other target ids than d2t maps to", f.t2d)]
    return []
