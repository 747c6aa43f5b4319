"""The module tree a runtime release's loader builds for a drafter, and how the stored
names meet it: ``loader_model(facts, profile)``, built once per pair and shared by every
rule that asks "which tensors does the model hold".

A ``LoaderModel`` is an ordered list of parts: single modules (``fc``, ``norm``, the Markov
head) and blocks (``layers``, ``fc_norm``): a declared count and one per-index template.
A block is never expanded: ``missing`` and ``unexpected`` walk the indices the checkpoint
stores (``names.py``), so a config declaring 2**31-1 layers costs what the stored layers
cost, and the layers no tensor backs come back as ranges.

Three loaders, told apart by the profile's fields, never by a runtime's name; the names
each maps onto its model (``midlayer`` -> ``layers.0``, ``encoder.fc`` -> ``fc``, fused
``qkv_proj`` / ``gate_up_proj``, SGLang's ``aux_norm_*`` -> ``fc_norm.*``) are the profile's
cited ``name_maps`` (``name_maps()`` reads them):

- ``missing_tensors`` "uninitialised" (vLLM 0.33.0 qwen3_dspark.py / qwen3_dflash.py /
  llama_eagle3.py ``load_weights``: AutoWeightsLoader, no check of what was filled): a
  module counts as stored when any name lies under it or under one of its mapped names.
  A name no module takes is refused ("There is no module or parameter named ...",
  models/utils.py:443), unless it ends in ``.bias`` (``ignore_unexpected_suffixes``,
  utils.py:459) or the loader's own mapper drops it (``t2d``, ``mask_embedding``, a
  confidence head the model does not build; DFlash/EAGLE-3: ``fc.`` without aux states;
  EAGLE-3: ``input_norm.`` without norm_before_fc).
  "partial_fc_required" (TensorRT-LLM's DFlash, allow_partial_loading) is the same model;
  only what a missing fc or hidden_norm does differs (DSC652); so is an "uninitialised"
  loader whose load_weights returns the names it loaded (vLLM's weight tracking, the
  profile's ``checked_after_load``: ``missing(f, ends)`` names the missing modules with no
  quant method, which fail the load; the others stay uninitialised).
- ``missing_tensors`` "strict" (TensorRT-LLM's Qwen3 DSpark, load_state_dict(strict=True)):
  the exact names (no name maps); any other name is an "Unexpected key(s)" error.
- ``missing_tensors`` "default_init" (SGLang 0.5.23: ``params_dict`` look-ups, names it
  lacks skipped): exact ``.weight`` names after its name maps.

Classic EAGLE (family ``eagle``) is built by the same loaders: fc over [embedding, the
target's hidden state] (``fc_bias``: with a bias), Llama layers (Qwen2's q/k/v with a bias
for ``qkv_bias_architectures``) whose first has no input_layernorm (``first_input_norm``),
no norm, and no lm_head where ``builds_lm_head`` is false (a shipped one is then refused).
EAGLE-3 over DeepSeek MLA (``mla_architectures``): the MLA decoder layer.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

from dspark_ckpt.facts.gather import Facts
from dspark_ckpt.loader import names as N
from dspark_ckpt.loader import quant as Q
from dspark_ckpt.loader.moe import AFTER_TARGET, deepseek_layers, expert_blocks, numbered_after
from dspark_ckpt.loader.parts import (
    ANY,
    CONFIDENCE,
    EAGLE3_LAYER,
    LLAMA_LAYER,
    MAPPINGS,
    MLA_LAYER,
    MLA_Q_LAYER,
    QWEN3_LAYER,
    Block,
    Module,
    extra_modules,
    first_doubled,
    fits,
    fused_shapes,
    layer_shapes,
    layer_template,
    markov_modules,
    modules_of,
    name_maps,
    not_attention,
    per_aux,
    shaped,
    top_modules,
    view_shapes,
)
from dspark_ckpt.loader.view import (
    architecture,
    aux_count,
    count,
    get,
    model_config,
    norm_before_fc,
    truthy,
)
from dspark_ckpt.profiles.registry import DSPARK, EAGLE1, EAGLE3, Profile
from dspark_ckpt.record import record


@record
class Missing:
    """The model's tensors no stored name backs: the first few (as the loader names
    them), how many in all, and the block indices with no tensor at all, as ranges."""

    shown: tuple[str, ...]
    total: int
    whole: tuple[tuple[str, int, int], ...]  # (block prefix, first, last) inclusive


@record
class Unexpected:
    """Stored names the model has no parameter for: ``beyond`` lie in a block index the
    config does not build (a trained layer the model does not have), ``other`` under no
    module of the model."""

    beyond: tuple[str, ...]
    other: tuple[str, ...]


@record
class LoaderModel:
    profile: Profile
    parts: tuple[Module | Block, ...]
    exact: bool  # the exact tensor names (a strict or a params_dict load), not modules
    complete: bool  # whether every module the model builds is known (else: no "missing")
    named_by_tensor: bool  # report ``fc.weight`` rather than the module ``fc``
    skipped: frozenset[str]  # top-level components the loader drops or another rule judges
    ignored_suffixes: tuple[str, ...]  # unexpected names the loader ignores (``.bias``)
    # the names as a loader that renames by pattern hands them to its model (None: as stored,
    # a wrapper prefix removed)
    renamed: N.Renamed | None = None
    # a quantised drafter of an exact loader: its linears take any name under them
    # (weight_packed, weight_scale, ...), but the norms and a plain fc (loader/quant.py)
    quantised: bool = False
    plain_fc: bool = False

    def names(self, f: Facts) -> list[str]:
        """The stored names (sorted) as this loader's model meets them."""
        return f.stored_sorted if self.renamed is None else self.renamed.names

    def stored(self, name: str) -> str:
        """The stored name of one of ``names``."""
        return name if self.renamed is None else self.renamed.stored.get(name, name)

    def indices(self, f: Facts, block: Block) -> list[int]:
        return stored_indices(f, block, self.renamed)

    def outside(self) -> tuple[str, ...]:
        """The stored names the loader skips (a loader reading only under its prefixes: the
        names under none of them, or with a part it skips)."""
        return () if self.renamed is None else self.renamed.skipped

    # --- what the checkpoint does not give ------------------------------------------------

    def _named(self, m: Module) -> bool:
        """Whether ``m`` is matched by its exact tensor names (not any name under it)."""
        if self.quantised and not Q.plain(m.path, self.plain_fc):
            return False
        return (self.exact or m.exact) and m.tensors != ANY

    def _stored(self, names: list[str], base: str, m: Module, paths: tuple[str, ...]) -> bool:
        for path in paths:
            full = base + path if path else base.rstrip(".")
            if self._named(m):
                if all(N.has(names, f"{full}.{t}".lstrip(".")) for t in m.tensors):
                    return True
            elif (r := N.span(names, full))[0] < r[1]:
                return True
        return False

    def _shown(self, base: str, m: Module, names: list[str] | tuple = ()) -> list[str]:
        full = base + m.path if m.path else base.rstrip(".")
        shown = full.removeprefix(N.OUTSIDE)  # a module outside the model root: its own name
        if self.named_by_tensor and m.tensors != ANY:  # by its tensors: those it lacks
            lacks = [t for t in m.tensors if not N.has(names, f"{full}.{t}".lstrip("."))]
            return [f"{shown}.{t}".lstrip(".") for t in lacks]
        if m.exact:  # the tensors it lacks
            return [f"{shown}.{t}" for t in m.tensors if not N.has(names, f"{full}.{t}")]
        return [shown]

    def missing(self, f: Facts, ends: tuple[str, ...] | None = None) -> Missing:
        """The model's modules no stored name backs. ``ends``: only those whose path ends in
        one of them (what a release checks after its load, ``checked_after_load``), a MoE
        layer's experts among them (stored where any name lies under them)."""
        names = self.names(f)
        shown: list[str] = []
        total = 0
        whole: list[tuple[str, int, int]] = []
        per_module = 1 if not self.named_by_tensor else None

        def kept(modules: tuple[Module, ...], every: bool = False) -> list[Module]:
            """``modules`` as counted: ``ends``' own, else the ones with tensors of their
            own (``every``: all, for an index with nothing stored)."""
            if ends is not None:
                return [m for m in modules if m.path.endswith(ends)]
            return list(modules) if every else [m for m in modules if m.tensors != ANY]

        for part in self.parts:
            if isinstance(part, Module):
                top = kept((part,)) and part.tensors != ANY
                if top and not self._stored(names, "", part, part.stored_as):
                    items = self._shown("", part, names)
                    shown += items
                    total += len(items)
                continue
            if part.count is None:
                continue
            size = sum(per_module or len(m.tensors) for m in kept(part.template, every=True))
            end, at = max(part.count, 0), 0
            stored = self.indices(f, part)
            for i in [*stored[: bisect_left(stored, end)], end]:
                if i > at:  # indices [at, i) hold nothing
                    whole.append((part.prefix, at, i - 1))
                    total += (i - at) * size
                    for j in range(at, min(i, at + 3)):
                        if len(shown) >= 3:
                            break
                        for m in kept(part.at(j), every=True):
                            shown += self._shown(f"{part.prefix}.{j}.", m)
                if i == end:
                    break
                bases = [f"{part.prefix}.{i}."] + [f"{a}." for a in part.aliases.get(i, ())]
                for m in kept(part.at(i)):
                    if not any(self._stored(names, b, m, m.stored_as) for b in bases):
                        items = self._shown(f"{part.prefix}.{i}.", m, names)
                        shown += items
                        total += len(items)
                at = i + 1
        return Missing(tuple(shown[:3]), total, tuple(whole))

    # --- shapes ----------------------------------------------------------------------------

    def misshapen(self, f: Facts) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
        """(stored name, its shape, the shape the model builds) for each stored weight of a
        decoder-layer module or a norm whose shape the config gives and differs, and of a fused
        form mapped onto shaped modules (``qkv_proj``: q, k and v stacked); quantised weights
        are not judged here."""
        out = []
        read = self.profile.prefixed_names != "rejected"  # names under model. are loaded
        for part in self.parts:
            if isinstance(part, Module):
                out += _differs(f, self.stored(part.path + ".weight"), part.shape, read)
                continue
            for i in self.indices(f, part):
                if part.count is not None and i >= part.count:
                    break
                bases = [f"{part.prefix}.{i}."] + [f"{a}." for a in part.aliases.get(i, ())]
                mods = part.at(i)
                fused = {s for m in mods if m.shape for s in m.stored_as if s in part.fused}
                for m in (*mods, *(Module(s, (s,), shape=part.fused[s]) for s in sorted(fused))):
                    shape = part.first.get(m.path, m.shape) if i == 0 else m.shape
                    for base in bases:
                        out += _differs(f, self.stored(f"{base}{m.path}.weight"), shape, read)
        return out

    # --- what the model does not have --------------------------------------------------------

    def unexpected(self, f: Facts, exclude: frozenset[str] = frozenset()) -> Unexpected:
        """Stored names (wrapper prefix removed) no module of the model takes, but those
        in ``exclude`` (names another rule reports: prefixed ones, a stray file's); once
        per facts for every profile whose model takes the same names."""
        key = ("unexpected", repr((self.parts, self.exact, sorted(self.skipped))), exclude)
        reads = (self.profile.name_maps, self.profile.read_prefixes, self.profile.renames)
        key += (self.ignored_suffixes, self.renamed and reads)
        if key not in f.memo:
            f.memo[key] = self._unexpected(f, exclude)
        return f.memo[key]

    def _unexpected(self, f: Facts, exclude: frozenset[str]) -> Unexpected:
        names = self.names(f)
        modules = [p for p in self.parts if isinstance(p, Module)]
        blocks = {p.prefix: p for p in self.parts if isinstance(p, Block)}
        aliased = {a: (b, i) for b in blocks.values() for i, al in b.aliases.items() for a in al}
        beyond: list[tuple[int, int]] = []  # runs of positions in ``names``
        other: list[tuple[int, int]] = []
        for child, lo, hi in N.children(names, "", 0, len(names)):
            if child in self.skipped or child.removeprefix(N.OUTSIDE) in MAPPINGS:
                continue
            if child in blocks and names[lo] != child:
                self._block_unexpected(names, blocks[child], lo, hi, beyond, other)
            elif child in aliased and names[lo] != child:
                block, i = aliased[child]
                if block.count is None or i < block.count:
                    other += self._uncovered(names, f"{child}.", block.at(i), lo, hi)
                else:
                    beyond.append((lo, hi))
            else:
                mine = [m for m in modules if any(_under(p, child) for p in m.stored_as)]
                other += self._uncovered(names, "", mine, lo, hi)
        suffixes = self.ignored_suffixes or ("\0",)
        # (a name outside a renaming loader's model meets no module to ignore it in)
        keep = [
            n
            for a, b in other
            for n in names[a:b]
            if not n.endswith(suffixes) or n.startswith(N.OUTSIDE)
        ]
        past = [n for a, b in beyond for n in names[a:b]]
        if self.renamed is not None:  # as stored, with the names the mapper skips (but d2t:
            # DSC105's; a loader reading only under its prefixes skips the others silently)
            skips = () if self.profile.read_prefixes else self.renamed.skipped
            dropped = [n for n in skips if n not in MAPPINGS]
            keep = sorted([*map(self.stored, keep), *dropped])
            past = [self.stored(n) for n in past]
        if exclude:
            keep = [n for n in keep if n not in exclude]
            past = [n for n in past if n not in exclude]
        return Unexpected(tuple(past), tuple(keep))

    def _block_unexpected(self, names, block, lo, hi, beyond, other) -> None:
        for child, a, b in N.children(names, block.prefix + ".", lo, hi):
            if (i := N.index(child)) is None:
                other.append((a, b))
            elif block.count is not None and i >= block.count:
                beyond.append((a, b))
            else:
                other += self._uncovered(names, f"{block.prefix}.{child}.", block.at(i), a, b)

    def _uncovered(self, names, base: str, mods, lo: int, hi: int) -> list[tuple[int, int]]:
        """The runs of positions in [lo, hi) (names under ``base``) that no module of
        ``mods`` takes: by module ranges, or exact tensor names for an exact load (or an
        exact module)."""
        known = {
            f"{base}{p}.{t}" if p else f"{base.rstrip('.')}.{t}".lstrip(".")
            for m in mods
            if self._named(m)
            for p in m.stored_as
            for t in m.tensors
        }
        covered = [(i, i + 1) for i in range(lo, hi) if names[i] in known] if known else []
        for m in (m for m in mods if not self._named(m)):
            for p in m.stored_as:
                full = base + p if p else base.rstrip(".")
                covered.append(N.span(names, full, lo, hi))
        return list(N.gaps(covered, lo, hi))


