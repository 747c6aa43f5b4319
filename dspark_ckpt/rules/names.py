"""The names the checkpoint stores against the module tree the runtime's loader builds
(``loader.model``): names under a wrapper prefix (DSC111), names the model has no
parameter for (DSC112 refused, DSC665 a trained layer skipped, DSC666 skipped, DSC672 a
trained fc bias ignored), and weight files loaded with the drafter that are not its weights
(DSC620, DSC621).

One finding per root cause: d2t and t2d are DSC105's, names under a wrapper prefix
DSC111's, a stray file's names DSC620's, fc_norm tensors without fc_norm DSC656's, a
Markov tensor the model's head type lacks DSC658's / DSC684's, mask_hidden DSC655's; the
generic comparison leaves them out. Each function is one finding code; its docstring is
the code's explanation. They read only the ``Facts`` and the loader model.
"""

from __future__ import annotations

from dataclasses import replace

from dspark_ckpt.errors import few
from dspark_ckpt.facts.gather import WRAPPER_PREFIXES, Facts
from dspark_ckpt.facts.vocab import BIAS_TENSOR, MASK_TENSOR
from dspark_ckpt.facts.weight_files import WeightFile
from dspark_ckpt.loader.model import Unexpected, loader_model
from dspark_ckpt.loader.parts import FUSED, MAPPINGS, Module
from dspark_ckpt.loader.view import architecture, model_config
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING, Finding, new_finding
from dspark_ckpt.rules.registry import PROFILE, rule
from dspark_ckpt.rules.repairs import (
    SAFE,
    UNSAFE,
    Drops,
    Fix,
    Rename,
    emit_command,
    fix_command,
    repair,
)
from dspark_ckpt.source.layout import NAME_PREFIXES


def _unprefixed(name: str) -> str:
    prefix = max((x for x in NAME_PREFIXES if name.startswith(x)), key=len)
    return name[len(prefix) :]


