"""What the runtime builds for a drafter it serves as another family: a P-EAGLE drafter built
as the plain EAGLE-3 model (DSC694).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``, parameterised by a ``Profile``.
"""

from __future__ import annotations

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, rule


def peagle_names(f: Facts) -> list[str]:
    """The names by which the config says it is a P-EAGLE drafter (architectures, model_type,
    speculators_model_type); empty for any other."""
    raw = f.cfg.raw if isinstance(f.cfg.raw, dict) else {}
    names = [*f.cfg.architectures, f.cfg.model_type or "", str(raw.get("speculators_model_type"))]
    return [n for n in names if "peagle" in n.lower()]


@rule(
    "DSC694",
    WARNING,
    "P-EAGLE drafter served as plain EAGLE-3",
    scope=PROFILE,
    hint="serve a P-EAGLE drafter with a runtime that implements its parallel drafting, or use "
    "an EAGLE-3 drafter trained to draft one token per step",
)
def peagle_as_eagle3(f: Facts, p: Profile) -> list[Finding]:
    """A P-EAGLE drafter (parallel EAGLE-3) drafts several tokens in one forward, the extra
    slots fed its learned mask_hidden. TensorRT-LLM builds every EAGLE-3 drafter as its plain
    Eagle3ForCausalLM whatever architectures says: it creates no mask_hidden (a shipped one is
    never read) and its worker drafts one token per step, each from the drafter's own last
    hidden state. The drafter loads and runs, but not as it was trained: expect a lower
    acceptance than its trainer measured."""
    names = peagle_names(f)
    if p.mask_hidden != "as_eagle3" or not names:
        return []
    shipped = "its mask_hidden is never read" if "mask_hidden" in f.tensors else "no mask_hidden"
    return [
        new_finding(
            "DSC694",
            f"{names[0]} is a P-EAGLE (parallel drafting) drafter: {p.name} builds it as the "
            f"plain EAGLE-3 model, whatever architectures says ({shipped}), and drafts one token "
            "per step. It loads and runs, but not as it was trained",
            tensor="architectures",
        )
    ]