def _differs(f: Facts, name: str, shape: tuple[int, ...] | None, prefixed: bool = False) -> list:
    """``name``'s stored shape against ``shape``; ``prefixed``: a name stored under a wrapper
    prefix counts (the loader reads it there)."""
    info = f.stored(name) if prefixed else f.tensors.get(name)
    if shape is None or info is None or fits(tuple(info.shape), shape):
        return []
    return [(name, tuple(info.shape), shape)]


def _under(path: str, child: str) -> bool:
    return path == child or path.startswith(child + ".") or not path  # "": top-level tensors


def stored_indices(f: Facts, block: Block, renamed: N.Renamed | None = None) -> list[int]:
    """The sorted indices under ``block.prefix`` that hold a stored name (its aliases
    included; ``renamed``: as a loader that renames by pattern meets the names), found by
    binary search; cached per facts."""
    # (a renamed view lives as long as the loader model that holds it, memoised in the facts)
    key = ("indices", block.prefix, tuple(sorted(block.aliases.items())), id(renamed))
    if key in f.memo:
        return f.memo[key]
    names = f.stored_sorted if renamed is None else renamed.names
    lo, hi = N.span(names, block.prefix)
    found = {N.index(c) for c, _, _ in N.children(names, block.prefix + ".", lo, hi)} - {None}
    for i, aliases in block.aliases.items():
        if any(N.span(names, a)[0] < N.span(names, a)[1] for a in aliases):
            found.add(i)
    out = f.memo[key] = sorted(found)
    return out


