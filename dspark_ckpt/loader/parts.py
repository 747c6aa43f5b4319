"""The parts a loader model is built of: the modules and blocks, the decoder layers each
family builds (Qwen3, EAGLE-3's, classic EAGLE's Llama, DeepSeek MLA) with their shapes, the
Markov and confidence heads, a profile's ``name_maps`` read, and a variant architecture's own
modules (``extra_modules`` / ``layer_modules``, parsed from the profile's fields)."""

from __future__ import annotations

from dataclasses import field, replace

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader.names import OUTSIDE
from dspark_ckpt.loader.view import GEMMA4_MTP, aux_count, count, dotted, present, truthy
from dspark_ckpt.profiles.registry import Profile
from dspark_ckpt.record import record

# a Qwen3 decoder layer's modules (the fused forms a checkpoint may store instead are the
# profile's name_maps)
QWEN3_LAYER = (
    ("self_attn.q_proj",),
    ("self_attn.k_proj",),
    ("self_attn.v_proj",),
    ("self_attn.o_proj",),
    ("self_attn.q_norm",),
    ("self_attn.k_norm",),
    ("mlp.gate_proj",),
    ("mlp.up_proj",),
    ("mlp.down_proj",),
    ("input_layernorm",),
    ("post_attention_layernorm",),
)


# the fused forms a loader may take for a decoder layer's modules (the profile's name_maps
# say which): their shapes are the parts' rows stacked, over the same input
QKV, GATE_UP = "self_attn.qkv_proj", "mlp.gate_up_proj"
QKV_PARTS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj")
FUSED = (QKV, GATE_UP)


# the EAGLE-3 decoder layer: Llama's (no q/k norms), with its own hidden_norm
EAGLE3_LAYER = (
    *(m for m in QWEN3_LAYER if m[0] not in ("self_attn.q_norm", "self_attn.k_norm")),
    ("hidden_norm",),
)


# the Llama decoder layer classic EAGLE (EAGLE-1) builds: EAGLE-3's without its hidden_norm
LLAMA_LAYER = tuple(m for m in EAGLE3_LAYER if m[0] != "hidden_norm")


# the EAGLE-3 decoder layer over DeepSeek MLA attention and a dense MLP (q_lora_rank set);
# MLA_Q_LAYER without it: vLLM's q_proj, and no kv_a_proj_with_mqa (deepseek_eagle3.py's
# mapper stacks that name into fused_qkv_a_proj, which this attention does not build)
MLA_KV = ("kv_a_layernorm", "kv_b_proj", "o_proj")


NOT_ATTN = tuple(m for m in EAGLE3_LAYER if not m[0].startswith("self_attn."))


MLA_Q = ("q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa")


MLA_LAYER = (*(("self_attn." + m,) for m in (*MLA_Q, *MLA_KV)), *NOT_ATTN)


MLA_Q_LAYER = (*(("self_attn." + m,) for m in ("q_proj", *MLA_KV)), *NOT_ATTN)


# the DSpark Markov head: markov_w1 / markov_w2, and each head type's extra projection
MARKOV_W = ("markov_head.markov_w1", "markov_head.markov_w2")


MARKOV_EXTRA = {"gated": "markov_head.gate_proj", "rnn": "markov_head.joint_proj"}


CONFIDENCE = "confidence_head.proj"


# modules whose checkpoint tensors are a weight and a bias
WITH_BIAS = (CONFIDENCE, *MARKOV_EXTRA.values())


# the tensors of a module that takes any name under it, even in an exact load, and needs
# none ("PATH:*": what it needs is the profile's required_tensors)
ANY = ("*",)


# names that are not parameters: mapping tensors (DSC105's), training-only tensors
MAPPINGS = ("d2t", "t2d")


