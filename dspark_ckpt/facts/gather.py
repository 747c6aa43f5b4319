"""Everything a rule reads, read once and up front: ``gather``.

The rules are pure functions of the ``Facts`` gathered here: the drafter's config, the
target, the tensors the rules look at (their headers), the values of the small
mapping tensors ``d2t`` and ``t2d``, and the tokenizer comparison. No rule reads a
file: every read, a range request on the Hub included, happens here.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cached_property
from itertools import compress
from typing import TYPE_CHECKING

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.config import DrafterConfig
from dspark_ckpt.facts.embedding import same_embedding
from dspark_ckpt.facts.tokenizer import (
    NOT_CHECKED,
    TokenizerComparison,
    TokenizerError,
    TokenizerSide,
    compare_tokenizers,
    tokenizer_files,
)
from dspark_ckpt.facts.vocab import (
    D2T,
    EMBED,
    FC,
    INPUT_NORM,
    LM_HEAD,
    MARKOV_W1,
    MARKOV_W2,
    ROLE_TENSORS,
    T2D,
    classify,
    d2t_layout_problem,
    padded_rows,
    t2d_layout_problem,
    target_ids,
)
from dspark_ckpt.facts.weight_files import WeightFile, weight_files
from dspark_ckpt.record import record
from dspark_ckpt.source.layout import NAME_PREFIXES
from dspark_ckpt.source.safetensors import TensorInfo

if TYPE_CHECKING:
    from dspark_ckpt.facts.target import Target
    from dspark_ckpt.source.checkpoint import Checkpoint

WRAPPER_PREFIXES = tuple(x for x in NAME_PREFIXES if x)


@record
class Facts:
    """One drafter/target pair as the rules see it."""

    cfg: DrafterConfig
    target: Target
    tensors: Mapping[str, TensorInfo]  # every tensor, by its name as stored
    aliases: Mapping[str, list[str]]  # each role tensor's names as stored (prefixed forms)
    prefixed: tuple[str, ...]  # the names under a wrapper prefix (model., ...), sorted
    # the role tensors (ROLE_TENSORS), each found under its prefixed forms
    lm_head: TensorInfo | None
    embed: TensorInfo | None
    d2t: TensorInfo | None
    t2d: TensorInfo | None
    markov_w1: TensorInfo | None
    markov_w2: TensorInfo | None
    fc: TensorInfo | None
    input_norm: TensorInfo | None
    # d2t's offsets, int64 [Vd] (an ``array``, no numpy): read when d2t has the layout
    # runtimes load (else DSC206)
    d2t_values: Sequence[int] | None = None
    # the target ids a BOOL [Vt] t2d selects, ascending: read alongside d2t, or when
    # there is none
    t2d_selected: Sequence[int] | None = None
    tokenizer: TokenizerComparison | None = None  # None: no target folder (--target-vocab-size)
    # the folder's *.safetensors that may not be the drafter's weights (weight_files.py)
    weight_files: tuple[WeightFile, ...] = ()
    # whether the shipped embed_tokens is the target's, at sampled rows (embedding.py);
    # None: not told (none shipped, no local target weights, another shape or dtype)
    embed_is_target: bool | None = None

    @property
    def V(self) -> int:  # noqa: N802 - the names the docs use
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

    @property
    def rank(self) -> int | None:
        """``r``: the config's markov_rank, else the columns of markov_w1."""
        if self.cfg.markov_rank:
            return self.cfg.markov_rank
        w1 = self.markov_w1
        return w1.shape[1] if w1 is not None and len(w1.shape) == 2 else None

    def stored(self, name: str):
        """The header entry of ``name`` as the checkpoint stores it: itself, or under a wrapper
        prefix (the names ``stored_sorted`` lists without it); None where neither is."""
        if name in self.tensors:
            return self.tensors[name]
        return next(
            (self.tensors[x + name] for x in WRAPPER_PREFIXES if x + name in self.tensors), None
        )

    @property
    def raw(self) -> dict:
        return self.cfg.raw if isinstance(self.cfg.raw, dict) else {}

    @cached_property
    def stored_sorted(self) -> list[str]:
        """Every stored tensor name, a wrapper prefix (``model.``, ...) removed, sorted
        and once each: a module's names are a contiguous range (``bisect``)."""
        if not self.prefixed:  # the names as stored: a header's names are unique
            return sorted(self.tensors)
        names = {n for n in self.tensors if not n.startswith(WRAPPER_PREFIXES)}
        for name in self.prefixed:  # few: strip the first prefix that matches
            prefix = next(x for x in WRAPPER_PREFIXES if name.startswith(x))
            names.add(name[len(prefix) :])
        return sorted(names)

    @cached_property
    def d2t_ids(self) -> list[int] | None:
        """The target id of every draft id, ``i + d2t[i]`` (``target_ids``), where d2t
        was read; computed once for the rules that read it."""
        return None if self.d2t_values is None else target_ids(self.d2t_values)

    @cached_property
    def d2t_ids_sorted(self) -> list[int] | None:
        """``d2t_ids`` in ascending order (what a t2d must select), sorted once for the
        rules that compare them."""
        return None if self.d2t_ids is None else sorted(self.d2t_ids)

    @cached_property
    def memo(self) -> dict:
        """Answers later stages compute once per facts (the loader model of each profile),
        so that every rule reads the same one and a header of a million names is walked
        once, not once per rule."""
        return {}

    @property
    def ht(self) -> int | None:
        """The target's hidden size."""
        return self.target.model.hidden_size if self.target.model else None

    @property
    def layers(self) -> int | None:
        return self.target.model.num_hidden_layers if self.target.model else None