@repair("strip-prefix", SAFE)
def strip_prefix(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """Tensor names under a wrapper prefix (model.lm_head.weight) are stored without it
    (lm_head.weight), their bytes unchanged. Not done where the plain name is taken."""
    if p is not None and p.prefixed_names == REQUIRED:
        return None  # the prefix is what this loader reads
    renames = {name: _unprefixed(name) for name in f.prefixed}
    new = list(renames.values())
    if any(n in f.tensors for n in new) or len(set(new)) < len(new):
        return None
    return Fix(
        tuple(Rename(a, b) for a, b in renames.items()),
        f"store {len(renames)} tensor(s) without their wrapper prefix",
    )


@rule(
    "DSC111",
    ERROR,
    "tensor names under a wrapper prefix",
    scope=PROFILE,
    hint=(
        "rename the tensors without the wrapper prefix (lm_head.weight, d2t, embed_tokens.weight, "
        f"layers.N....): {fix_command()} does"
    ),
    repair=strip_prefix,
)
def wrapper_prefix(f: Facts, p: Profile) -> list[Finding]:
    """vLLM's drafter loaders prepend 'model.' to every name but lm_head and d2t, and TensorRT-LLM
    loads names as stored with a strict state dict: a stored model.lm_head.weight, model.d2t or
    model.embed_tokens.weight is no parameter of theirs and fails the load ('There is no module or
    parameter named ...' / 'Unexpected key(s)'). SGLang's EAGLE-3 over DeepSeek MLA
    (``mla_architectures``) prepends 'model.' to every name but lm_head.: model.X becomes
    model.model.X, which it skips with a warning, the weight left at its initial value. vLLM's
    MiniCPM and Cohere classic EAGLE loaders read names as stored (``prefixed_names``
    "required"): the inner model's names must carry 'model.', and a name without it (but
    lm_head's) names no module of theirs and fails the load."""
    if p.prefixed_names == REQUIRED:
        return _prefix_missing(f, p)
    # names under a wrapper prefix are not the tensors a strict loader maps
    names = f.prefixed
    mla = architecture(f, p) in p.mla_architectures
    if (p.prefixed_names != "rejected" and not mla) or not names:
        return []
    how = (
        "loads names as stored with load_state_dict(strict=True): 'Unexpected key(s)'"
        if p.strict_names
        else "prepends 'model.' to every name but lm_head. itself: it skips model.model.* "
        "with a warning and the weight keeps its initial value"
        if mla
        else "prepends 'model.' to every name but lm_head and d2t itself: its weight loader "
        "raises 'There is no module or parameter named ...'"
    )
    return [
        new_finding(
            "DSC111",
            f"{len(names)} tensor name(s) carry a wrapper prefix ({few(names, 3)}): {p.runtime} {how}",
            f.tensors[names[0]],
        )
    ]


REQUIRED = "required"


def _unprefixed_names(f: Facts) -> list[str]:
    """The names a loader reading them under model. finds no module for: those without the
    prefix, but lm_head's (a top-level module) and d2t / t2d (DSC105's)."""
    return sorted(
        n
        for n in f.tensors
        if not n.startswith("model.") and n.split(".")[0] not in ("lm_head", *MAPPINGS)
    )


def _prefix_missing(f: Facts, p: Profile) -> list[Finding]:
    names = _unprefixed_names(f)
    if not names:
        return []
    return [
        new_finding(
            "DSC111",
            f"{len(names)} tensor name(s) lack the model. prefix ({few(names, 3)}): {p.name} "
            "reads names as stored, the drafter's under model. (lm_head at the top): its "
            "weight loader raises 'There is no module or parameter named ...'",
            f.tensors[names[0]],
            hint="store the drafter's tensors under model. (model.fc.weight, model.layers.N....), "
            "lm_head.weight at the top level",
        )
    ]


def _as_stored(f: Facts, name: str) -> str:
    """``name`` (a wrapper prefix removed) as the checkpoint stores it."""
    info = f.stored(name)
    return info.name if info is not None else name


def _stripped(name: str) -> str:
    for prefix in WRAPPER_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def _unexpected(f: Facts, p: Profile) -> Unexpected | None:
    """``_judged``, once per facts and profile (three codes and a repair read it)."""
    key = ("unexpected", p)
    if key not in f.memo:
        f.memo[key] = _judged(f, p)
    return f.memo[key]


def _judged(f: Facts, p: Profile) -> Unexpected | None:
    """The stored names ``p``'s model has no parameter for, but those another code
    reports (names under a wrapper prefix: DSC111; a stray file's: DSC620/DSC621); None
    where the loader is not modelled or its names cannot be judged (quantised weights,
    whose scales the model names its own way; a config format the runtime cannot read)."""
    model = loader_model(f, p)
    if model is None or (f.cfg.quantized and not model.exact):
        return None
    if f.cfg.speculators_format and not p.reads_speculators_format:
        return None  # DSC604: the drafter is not built at all
    stray = {n for w, why in loaded_strays(f, p) if why == FOREIGN for n in w.tensors or ()}
    # a tensor the loader reads outside the model (required_tensors) is no parameter's
    # (names DSC111 reports: under a prefix the loader rejects, or without one it requires);
    # where model. is the model's own root, a name under it is judged as any other
    if p.prefixed_names == REQUIRED:
        reported = _unprefixed_names(f)
    else:
        reported = () if p.prefixed_names == "model_root" else f.prefixed
    as_named = _stripped if model.renamed is None else str  # a renaming loader's: as stored
    exclude = frozenset(as_named(n) for n in (*reported, *stray, *p.required_tensors))
    return model.unexpected(f, exclude)


def _names(found: Unexpected | None) -> tuple[str, ...]:
    """Every unexpected name, sorted (each part already is: two runs to merge)."""
    if found is None or not found.beyond:
        return () if found is None else found.other
    return tuple(sorted(found.beyond + found.other))


@repair("drop-unexpected", UNSAFE)
def drop_unexpected(f: Facts, p: Profile | None, finding: Finding) -> Fix | None:
    """The tensors the runtime's model has no parameter for are dropped. Unsafe: another
    runtime may use them (a confidence head), or the config should build them instead (a
    layer count, aux hidden states)."""
    names = _names(_unexpected(f, p)) if p is not None else ()
    if not names:
        return None
    return Fix((Drops(names),), f"drop {len(names)} tensor(s) the model lacks")


def _beyond_note(f: Facts, p: Profile, found: Unexpected) -> str:
    if not found.beyond:
        return ""
    # the count the model is built with (where the runtime normalises the config itself)
    cfg = model_config(f, p) if p.config_view else None
    layers = cfg.get("num_hidden_layers") if cfg is not None else f.cfg.value("num_hidden_layers")
    return (
        f"; {len(found.beyond)} of them lie in decoder layers the config does not build "
        f"(num_hidden_layers is {layers})"
    )


@rule(
    "DSC112",
    ERROR,
    "tensor the runtime's model has no parameter for: refused at load",
    scope=PROFILE,
    hint=(
        "drop the tensors the runtime's model does not have, or set in config.json what builds "
        "them (num_hidden_layers, use_aux_hidden_state, enable_confidence_head, markov_rank at "
        "the top level)"
    ),
    repair=drop_unexpected,
)
def unexpected_refused(f: Facts, p: Profile) -> list[Finding]:
    """The checkpoint stores a tensor the runtime's model has no parameter for: a decoder layer
    past num_hidden_layers, fc when the config turns aux hidden states off, a projection no model
    of the family has, a confidence head or Markov head the config does not build at the top
    level, quantisation scales. vLLM's AutoWeightsLoader raises 'There is no module or parameter
    named ...' (models/utils.py; it ignores stray biases, and its loaders drop t2d and the names
    their mapper skips on purpose); TensorRT-LLM loads a Qwen3 DSpark drafter with
    load_state_dict(strict=True): 'Unexpected key(s)'. Either way the drafter does not load."""
    if p.stray_names != "refused":
        return []
    found = _unexpected(f, p)
    others = _names(found)
    if not others:
        return []
    if p.strict_names:
        how = (
            "load_state_dict(strict=True) raises 'Unexpected key(s)' (a confidence head "
            "or Markov head counts only when enable_confidence_head / markov_rank are set "
            "at the top level of config.json)"
        )
    elif p.read_prefixes:
        how = (
            "its own load_weights raises on a name under the prefixes it reads that it has no "
            "parameter for"
        )
    else:
        how = "its weight loader raises 'There is no module or parameter named ...'"
    return [
        new_finding(
            "DSC112",
            f"{len(others)} tensor(s) the {p.runtime} model does not have "
            f"({few([_as_stored(f, n) for n in others], 3)}): "
            f"{how}{_beyond_note(f, p, found)}",
            f.stored(others[0]),
        )
    ]


@rule(
    "DSC113",
    ERROR,
    "decoder-layer tensor of another shape than the config builds",
    scope=PROFILE,
    hint=(
        "make the config's sizes (num_attention_heads, num_key_value_heads, head_dim, "
        "intermediate_size, hidden_size) those the drafter was trained with"
    ),
)
def layer_shape_differs(f: Facts, p: Profile) -> list[Finding]:
    """The runtime builds each decoder layer from the config: q_proj [heads x head_dim, H],
    k_proj / v_proj [KV heads x head_dim, H], o_proj [H, heads x head_dim], gate_proj / up_proj
    [intermediate_size, H], down_proj [H, intermediate_size], the norms [H], q_norm / k_norm
    [head_dim] (head_dim: the config's, else H // heads; an EAGLE-3 first layer takes 2H into
    q/k/v: the embedding and the hidden state concatenated). A stored weight of another shape
    fails the load: vLLM's and SGLang's weight loaders assert the sizes, TensorRT-LLM's strict
    state dict reports a size mismatch. A fused form the loader splits (qkv_proj [(heads + 2 x
    KV heads) x head_dim, the layer's input], gate_up_proj [2 x intermediate_size, H]) is cut
    into its parts by rows first: too few rows fail the load, too many are dropped without a
    word (the parts are other rows than trained). A config that declares more heads or a
    larger intermediate size than the tensors hold is found here at the cost of the stored
    layers, whatever the numbers."""
    model = loader_model(f, p)
    if model is None or f.cfg.quantized:
        return []
    if f.cfg.speculators_format and not p.reads_speculators_format:
        return []
    bad = model.misshapen(f)
    if not bad:
        return []
    name, shape, built = bad[0]
    more = f" ({len(bad) - 1} more like it)" if len(bad) > 1 else ""
    how = "the load fails on the shape"
    split = name.removesuffix(".weight").endswith(tuple(f".{m}" for m in FUSED))
    if split and shape[1:] == built[1:] and shape[0] > built[0]:
        how = (
            f"its weight loader splits the first {built[0]} rows into its parts and drops the "
            "rest: other weights than trained, no error"
        )
    return [
        new_finding(
            "DSC113",
            f"{name} is {list(shape)}; {p.name} builds it {_dims(built)} from the config{more}: "
            f"{how}",
            f.stored(name),
        )
    ]


def _dims(shape: tuple[int | None, ...]) -> str:
    """``shape`` as a list, ``*`` for a size the config does not give."""
    return "[" + ", ".join("*" if d is None else str(d) for d in shape) + "]"


@rule(
    "DSC665",
    ERROR,
    "trained decoder layer the model does not build: skipped silently",
    scope=PROFILE,
    hint="set num_hidden_layers to the number of decoder layers the drafter was trained with",
)
def trained_layer_skipped(f: Facts, p: Profile) -> list[Finding]:
    """The checkpoint stores decoder layers past the config's num_hidden_layers. SGLang's loaders
    look each name up in the model's parameters and skip the ones it lacks, without a word: the
    drafter runs with fewer layers than it was trained with, and proposes garbage (no error).
    vLLM and TensorRT-LLM refuse the same checkpoint (DSC112)."""
    if p.stray_names != "skipped":
        return []
    found = _unexpected(f, p)
    if found is None or not found.beyond:
        return []
    names = sorted(found.beyond)
    layers = f.cfg.value("num_hidden_layers")
    return [
        new_finding(
            "DSC665",
            f"{len(names)} tensor(s) of decoder layers past num_hidden_layers {layers} "
            f"({few(names, 3)}): {p.release} builds {layers} layer(s) and skips these "
            "names silently: the drafter runs without layers it was trained with (garbage "
            "proposals, no error)",
            f.stored(names[0]),
        )
    ]


@rule(
    "DSC666",
    WARNING,
    "tensor the runtime's model has no parameter for: skipped",
    scope=PROFILE,
    hint="drop the tensors the runtime's model does not have (vLLM refuses them)",
    repair=drop_unexpected,
)
def unexpected_skipped(f: Facts, p: Profile) -> list[Finding]:
    """The checkpoint stores a tensor under no module of the runtime's model (an extra projection,
    a vendor's own head). SGLang's loaders skip names they have no parameter for: read for
    nothing here, and the drafter is the model the config builds. vLLM refuses the same
    checkpoint (DSC112)."""
    if p.stray_names != "skipped":
        return []
    found = _unexpected(f, p)
    if found is None or not found.other:
        return []
    names = sorted(found.other)
    return [
        new_finding(
            "DSC666",
            f"{len(names)} tensor(s) the {p.runtime} model does not have ({few(names, 3)}):"
            f" {p.release} skips them silently (vLLM refuses the load)",
            f.stored(names[0]),
        )
    ]


@rule(
    "DSC672",
    ERROR,
    "trained fc bias the runtime's model does not build: ignored silently",
    scope=PROFILE,
    hint="train the drafter with fc bias=False for this runtime, or serve it where its fc "
    "takes the bias",
)
def fc_bias_ignored(f: Facts, p: Profile) -> list[Finding]:
    """The checkpoint stores fc.bias and the runtime builds fc without a bias. vLLM's loader
    ignores every unexpected name ending in .bias (AutoWeightsLoader, models/utils.py), so the
    drafter loads with no error and runs its fc without the bias it was trained with: its
    proposals are not the trained model's. The EAGLE release code (eagle/model/cnets.py) trains
    fc with a bias by default, and vLLM's classic EAGLE builds it without one."""
    model = loader_model(f, p)
    if model is None or ".bias" not in model.ignored_suffixes:
        return []
    # the stored name the model meets as fc.bias (a renaming loader's: eagle_linear.bias, ...;
    # else under a wrapper prefix where the loader reads it there)
    if model.renamed is None:
        bias = f.stored("fc.bias")
    else:
        bias = f.tensors.get(model.renamed.stored.get("fc.bias", ""))
    if bias is None:
        return []
    fc = [m for m in model.parts if isinstance(m, Module) and m.path == "fc"]
    if not fc or "bias" in fc[0].tensors:
        return []
    return [
        new_finding(
            "DSC672",
            f"{bias.name} is stored and {p.name}'s fc has no bias: {p.release} ignores it with "
            "every unexpected .bias, and the drafter runs without the bias it was trained "
            "with (no error)",
            bias,
        )
    ]


# --- stray weight files: loaded with the drafter's weights (DSC620, DSC621) ---------------

FOREIGN, UNREADABLE, BESIDE = "foreign", "unreadable", "beside"


def loaded_strays(f: Facts, p: Profile) -> list[tuple[WeightFile, str]]:
    """Each ``*.safetensors`` of the drafter's folder that ``p``'s loader reads although it
    is not the drafter's weights, with why: FOREIGN (it holds no drafter tensor, beside
    files that do), UNREADABLE (its header cannot be read), BESIDE (an index does not name
    it, and the loader reads it anyway with its drafter tensors)."""
    out = []
    for w in f.weight_files:
        if not w.listed and p.stray_files_loaded != "all":
            continue  # beside an index that does not name it: not read
        if w.tensors is None:
            out.append((w, UNREADABLE))
        elif w.tensors and not w.drafter_tensors:
            out.append((w, FOREIGN))
        elif not w.listed and w.drafter_tensors:
            out.append((w, BESIDE))
    return out


def _why_loaded(w: WeightFile, p: Profile) -> str:
    if not w.listed:
        return (
            f"model.safetensors.index.json does not name it, but {p.runtime} loads every "
            "*.safetensors of the folder, index or not"
        )
    if w.indexed:
        return f"model.safetensors.index.json names it, so {p.runtime} loads it"
    if p.stray_files_loaded == "all":
        return f"{p.runtime} loads every *.safetensors of the folder"
    return (
        f"the folder has no model.safetensors.index.json, so {p.runtime} loads every "
        "*.safetensors in it"
    )


def _own_output(w: WeightFile) -> str:
    ours = {MASK_TENSOR, BIAS_TENSOR} & set(w.tensors or ())
    if not ours:
        return ""
    return (
        f" (the padded-row mask {emit_command('--emit-mask')} writes: a side file for the "
        "serving code, never a weight)"
    )


def _stray_finding(code: str, message: str, w: WeightFile, hint: str) -> Finding:
    names = w.foreign_tensors or w.drafter_tensors
    return replace(
        new_finding(code, message, tensor=names[0] if names else w.name, hint=hint),
        file=str(w.path),
    )


@rule(
    "DSC620",
    ERROR,
    "stray weight file loaded with the drafter",
    scope=PROFILE,
    hint="move the file out of the drafter's folder",
)
def stray_weight_file(f: Facts, p: Profile) -> list[Finding]:
    """A *.safetensors file beside the drafter's weights that is not one of them (the mask `fix
    --emit-mask` writes, a trainer's training_state.safetensors). vLLM and SGLang load every
    *.safetensors of a folder without model.safetensors.index.json, TensorRT-LLM every one even
    with an index. vLLM has no parameter for its names and raises 'There is no module or parameter
    named ...'; TensorRT-LLM's strict DSpark load raises 'Unexpected key(s)'. A file beside an
    index that TensorRT-LLM loads anyway with drafter tensors in it mixes them with the index's
    shards (a name in both: whichever file loads last wins), and one it cannot read fails the
    load."""
    out = []
    for w, why in loaded_strays(f, p):
        if why == FOREIGN and (p.stray_names != "refused" or _unread(w, p)):
            continue  # skipped by the loader: DSC621
        loaded = _why_loaded(w, p)
        if why == FOREIGN:
            fails = (
                "load_state_dict(strict=True) raises 'Unexpected key(s)'"
                if p.strict_names
                else "its weight loader raises 'There is no module or parameter named ...'"
            )
            what = (
                f"{w.name} holds no tensor of the drafter ({few(w.foreign_tensors, 3)})"
                f"{_own_output(w)}; {loaded}: it has no parameter for them and {fails}"
            )
        elif why == UNREADABLE:
            what = f"{w.name} cannot be read as safetensors; {loaded}: the load fails"
        else:
            what = (
                f"{w.name} holds drafter tensors ({few(w.drafter_tensors, 3)}); {loaded}: "
                "they are loaded with the index's shards (a name in both: whichever file "
                "loads last wins)"
            )
        hint = f"move {w.name} out of the drafter's folder"
        if w.listed and w.indexed:
            hint = f"drop {w.name} from model.safetensors.index.json and the drafter's folder"
        elif w.listed and p.stray_files_loaded == "index_or_all":
            hint += " (or write a model.safetensors.index.json that names only the weight files)"
        out.append(_stray_finding("DSC620", what, w, hint))
    return out


@rule(
    "DSC621",
    INFO,
    "stray weight file loaded, its names skipped",
    scope=PROFILE,
    hint="move the file out of the drafter's folder",
)
def stray_weight_file_skipped(f: Facts, p: Profile) -> list[Finding]:
    """A *.safetensors file beside the drafter's weights that is not one of them is loaded (every
    *.safetensors of a folder without an index, or every one for TensorRT-LLM), and this runtime
    skips the names it has no parameter for (SGLang, TensorRT-LLM EAGLE-3), or every name outside
    the prefixes it reads (SGLang's M3.1 DSpark: dspark.): harmless here, read for nothing. vLLM
    refuses the same folder (DSC620)."""
    return [
        _stray_finding(
            "DSC621",
            f"{w.name} holds no tensor of the drafter ({few(w.foreign_tensors, 3)})"
            f"{_own_output(w)}; {_why_loaded(w, p)}, and it skips names it has no parameter "
            "for: read for nothing (vLLM refuses the load)",
            w,
            f"move {w.name} out of the drafter's folder",
        )
        for w, why in loaded_strays(f, p)
        if why == FOREIGN and (p.stray_names == "skipped" or _unread(w, p))
    ]


def _unread(w: WeightFile, p: Profile) -> bool:
    """Whether ``p``'s loader skips every name of ``w``: none under the prefixes it reads."""
    return bool(p.read_prefixes) and not any(n.startswith(p.read_prefixes) for n in w.tensors or ())