# --- building the model from the config, per loader ---------------------------------------


def uses_aux(cfg: dict, family: str) -> bool:
    """Whether the model builds fc (and, EAGLE-3, input_norm and fc_norm with it).
    vLLM EAGLE-3: ``use_aux_hidden_state`` of eagle_config when present, else true
    (llama_eagle3.py:179-183); DFlash/DSpark: dflash_config's over eagle_config's, else
    ``getattr(config, "use_aux_hidden_state", True)`` (qwen3_dflash.py:432-439); read with
    ``if self.use_aux_hidden_state:``."""
    if family == EAGLE3:
        eagle = cfg.get("eagle_config")
        if isinstance(eagle, dict) and "use_aux_hidden_state" in eagle:
            return truthy(eagle["use_aux_hidden_state"])
        return True
    for nest in ("dflash_config", "eagle_config"):
        node = cfg.get(nest)
        if isinstance(node, dict) and "use_aux_hidden_state" in node:
            return truthy(node["use_aux_hidden_state"])
    return truthy(get(cfg, "use_aux_hidden_state", True))


def _runtime_model(f: Facts, p: Profile) -> LoaderModel:
    """vLLM's (modules, aliases) and TensorRT-LLM's strict (exact names) model."""
    cfg = model_config(f, p)
    strict = p.missing_tensors == "strict"
    maps = name_maps(p)
    layers = count(cfg.get("num_hidden_layers"))
    complete = layers is not None
    eagle = p.family == EAGLE3
    eagle1 = p.family == EAGLE1
    layer = EAGLE3_LAYER if eagle else LLAMA_LAYER if eagle1 else QWEN3_LAYER
    # DeepSeek MLA (vLLM deepseek_eagle3.py): fc always, no input_norm, its mapper drops nothing
    mla = eagle and architecture(f, p) in p.mla_architectures
    if eagle and architecture(f, p) in {name for name, _ in p.aux_layer_keys_by_class}:
        # the classes a profile counts aux states for on their own are its Qwen3 EAGLE-3
        # models: a Qwen3 decoder layer, q/k norms included (vLLM qwen3_eagle3.py:34)
        layer = (*EAGLE3_LAYER, ("self_attn.q_norm",), ("self_attn.k_norm",))
    top: list[tuple[str, ...]] = [("fc",)] if eagle1 else [("norm",)]  # EAGLE-1: no norm
    # names another code judges: mask_hidden (DSC655), the model's own or the target's head
    # and embedding (the vocab rules); an lm_head the model does not build is refused here
    skipped = {"lm_head", "embed_tokens"} | (
        {"mask_hidden"} if p.mask_hidden and not mla else set()
    )
    if not p.builds_lm_head or p.lm_head_from_target == "unbuilt":
        skipped.discard("lm_head")
    if not eagle and not eagle1:
        top.append(("hidden_norm",))
    aux = not eagle1 and (mla or uses_aux(cfg, p.family))
    if aux:
        top.append(("fc",))
    tail: list[tuple[str, ...]] = []
    fc_norm = None
    if eagle:
        # bool(eagle_config.get("norm_before_fc", getattr(config, "norm_before_fc", False)))
        # (llama_eagle3.py:184-188): eagle_config's key wins when present, null included
        nest = cfg.get("eagle_config")
        nest = nest if isinstance(nest, dict) else {}
        norm_before = nest.get("norm_before_fc", get(cfg, "norm_before_fc", False))
        if aux and truthy(norm_before) and not mla:
            tail.append(("input_norm",))
        n = aux_count(f, p)
        if aux and truthy(get(cfg, "fc_norm", False)) and n is not None:
            fc_norm = Block("fc_norm", n[0], (Module("", ("",)),), maps.blocks.get("fc_norm", {}))
        elif p.fc_norm_keys:
            skipped.add("fc_norm")  # fc_norm tensors the model lacks: DSC656
    if p.family == DSPARK:
        rank = count(cfg.get("markov_rank"))
        if rank is None and strict:  # TensorRT-LLM: getattr(config, "markov_rank", 0)
            rank = 0 if "markov_rank" not in cfg else None
        if rank is None:  # not built (DSC107): nothing to judge as missing
            complete = False
        if rank:
            kind = str(cfg.get("markov_head_type") or "vanilla").lower()
            tail += markov_modules(kind, p.markov_head_type == "built")
        if p.markov_head_type == "ignored":
            skipped.add("markov_head")  # a Markov tensor vanilla lacks: DSC658
        if truthy(get(cfg, "enable_confidence_head", False)):
            tail.append((CONFIDENCE,))
    shapes, first_in = layer_shapes(cfg, first_doubled(p), eagle1)
    if mla:
        layer = MLA_Q_LAYER if cfg.get("q_lora_rank") is None else MLA_LAYER
        shapes, first_in = not_attention(shapes), {}
    extra = per_aux(f, p, extra_modules(cfg, p)[0])
    parts: list[Module | Block] = [*shaped(modules_of(top, maps), shapes)]
    if eagle1 and p.fc_bias:  # fc built with a bias: both tensors, by name
        parts = [replace(m, tensors=("weight", "bias"), exact=True) if m.path == "fc" else m
                 for m in parts]  # fmt: skip
    if p.top_modules:  # a variant's own, in place of its family's fc / norm / hidden_norm
        parts = [*top_modules(cfg, p)]
    template = layer_template(cfg, p, shaped(modules_of(layer, maps), shapes))
    if own := view_shapes(cfg, p):  # a variant's own modules, shaped where its view says
        parts = [*shaped(tuple(parts), own)]
        template = shaped(template, own)
    absent = () if p.first_input_norm else ("input_layernorm",)
    # the decoder layers, under the name the model gives them ("eagle_layers>layers")
    prefix = maps.modules.get("layers", ("layers",))[0]
    fused = fused_shapes(shapes)
    block = Block(
        prefix, layers, template, maps.blocks.get("layers", {}), first_in, absent, fused=fused
    )
    renamed = _renamed(f, maps, p)
    blocks, known = _layers(f, cfg, p, block, shapes, renamed)
    parts += [*blocks, *modules_of(tail, maps), *extra]
    if fc_norm:
        parts.append(fc_norm)
    # what the loader's own mapper drops when the model does not build it (a profile field)
    built = {m.path.split(".")[0] for m in parts if isinstance(m, Module)}
    skipped |= {name for name in p.dropped_unbuilt if name not in built and not mla}
    return LoaderModel(
        p,
        tuple(parts),
        exact=strict,
        complete=complete and known,
        named_by_tensor=False,
        skipped=frozenset(skipped),
        ignored_suffixes=p.unexpected_ignored_suffixes,
        renamed=renamed,
    )


