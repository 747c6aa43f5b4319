"""Tensor shapes and names: what a runtime's shape checks at load compare.

Each function is one finding code (``registry.py``); its docstring is the code's
explanation. They read only the gathered ``Facts``.
"""

from __future__ import annotations

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.facts.vocab import ROLE_TENSORS
from dspark_ckpt.loader.model import loader_model
from dspark_ckpt.loader.parts import Module
from dspark_ckpt.loader.view import fc_input, model_config, norm_before_fc, translated, truthy
from dspark_ckpt.profiles.registry import DSPARK, Profile
from dspark_ckpt.rules.findings import ERROR, Finding, new_finding
from dspark_ckpt.rules.registry import COMMON, PROFILE, rule
from dspark_ckpt.source.safetensors import TensorInfo


def _rows(info: TensorInfo | None, rows: int, rows_name: str, code: str) -> list[Finding]:
    if info is None or (len(info.shape) == 2 and info.shape[0] == rows):
        return []
    return [
        new_finding(
            code, f"{info.name} is {list(info.shape)}; expected [{rows_name} {rows}, H]", info
        )
    ]


@rule(
    "DSC201",
    ERROR,
    "lm_head rows differ from draft_vocab_size",
    scope=COMMON,
    hint="make draft_vocab_size and lm_head agree (re-export, or fix config.json)",
)
def lm_head_rows(f: Facts) -> list[Finding]:
    """lm_head must be [Vd, H]: a stale head from another export, or a config whose draft_vocab_size
    was not updated, fails the runtime's shape check at load."""
    return _rows(f.lm_head, f.Vd, "draft_vocab_size", "DSC201")


@rule(
    "DSC202",
    ERROR,
    "embed_tokens rows differ from vocab_size",
    scope=COMMON,
    hint="make vocab_size and embed_tokens agree",
)
def embed_rows(f: Facts) -> list[Finding]:
    """embed_tokens must be [V, H] with V the drafter config's vocab_size."""
    return _rows(f.embed, f.V, "vocab_size", "DSC202")


# packed quantised weights: columns per stored element (NVFP4 packs two in a U8)
PACKED_COLUMNS = {"U8": 2, "I8": 2}


def _packed(info: TensorInfo, f: Facts) -> bool:
    """A quantised config's packed weight (NVFP4 ``U8 [rows, H/2]``) is H wide, not a
    hidden-size mismatch (FP8 keeps H columns)."""
    per = PACKED_COLUMNS.get(info.dtype)
    return f.cfg.quantized and per is not None and info.shape[1] * per == f.cfg.hidden_size


@rule(
    "DSC203",
    ERROR,
    "hidden size differs from the config",
    scope=COMMON,
    hint="check that config.json belongs to these weights",
)
def hidden_width(f: Facts) -> list[Finding]:
    """The second dimension of lm_head / embed_tokens must be the drafter's hidden_size: a mismatch
    means a drafter exported for another model."""
    h = f.cfg.hidden_size
    return [
        new_finding(
            "DSC203", f"{info.name} has {info.shape[1]} columns but hidden_size is {h}", info
        )
        for info in (f.lm_head, f.embed)
        if info is not None
        and h is not None
        and len(info.shape) == 2
        and info.shape[1] != h
        and not _packed(info, f)
    ]


@rule(
    "DSC204",
    ERROR,
    "markov_w1 shape",
    scope=COMMON,
    hint="re-export the Markov head with the config's vocab_size and markov_rank",
)
def markov_w1_shape(f: Facts) -> list[Finding]:
    """DSpark's markov_head.markov_w1.weight must be [V, r] (input vocab x markov_rank)."""
    w1, r = f.markov_w1, f.rank
    if w1 is None or (len(w1.shape) == 2 and w1.shape[0] == f.V and not (r and w1.shape[1] != r)):
        return []
    return [
        new_finding(
            "DSC204",
            f"markov_w1 is {list(w1.shape)}; expected [vocab_size {f.V}, markov_rank {r}]",
            w1,
        )
    ]


@rule(
    "DSC205",
    ERROR,
    "markov_w2 shape",
    scope=PROFILE,
    hint="re-export the Markov head with the config's draft_vocab_size and markov_rank",
)
def markov_w2_shape(f: Facts, p: Profile) -> list[Finding]:
    """DSpark's markov_head.markov_w2.weight must be [Vd, r] in vLLM (its output is added to the
    draft logits) and [V, r] in SGLang and TensorRT-LLM (both build it as a Linear(markov_rank,
    vocab_size))."""
    w2 = f.markov_w2
    if w2 is None or p.family != DSPARK:
        return []
    rows = f.Vd if p.markov_w2_rows == "draft_vocab_size" else f.V
    r = f.rank
    if len(w2.shape) != 2 or w2.shape[0] != rows or (r and w2.shape[1] != r):
        return [
            new_finding(
                "DSC205",
                f"markov_w2 is {list(w2.shape)}; {p.name} expects "
                f"[{p.markov_w2_rows} {rows}, markov_rank {r or 'r'}] (a shape mismatch at load)",
                w2,
            )
        ]
    return []