def header_facts(ckpt: Checkpoint, cfg: DrafterConfig, target: Target) -> Facts:
    """The facts the headers and configs give: no tensor is read, no tokenizer compared."""
    return Facts(
        cfg,
        target,
        ckpt.tensors,
        {role: ckpt.aliases(role) for role in ROLE_TENSORS},
        tuple(sorted(n for n in ckpt.tensors if n.startswith(WRAPPER_PREFIXES))),
        *(ckpt.find(name) for name in (LM_HEAD, EMBED, D2T, T2D, MARKOV_W1, MARKOV_W2)),
        ckpt.find(FC),
        ckpt.find(INPUT_NORM),
    )


def gather(ckpt: Checkpoint, cfg: DrafterConfig, target: Target) -> Facts:
    """Everything ``inspect``'s rules read, in this order: the tokenizer files of both
    folders, a few rows of a shipped embedding and the target's (``embedding.py``), the
    headers of weight files beside an index, then ``d2t`` and ``t2d``. A ``d2t`` of another
    layout than runtimes load is a finding (DSC206), not an error: then neither map is read.
    A read that fails raises ``CheckpointError``."""
    tokenizer = _tokenizers(ckpt, cfg, target)
    f = header_facts(ckpt, cfg, target)
    same = same_embedding(f.embed, ckpt, target.checkpoint)
    f = replace(f, tokenizer=tokenizer, weight_files=weight_files(ckpt), embed_is_target=same)
    if f.d2t is not None and d2t_layout_problem(f.d2t, f.Vd) is not None:
        return f
    offsets = read_d2t(ckpt, f.Vd)
    return replace(f, d2t_values=offsets, t2d_selected=read_t2d(ckpt, f.Vt))


def _tokenizers(ckpt: Checkpoint, cfg: DrafterConfig, target: Target):
    if target.origin is None:
        return None
    drafter = ckpt.origin
    try:
        return compare_tokenizers(drafter, target.origin, min(cfg.vocab_size, target.vocab_size))
    except TokenizerError as e:  # a broken tokenizer file is reported, never fatal
        d, t = (tokenizer_files(s) for s in (drafter, target.origin))
        return TokenizerComparison(
            NOT_CHECKED, f"{e.path}: {e.message}", TokenizerSide(d), TokenizerSide(t)
        )


def read_d2t(ckpt: Checkpoint, vd: int) -> array | None:
    """The checkpoint's ``d2t`` as an int64 ``[Vd]`` ``array`` (the standard library's:
    no numpy), or None when it has none. Raises ``CheckpointError`` (DSC206) for any
    other dtype or shape: the one reader of ``d2t`` for every command."""
    info = ckpt.find(D2T)
    if info is None:
        return None
    if (problem := d2t_layout_problem(info, vd)) is not None:
        raise CheckpointError(info.path, f"DSC206: {problem}")
    values = ckpt.values(info)
    return values if values.typecode == "q" else array("q", values)


def read_t2d(ckpt: Checkpoint, vt: int) -> array | None:
    """The target ids the checkpoint's ``t2d`` selects, ascending, or None: no t2d, or
    not BOOL [Vt]."""
    info = ckpt.find(T2D)
    if info is None or t2d_layout_problem(info, vt) is not None:
        return None
    return array("q", list(compress(range(vt), ckpt.values(info))))  # a list first: faster


def t2d_problem(f: Facts) -> str | None:
    """The one answer to "can d2t be derived from t2d?" (``fix``, DSC303 on a lone
    ``t2d``, DSC103's hint): a ``BOOL [Vt]`` t2d that selects exactly ``Vd`` target ids.
    Why not, or None."""
    if f.t2d is None:
        return "the checkpoint has no t2d to derive d2t from"
    if (problem := t2d_layout_problem(f.t2d, f.Vt)) is not None:
        return f"{problem}: no d2t can be derived from it"
    if len(f.t2d_selected) != f.Vd:
        return (
            f"t2d selects {len(f.t2d_selected)} target ids; Vd is {f.Vd}: no d2t can be "
            "derived from it"
        )
    return None