def _sglang_model(f: Facts, p: Profile) -> LoaderModel:
    """SGLang's model: exact ``.weight`` names after its renames, checked by nothing (or,
    ``missing_tensors`` "refused", checked after the load; ``read_prefixes``: only the names
    under them read)."""
    raw = model_config(f, p)
    layers = raw.get("num_hidden_layers") if p.config_view else f.cfg.value("num_hidden_layers")
    layers = layers if type(layers) is int else None
    eagle = p.family == EAGLE3
    eagle1 = p.family == EAGLE1
    maps = name_maps(p)
    parts: list[Module | Block] = []
    skipped = {"lm_head", "embed_tokens", "markov_head", "confidence_head", "mask_embedding"}
    skipped.add("mask_hidden")
    if eagle1:  # fc over [embedding, hidden state], Llama (or Qwen2) layers, no norm
        parts.append(Module("fc", ("fc",), ("weight", "bias") if p.fc_bias else ("weight",)))
        layer = LLAMA_LAYER
    elif eagle:
        parts += modules_of([("fc",), ("norm",)], maps)
        if truthy(raw.get("bias")):  # fc = Linear(..., bias=config.bias)
            parts.append(Module("fc", ("fc",), ("bias",)))
        if truthy(norm_before_fc(raw, p)):
            parts.append(Module("input_norm", ("input_norm",)))
        counted = aux_count(f, p)
        if truthy(raw.get("fc_norm") or raw.get("use_aux_norm")) and counted:
            fc_norm = Block(
                "fc_norm", counted[0], (Module("", ("",)),), maps.blocks.get("fc_norm", {})
            )
            parts.append(fc_norm)
        own = raw.get("target_hidden_size", f.cfg.hidden_size)
        if own != f.cfg.hidden_size and raw.get("draft_vocab_size") is not None:
            parts.append(Module("embed_tokens", ("embed_tokens",)))  # set_embed keeps it
        layer = EAGLE3_LAYER
        if architecture(f, p) in p.mla_architectures:
            layer = MLA_LAYER
    else:
        parts += modules_of([("fc",), ("hidden_norm",), ("norm",)], maps)
        kind = markov_built(f, raw)  # the types this release builds (none for SGLang DFlash)
        if kind in p.markov_head_types:
            parts += modules_of(markov_modules(kind, True), maps)
        layer = QWEN3_LAYER
    shapes, first_in = layer_shapes(raw, first_doubled(p), eagle1)
    if layer is MLA_LAYER:
        shapes, first_in = not_attention(shapes), {}
    parts = [m if isinstance(m, Block) else shaped((m,), shapes)[0] for m in parts]
    parts += per_aux(f, p, extra_modules(raw, p)[0])
    template = layer_template(raw, p, shaped(modules_of(layer, maps), shapes))
    if architecture(f, p) in p.qkv_bias_architectures:  # Qwen2: q/k/v with a bias
        qkv = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj")
        template = tuple(
            replace(m, tensors=("weight", "bias")) if m.path in qkv else m for m in template
        )
    if p.top_modules:  # a variant's own top-level modules, in place of its family's
        parts = [*top_modules(raw, p)]
    absent = () if p.first_input_norm else ("input_layernorm",)
    fused = fused_shapes(shapes)
    block = Block(
        "layers", layers, template, maps.blocks.get("layers", {}), first_in, absent, fused=fused
    )
    renamed = _renamed(f, maps, p)
    blocks, known = _layers(f, raw, p, block, shapes, renamed)
    if p.read_prefixes:  # a name under them that the model lacks is its loader's to judge
        skipped = {"confidence_head"}  # not built: the ragged-verify default (static)
    return LoaderModel(
        p,
        (*parts, *blocks),
        exact=True,
        complete=known and not f.cfg.speculators_format,
        named_by_tensor=True,
        skipped=frozenset(skipped),
        ignored_suffixes=(),
        renamed=renamed,
        quantised=f.cfg.quantized,
        plain_fc=Q.plain_fc(raw, p),
    )