@record
class NameMaps:
    """A profile's ``name_maps`` ("stored>model"), read: the stored paths of a module (a
    top-level one, or a decoder layer's by its path in the layer), the stored prefixes of
    a block index (``midlayer`` for ``layers.0``), and the loader's whole-name renames by
    pattern ("re:PATTERN>NAME" / "re1:PATTERN>NAME", in order: ``names.renamed``)."""

    modules: dict[str, tuple[str, ...]]
    blocks: dict[str, dict[int, tuple[str, ...]]]
    patterns: tuple[tuple[str, str, str], ...] = ()  # (kind: re or re1, pattern, name)


def name_maps(p: Profile) -> NameMaps:
    modules: dict[str, tuple[str, ...]] = {}
    blocks: dict[str, dict[int, tuple[str, ...]]] = {}
    patterns: list[tuple[str, str, str]] = []
    for entry in p.name_maps:
        kind, colon, rest = entry.partition(":")
        if colon and kind in ("re", "re1"):
            pattern, _, to = rest.rpartition(">")
            patterns.append((kind, pattern, to))
            continue
        stored, _, model = entry.partition(">")
        prefix, _, index = model.rpartition(".")
        if prefix and index.isdigit():
            at = blocks.setdefault(prefix, {})
            at[int(index)] = (*at.get(int(index), ()), stored)
        else:
            modules[model] = (*modules.get(model, ()), stored)
    return NameMaps(modules, blocks, tuple(patterns))


@record
class Module:
    """One module of the model: its path (relative to its block's index), the paths a
    checkpoint may store it under (its own first), and its tensors (an exact load)."""

    path: str
    stored_as: tuple[str, ...]
    tensors: tuple[str, ...] = ("weight",)
    shape: tuple[int, ...] | None = None  # the weight's shape, where the config gives it
    exact: bool = False  # its exact tensor names even where the loader maps modules


@record
class Block:
    """``prefix.<i>.<module>`` for i in [0, count): a count (None: not declared as a
    count) and one template; ``aliases`` are other stored prefixes of an index."""

    prefix: str
    count: int | None
    template: tuple[Module, ...]
    aliases: dict[int, tuple[str, ...]] = field(default_factory=dict)
    first: dict[str, tuple[int, ...]] = field(default_factory=dict)  # index 0's own shapes
    first_absent: tuple[str, ...] = ()  # modules of the template index 0 does not build
    # the template of the indices from ``alt_from`` on (DeepSeek's MoE layers), where given
    alt: tuple[Module, ...] = ()
    alt_from: int | None = None
    # the shapes of the fused forms a loader maps onto the template's modules (qkv_proj for
    # q/k/v, gate_up_proj for gate/up), judged where their modules are; index 0's in ``first``
    fused: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def at(self, i: int) -> tuple[Module, ...]:
        """The template of index ``i``: index 0's without the modules it does not build."""
        if self.alt_from is not None and i >= self.alt_from:
            return self.alt
        if i or not self.first_absent:
            return self.template
        return tuple(m for m in self.template if m.path not in self.first_absent)


