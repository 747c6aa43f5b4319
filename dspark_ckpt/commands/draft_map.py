"""The draft-to-target map ``fix`` builds its padded-row mask on and ``verify`` maps
ids through: one decision for both commands."""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.facts.config import DrafterConfig
from dspark_ckpt.facts.gather import header_facts, read_d2t, read_t2d, t2d_problem
from dspark_ckpt.facts.target import Target
from dspark_ckpt.facts.vocab import PRUNED, t2d_disagreement
from dspark_ckpt.rules.d2t import d2t_not_injective, d2t_out_of_range
from dspark_ckpt.rules.findings import ERROR, new_finding
from dspark_ckpt.source.checkpoint import Checkpoint

# what fix and verify say when they refuse a broken own map
BROKEN_MAP = "fix builds no mask or d2t on it and verify checks none (re-export d2t)"


def draft_map(ckpt: Checkpoint, cfg: DrafterConfig, target: Target):
    """The ``d2t`` a padded-row mask is built on and ``verify`` maps ids through. An
    int64 ``[Vd]`` numpy array, or None for the identity (an equal or padded drafter
    without ``d2t``).

    The checkpoint's own ``d2t``, checked; else, for a pruned drafter, the ``d2t``
    derived from its ``t2d``. Raises ``CheckpointError`` when no map can be trusted:

    * an own ``d2t`` that is not ``I64 [Vd]`` (DSC206), maps outside ``[0, Vt)``
      (DSC301), is not injective (DSC302), or whose ``BOOL [Vt]`` t2d selects other
      target ids (DSC314: the head was trained on t2d's, d2t is what runtimes serve) or
      another number of them (DSC303). A ``t2d`` of another dtype
      or shape is no disagreement (vLLM skips it): inspect warns, the ``d2t`` is used;
    * a pruned drafter without ``d2t`` whose ``t2d`` is missing or not derivable
      (``t2d_problem``): nothing says which draft ids are legal.
    """
    f = header_facts(ckpt, cfg, target)
    own = read_d2t(ckpt, f.Vd)
    if own is not None:
        f = replace(f, d2t_values=own, t2d_selected=read_t2d(ckpt, f.Vt))
        broken = [x for x in d2t_out_of_range(f) + d2t_not_injective(f) if x.severity == ERROR]
        if (problem := t2d_disagreement(f.t2d_selected, own)) is not None:
            # as many ids as d2t, other ones: inspect's DSC314 (else DSC303, another count)
            code = "DSC314" if len(f.t2d_selected) == len(own) else "DSC303"
            broken.append(new_finding(code, problem, f.t2d))
        if broken:
            x = broken[0]
            raise CheckpointError(x.file or ckpt.root, f"{x.code}: {x.message}; {BROKEN_MAP}")
        import numpy as np

        return np.asarray(own, dtype=np.int64)
    if f.classification != PRUNED:
        return None
    if f.t2d is None:
        raise CheckpointError(
            ckpt.root,
            f"pruned drafter (Vd {f.Vd} < Vt {f.Vt}) has neither d2t nor t2d: no correct "
            "mapping can be invented, and without one nothing says which draft ids are "
            "legal; re-export d2t from the ids the trainer selected",
        )
    f = replace(f, t2d_selected=read_t2d(ckpt, f.Vt))
    if (problem := t2d_problem(f)) is not None:
        raise CheckpointError(f.t2d.path, f"DSC303: {problem}")
    import numpy as np

    # d2t[i] = nonzero(t2d)[i] - i: sorted, in [0, Vt) and injective by construction
    return np.asarray(f.t2d_selected, dtype=np.int64) - np.arange(f.Vd, dtype=np.int64)