def _layers(
    f: Facts, cfg: dict, p: Profile, block: Block, shapes: dict, renamed: N.Renamed | None
) -> tuple[list[Block], bool]:
    """The decoder layers ``block``, or, where the profile builds DeepSeek-V2's layer
    (``decoder_layer``), its MLA / MoE templates and a block of experts per stored MoE layer
    (loader/moe.py); and whether every module they build is known."""
    if not p.decoder_layer:
        return [block], True
    after = p.decoder_layer == AFTER_TARGET
    if after:  # MoE or dense by the layer's number after the target's (None: unknown)
        cfg = numbered_after(cfg, f.layers)
    block, known = deepseek_layers(cfg, name_maps(p), not_attention(shapes), block, after)
    return [block, *expert_blocks(stored_indices(f, block, renamed), block, cfg)], known


def _renamed(f: Facts, maps, p: Profile) -> N.Renamed | None:
    """The stored names through the loader's pattern renames, or as a loader reading only
    under its prefixes reads them; None where it reads every name as stored."""
    if maps.patterns:
        return N.renamed(f.tensors, maps.patterns)
    return N.read_under(f.tensors, p.read_prefixes, p.renames) if p.read_prefixes else None


def markov_built(f: Facts, cfg: dict | None = None) -> str | None:
    """The Markov head type SGLang's DSpark model builds: from the top-level keys only
    (config.markov_rank, config.markov_head_type, default vanilla) of the config it is built
    from (``cfg``, else the config as written); None: none built."""
    cfg = f.raw if cfg is None else cfg
    rank = cfg.get("markov_rank")
    if type(rank) is not int or rank <= 0:
        return None
    return str(cfg.get("markov_head_type", "vanilla")).lower()


def loader_model(f: Facts, p: Profile) -> LoaderModel | None:
    """The model ``p``'s loader builds for this drafter, once per (facts, profile); None
    where the profile does not model its loader (``missing_tensors`` "unchecked")."""
    key = ("loader", p)
    if key not in f.memo:
        if p.missing_tensors == "default_init" or p.read_prefixes:
            f.memo[key] = _sglang_model(f, p)
        elif p.missing_tensors in (*("uninitialised", "partial_fc_required", "strict", "refused"),):
            f.memo[key] = _runtime_model(f, p)
        else:
            f.memo[key] = None
    return f.memo[key]
