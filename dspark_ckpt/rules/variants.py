"""What a variant architecture's model needs beyond its family's (``profiles/variants.py``):
config keys its build reads with no default (DSC690), a tensor its loader refuses to go
without (DSC691), a draft vocab other than the target's, which it refuses (DSC692).

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts`` and the profile's fields.
"""

from __future__ import annotations

from dspark_ckpt.errors import few
from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.view import dotted, model_config, present, truthy
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import ERROR, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, rule

TRUTHY = "truthy:"
EVERY = "every:"
NULL = "null:"  # asserted None: a missing key is an AttributeError, a value fails the assert
EMPTY = "empty:"  # a list asserted empty (absent or null: the config class derives it, unjudged)


@rule(
    "DSC690",
    ERROR,
    "config key the model's build requires is missing",
    scope=PROFILE,
    hint="set the key in config.json to the value the drafter was trained with",
)
def required_key_missing(f: Facts, p: Profile) -> list[Finding]:
    """The runtime's model for this architecture reads these config keys with no default while
    it is built (vLLM's DFlash2: `int(draft_config["selector_rank"])`, a KeyError or TypeError
    without it; SGLang's DFlash2: `if not draft_config.selector_rank: raise ValueError`), or asserts every entry of a list
    key (vLLM's Gemma 4 DSpark: every layer of layer_types full_attention, with
    attention_k_eq_v), or asserts a key null or a list empty (vLLM's Llama 4 classic EAGLE:
    `assert self.config.yoco_global_kv_layer is None`, an AttributeError where config.json
    lacks the key; `assert len(self.config.moe_layers) == 0`). A config without them never
    builds the drafter: the server fails at start-up."""
    cfg = model_config(f, p)
    out = []
    for entry in p.required_keys:
        entry, _, cond = entry.partition("?")  # KEY?COND: read only where COND is truthy
        if cond and not truthy(dotted(cfg, cond)):
            continue
        form = next((x for x in (TRUTHY, EVERY, NULL, EMPTY) if entry.startswith(x)), "")
        key, _, each = entry.removeprefix(form).partition("=")
        value = dotted(cfg, key)
        if form == NULL:  # present and null
            if present(cfg, key) and value is None:
                continue
        elif form == EMPTY:  # absent or null (derived by the config class), or an empty list
            if value is None or value == []:
                continue
        elif each:  # every element must be `each` (the build asserts it)
            if isinstance(value, list) and all(v == each for v in value):
                continue
        elif value is not None and (truthy(value) or form != TRUTHY):
            continue
        how = "is not set" if value is None else f"is {value!r}"
        if form == NULL:
            how = f"is {value!r}, not null" if present(cfg, key) else "is not in config.json"
        elif form == EMPTY:
            how += ", not an empty list"
        elif each and value is not None:
            how += f", not {each} in every entry"
        out.append(
            new_finding(
                "DSC690",
                f"{key} {how}: {p.name} ({p.release}) builds this architecture from it "
                "and fails at start-up without it",
                tensor=key,
            )
        )
    return out


@rule(
    "DSC691",
    ERROR,
    "tensor the loader requires is missing: refused at load",
    scope=PROFILE,
    hint="ship the tensor the drafter was trained with (re-export it with its trainer's code)",
)
def required_tensor_missing(f: Facts, p: Profile) -> list[Finding]:
    """The runtime's loader for this architecture reads this tensor outside its model's
    parameters and raises when the checkpoint lacks it (vLLM's XPress: 'XPress checkpoint is
    missing xpress_head.mix.L'; LiLiCorr: 'LiLiCorr checkpoint coverage mismatch' for any
    parameter of its correction head): the drafter does not load."""
    absent = [name for name in p.required_tensors if name not in f.tensors]
    if not absent:
        return []
    return [
        new_finding(
            "DSC691",
            f"{few(absent, 3)} {'is' if len(absent) == 1 else 'are'} not in the checkpoint: "
            f"{p.name} ({p.release}) refuses to load the drafter without them",
            tensor=absent[0],
        )
    ]


@rule(
    "DSC692",
    ERROR,
    "draft vocab other than the target's: refused at build",
    scope=PROFILE,
    hint="serve a full-vocab drafter (draft_vocab_size equal to the target's vocab size)",
)
def vocab_not_target(f: Facts, p: Profile) -> list[Finding]:
    """The runtime's model for this architecture is built only for a draft vocab equal to the
    target's (vLLM's XPress: its refiner works over the target vocabulary, 'XPress currently
    requires a full-vocab draft'): a pruned or padded drafter fails at start-up."""
    if not p.vocab_equal_target or f.Vd is None or f.Vt is None or f.Vd == f.Vt:
        return []
    return [
        new_finding(
            "DSC692",
            f"draft vocab Vd {f.Vd} is not the target's Vt {f.Vt}: {p.name} ({p.release}) "
            "is built only for a full-vocab draft and raises at start-up",
            tensor="draft_vocab_size",
        )
    ]