def layer_shapes(
    cfg: dict, doubled: bool, eagle1: bool = False
) -> tuple[dict[str, tuple[int, ...]], dict]:
    """The weight shapes of a decoder layer's modules (and the norms) as the model builds
    them from the config, where it gives the sizes: head_dim is ``getattr(config,
    "head_dim", None) or hidden_size // num_attention_heads``, KV heads default to the heads
    (vLLM llama.py:158-161); the fused forms a loader splits (``FUSED``): qkv_proj
    [(heads + 2 x KV heads) x head_dim, H], gate_up_proj [2 x intermediate_size, H];
    ``doubled`` (the profile's ``first_qkv_input``, EAGLE-3's): the first layer takes ``2 *
    hidden_size`` into q/k/v and qkv_proj (llama_eagle3.py:80-93); without num_attention_heads
    their rows are the config class's default's (None here) and their input width is judged
    alone; a classic EAGLE fc takes
    [embedding, hidden state], ``2 * hidden_size`` (llama_eagle.py:110-118). Returns
    (shapes, index 0's own)."""
    h = count(cfg.get("hidden_size"))
    heads = count(cfg.get("num_attention_heads"))
    kv = count(cfg.get("num_key_value_heads")) or heads
    inter = count(cfg.get("intermediate_size"))
    hd = count(cfg.get("head_dim")) or (h // heads if h and heads and heads > 0 else None)
    out: dict[str, tuple[int | None, ...]] = {}  # None: a size the config does not give
    first_in: dict[str, tuple[int | None, ...]] = {}
    if not h or h <= 0:
        return out, first_in
    for norm in ("input_layernorm", "post_attention_layernorm", "norm", "hidden_norm"):
        out[norm] = (h,)
    if eagle1:
        out["fc"] = (h, 2 * h)
    if heads and kv and hd is not None and heads > 0 and kv > 0 and hd >= 0:
        out["self_attn.q_proj"] = (heads * hd, h)
        out["self_attn.k_proj"] = out["self_attn.v_proj"] = (kv * hd, h)
        out["self_attn.o_proj"] = (h, heads * hd)
        out["self_attn.q_norm"] = out["self_attn.k_norm"] = (hd,)
        out[QKV] = ((heads + 2 * kv) * hd, h)
    elif heads is None:  # rows from the config class's default heads: the input width alone
        out.update({m: (None, h) for m in (*QKV_PARTS, QKV)})
    if doubled and QKV in out:
        first_in = {m: (out[m][0], 2 * h) for m in (*QKV_PARTS, QKV)}
    if inter and inter > 0:
        out["mlp.gate_proj"] = out["mlp.up_proj"] = (inter, h)
        out["mlp.down_proj"] = (h, inter)
        out[GATE_UP] = (2 * inter, h)
    return out, first_in


def first_doubled(p: Profile) -> bool:
    """Whether ``p``'s model builds decoder layer 0's q/k/v over ``2 * hidden_size`` (the
    embedding and the hidden state concatenated: ``first_qkv_input``)."""
    return p.first_qkv_input == "2_hidden_size"


def fused_shapes(shapes: dict) -> dict[str, tuple[int, ...]]:
    """The fused forms' shapes among ``shapes`` (none where attention is not judged)."""
    return {k: shapes[k] for k in FUSED if k in shapes}


def fits(stored: tuple[int, ...], built: tuple[int | None, ...]) -> bool:
    """Whether ``stored`` is ``built``, a None there any size (one the config does not give)."""
    return len(stored) == len(built) and all(
        b is None or a == b for a, b in zip(stored, built, strict=True)
    )


def view_shapes(cfg: dict, p: Profile) -> dict[str, tuple[int, ...]]:
    """The weight shapes of a variant's own modules (``top_modules``, ``layer_modules``) where
    its config view gives them, else {} (its own modules unshaped). vLLM's Gemma4MTP
    (``gemma4_mtp``, gemma4_mtp.py:283-302, 355-390, 87): the norms [H], the MLP
    [intermediate_size, H] / [H, intermediate_size], pre_projection [H, 2 * backbone width],
    post_projection [backbone width, H], the centroids [num_centroids, H]. Attention is not
    shaped: q_proj, o_proj and q_norm take each layer's head_dim from ``per_layer_config``,
    which the config class computes (a full-attention layer's is another than head_dim)."""
    if p.config_view != GEMMA4_MTP:
        return {}
    shapes = not_attention(layer_shapes(cfg, False)[0])
    h, hb = count(cfg.get("hidden_size")), count(cfg.get("backbone_hidden_size"))
    centroids = count(cfg.get("num_centroids"))
    if not h or h <= 0:
        return shapes
    for norm in ("pre_feedforward_layernorm", "post_feedforward_layernorm"):
        shapes[norm] = (h,)
    if hb and hb > 0:
        shapes["pre_projection"] = (h, 2 * hb)
        shapes["post_projection"] = (hb, h)
    if centroids and centroids > 0:
        shapes[OUTSIDE + "masked_embedding.centroids"] = (centroids, h)
    return shapes


def shaped(mods: tuple[Module, ...], shapes: dict) -> tuple[Module, ...]:
    """``mods`` with the weight shape the config gives each, with a bias or not (SGLang's
    classic EAGLE fc is a Linear with a bias, and its weight loader asserts the weight's size
    like any other's). The one module with no weight given here, SGLang's EAGLE-3 fc bias, is
    at no path the config shapes (fc is shaped for classic EAGLE only)."""
    return tuple(replace(m, shape=shapes.get(m.path)) for m in mods)


def modules_of(paths, maps: NameMaps) -> tuple[Module, ...]:
    out = []
    for (path,) in paths:
        tensors = ("weight", "bias") if path in WITH_BIAS else ("weight",)
        out.append(Module(path, (path, *maps.modules.get(path, ())), tensors))
    return tuple(out)


def markov_modules(kind: str | None, built_types: bool) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [(m,) for m in MARKOV_W]
    if built_types and kind in MARKOV_EXTRA:
        out.append((MARKOV_EXTRA[kind],))
    return out


def top_modules(cfg: dict, p: Profile) -> tuple[Module, ...]:
    """A variant's own top-level modules (``Profile.top_modules``), for this config."""
    return _parsed(cfg, p.top_modules)[0]


def extra_modules(cfg: dict, p: Profile) -> tuple[tuple[Module, ...], tuple[Module, ...]]:
    """The modules a variant's model builds beyond its family's (``Profile.extra_modules``),
    for this config: (top-level ones, each decoder layer's)."""
    return _parsed(cfg, p.extra_modules)


def layer_template(cfg: dict, p: Profile, family: tuple[Module, ...]) -> tuple[Module, ...]:
    """A decoder layer's modules: the variant's own layer (``Profile.layer_modules``, the
    syntax of ``extra_modules``, unshaped) where it has one, else the family's; then the
    modules it adds to each layer."""
    own = _parsed(cfg, tuple(f"layers.*.{e}" for e in p.layer_modules))[1]
    return (*(own or family), *extra_modules(cfg, p)[1])


def per_aux(f: Facts, p: Profile, mods: tuple[Module, ...]) -> list[Module | Block]:
    """Top-level extra modules, a ``PATH.#`` one a block of one per target hidden state."""
    n = (aux_count(f, p) or (None,))[0]
    return [Block(m.path[:-2], n, (Module("", ("",)),)) if m.path[-2:] == ".#" else m for m in mods]


def _parsed(cfg: dict, entries: tuple[str, ...]) -> tuple[tuple[Module, ...], tuple[Module, ...]]:
    top: list[Module] = []
    layer: list[Module] = []
    for entry in entries:
        entry, _, key = entry.partition("?")
        if key and not any(_built(cfg, k) for k in key.split("|")):  # A|B: either builds it
            continue
        paths, _, tensors = entry.partition(":")
        per_layer = paths.startswith("layers.*.")
        stored = tuple(path.removeprefix("layers.*.") for path in paths.split("|"))
        named = tuple(tensors.split(",")) if tensors else ("weight",)
        module = Module(stored[0], stored, named, exact=bool(tensors) and named != ANY)
        (layer if per_layer else top).append(module)
    return tuple(top), tuple(layer)


def _built(cfg: dict, key: str) -> bool:
    """Whether config ``key`` builds a module: set (~KEY: unless it is set false; !KEY:
    unless it is true; ^KEY: only where it is set false, a missing key being a true class
    default)."""
    unset = not truthy(dotted(cfg, key.lstrip("~!^")))
    if key[:1] == "!":
        return unset
    if key[:1] == "^":
        return unset and present(cfg, key[1:])
    return not unset or (key[:1] == "~" and not present(cfg, key[1:]))


def not_attention(shapes: dict) -> dict:
    """MLA's sizes are not Llama's: its attention shapes are not judged."""
    return {k: v for k, v in shapes.items() if not k.startswith("self_attn.")}