@rule(
    "DSC209",
    ERROR,
    "tensor stored under several names",
    scope=COMMON,
    hint="keep one copy of each tensor, under the name the runtime expects",
)
def stored_twice(f: Facts) -> list[Finding]:
    """Runtimes look tensors up after stripping a wrapper prefix (model., language_model.model.,
    ...). Two copies of one tensor under different prefixes (d2t and model.d2t) load into one
    parameter in an order that depends on the runtime and the file order, or fail as an unexpected
    name: the checkpoint does not say which one is the drafter's."""
    # one tensor under several names (d2t and model.d2t): only the first is checked,
    # and which one a runtime loads depends on how it maps names
    out = []
    for role in ROLE_TENSORS:
        names = f.aliases[role]
        if len(names) > 1:
            out.append(
                new_finding(
                    "DSC209",
                    f"{role} is stored under {len(names)} names ({', '.join(names)}): only "
                    f"{names[0]} is checked, and a runtime may load any of them",
                    f.tensors[names[0]],
                )
            )
    return out


def _fc_input(f: Facts, p: Profile) -> tuple[int, str, int, int] | None:
    """fc's input where the model ``p`` builds fc at all: vLLM's EAGLE-3 builds none with
    eagle_config.use_aux_hidden_state false (llama_eagle3.py:209), SGLang's one always."""
    model = loader_model(f, p)
    if model is not None and not any(isinstance(m, Module) and m.path == "fc" for m in model.parts):
        return None
    return fc_input(f, p)


@rule(
    "DSC210",
    ERROR,
    "fc width differs from the target hidden states the runtime feeds",
    scope=PROFILE,
    hint=(
        "set num_aux_hidden_states (EAGLE-3) or the layer id list to the number of target hidden "
        "states the drafter was trained on"
    ),
)
def fc_width(f: Facts, p: Profile) -> list[Finding]:
    """fc.weight must be [H, n_aux * Ht], with n_aux resolved as the runtime does: vLLM and SGLang
    EAGLE-3 count num_aux_hidden_states, else eagle_config.eagle_aux_hidden_state_layer_ids, else 3
    (a speculators config's top-level eagle_aux_hidden_state_layer_ids is not counted by the model);
    vLLM DFlash/DSpark count the first aux/target layer id list, else num_hidden_layers. Another
    width fails the load (shape mismatch)."""
    # fc is [H, n_aux * Ht], as the runtime builds it
    built, fc = _fc_input(f, p), f.fc
    if built is None or fc is None:
        return []
    n, source, ht, width = built
    h = f.cfg.hidden_size
    packed = f.cfg.quantized and fc.dtype in ("U8", "I8")
    if packed or fc.shape == (h, width):
        return []
    top = f.cfg.value("eagle_aux_hidden_state_layer_ids")
    note, hint = "", None
    if isinstance(top, list) and len(fc.shape) == 2 and fc.shape[1] == len(top) * ht:
        note = (
            f"; the config's top-level eagle_aux_hidden_state_layer_ids lists "
            f"{len(top)} layers, but the model does not count them"
        )
        where = (  # a translated speculators config keeps only transformer_layer_config's
            "transformer_layer_config of config.json" if translated(f, p) else "config.json"
        )
        hint = (
            f"set num_aux_hidden_states: {len(top)} in {where}, so the model "
            "builds fc for the hidden states the runner feeds"
        )
    if not p.aux_layer_keys:  # no drafter key counts them: the serving config does
        hint = (
            f"{p.runtime} reads no drafter key for the count: serve with "
            "speculative_config.eagle3_layers_to_capture naming the layers the drafter was "
            f"trained on ({fc.shape[1] // ht if len(fc.shape) == 2 and ht else '?'} for this fc)"
        )
    return [
        new_finding(
            "DSC210",
            f"{fc.name} is {list(fc.shape)}; {p.runtime} builds fc for {n} target "
            f"hidden states ({source}) of width {ht}: [{h}, {width}], and the load "
            f"fails on the shape{note}",
            fc,
            hint=hint,
        )
    ]


@rule(
    "DSC211",
    ERROR,
    "input_norm width differs from fc's input",
    scope=PROFILE,
    hint="make input_norm.weight [n_aux * Ht], as fc's input",
)
def input_norm_width(f: Facts, p: Profile) -> list[Finding]:
    """With norm_before_fc the runtime builds input_norm as RMSNorm(n_aux * Ht): another width fails
    the load."""
    # input_norm is [n_aux * Ht] where the runtime normalises fc's input
    built, norm = _fc_input(f, p), f.input_norm
    if built is None or norm is None:
        return []
    n, _, ht, width = built
    # vLLM/SGLang: eagle_config.norm_before_fc where present (null included), else the top level
    if not truthy(norm_before_fc(model_config(f, p), p)) or norm.shape == (width,):
        return []
    return [
        new_finding(
            "DSC211",
            f"{norm.name} is {list(norm.shape)}; with norm_before_fc {p.runtime} builds "
            f"input_norm [{width}] ({n} x {ht}): the load fails on the shape",
            norm,
        )
    ]
