"""The rule-case harness: a drafter and a target written under a temporary folder and
inspected by the engine in-process (``inspect_checkpoint``), no CLI.

A ``Case`` is one row of a rule table: a drafter (the synth.py drafter with config
overrides and extra tensors), a target, the profile it is judged under, and whether
the finding code fires there. Every code has firing rows and clean twins: the smallest
change that makes it not fire (test_cases.py holds every table to that).

Not ``conftest.py``: the suite's own conftest module is imported by name (``from conftest
import cli``), and a second one in this folder would take its place in ``sys.modules``.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import synth  # fixtures/, on sys.path through tests/conftest.py
from synth import VT, H, T

from dspark_ckpt.commands.inspect import Report, inspect_checkpoint

# the target builders: the one import line to change when they move
from dspark_ckpt.facts.target import load_target, target_from_vocab_size
from dspark_ckpt.rules.codes import CODES
from dspark_ckpt.rules.findings import Finding

FIXTURES = Path(synth.HERE)
TOKENIZERS = FIXTURES / "target-contract" / "tokenizers"

# an EAGLE-3 config as SpecForge writes one: aux ids only in eagle_config (SGLang reads them at
# id + 1: layers 1 and 2, which is also vLLM's default (2, N // 2, N - 3) for a 4-layer target)
EAGLE3 = {
    "architectures": ["LlamaForCausalLMEagle3"],
    "model_type": "llama",
    "target_layer_ids": None,
    "eagle_config": {"eagle_aux_hidden_state_layer_ids": [0, 1]},
}
DFLASH = {"architectures": ["DFlashDraftModel"], "model_type": "qwen3"}
DROP = None  # a tensor given as None is left out (a backbone tensor removed)
# SGLang 0.5.23's layouts: a drafter class it registers, and every weight its model builds
SG_DSPARK = {"architectures": ["DSparkDraftModel"], "markov_head_type": "vanilla"}
SG_BLOCK_LAYERS = synth.layer_weights(H)  # DFlash / DSpark
SG_EAGLE3_LAYERS = synth.layer_weights(H, eagle3=True)


@dataclass(frozen=True)
class Tgt:
    """A target folder to build: its config.json, optionally header-true weights with
    ``embed_rows`` rows, and the tokenizer files of ``TOKENIZERS / tokenizer``."""

    config: str  # the config.json, as JSON (a Tgt is a cache key)
    embed_rows: int | None = None
    tokenizer: str | None = None

    @classmethod
    def of(cls, embed_rows: int | None = None, tokenizer: str | None = None, **config) -> Tgt:
        config = {"architectures": ["Qwen3ForCausalLM"], "vocab_size": VT, **config}
        return cls(json.dumps(config, sort_keys=True), embed_rows, tokenizer)


# a target: its vocab size alone (``--target-vocab-size``), a committed fixture of
# fixtures/targets by name (small: Vt 100, Et 128; tight: Et 112; vl; omni), or a Tgt
TargetSpec = int | str | Tgt


@dataclass(frozen=True)
class Case:
    code: str
    fires: bool
    name: str  # what the row is, for its test id
    profile: str = "vllm"
    vocab: int = VT
    draft: int | None = VT  # None: no draft_vocab_size in the config
    config: dict = field(default_factory=dict)  # over synth.drafter_config (None: unset)
    tensors: dict = field(default_factory=dict)  # over synth.complete (DROP removes one)
    target: TargetSpec = VT
    tokenizer: str | None = None  # the drafter folder's tokenizer files (TOKENIZERS / name)
    mutate: Callable[[Path], None] | None = None  # applied to the written drafter folder
    says: str | None = None  # a substring of the finding's message (firing rows)
    says_not: str | None = None  # a substring no message of the code holds (firing rows)
    hint: str | None = None  # a substring of the finding's hint (firing rows)
    # (tensor or key, file name or None) that one firing finding names (firing rows)
    at: tuple[str, str | None] | None = None
    # the sorted codes of every finding the profile reports (its own and the common ones)
    exactly: tuple[str, ...] | None = None
    verdicts: dict[str, bool] = field(default_factory=dict)  # verdicts expected, by profile
    # run with no profile named: ``profile`` is the one the drafter's family defaults to
    by_default: bool = False

    @property
    def id(self) -> str:
        return f"{self.code}-{'fires' if self.fires else 'clean'}-{self.profile}-{self.name}"


def fires(code: str, name: str, **kw) -> Case:
    return Case(code, True, name, **kw)


def clean(code: str, name: str, **kw) -> Case:
    return Case(code, False, name, **kw)


def ids(cases: list[Case]) -> list[str]:
    return [c.id for c in cases]


# --- tensors --------------------------------------------------------------------------


def head(rows: int, cols: int = H) -> T:
    return synth.head(rows, cols, 1)


def d2t(values, dtype: str = "I64") -> T:
    arr = np.asarray(values, dtype=np.int64)
    return T(dtype, arr.shape, arr)


def t2d(selected) -> T:
    mask = np.zeros(VT, dtype=bool)
    mask[list(selected)] = True
    return T("BOOL", (VT,), mask)


def mapping(vd: int, seed: int = 0) -> dict[str, T]:
    """A sorted pruned map of ``vd`` target ids: d2t and t2d, as producers write them."""
    offsets, mask = synth.sorted_mapping(VT, vd, seed)
    return {"d2t": T("I64", (vd,), offsets), "t2d": T("BOOL", (VT,), mask)}


def zeros(dtype: str, shape: tuple[int, ...]) -> T:
    np_dtype = {"F32": np.float32, "U8": np.uint8, "BOOL": bool, "I64": np.int64}[dtype]
    return T(dtype, shape, np.zeros(shape, np_dtype))


def split_off(*names: str) -> Callable[[Path], None]:
    """A ``mutate``: the drafter's tensors ``names`` moved out of model.safetensors into a
    second shard, ``model-00002-of-00002.safetensors``, with an index naming both."""

    def mutate(folder: Path) -> None:
        from safetensors.numpy import load_file, save_file

        weights = folder / "model.safetensors"
        tensors = load_file(weights)
        weights.unlink()
        first, second = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
        save_file({k: v for k, v in tensors.items() if k not in names}, folder / first)
        save_file({k: v for k, v in tensors.items() if k in names}, folder / second)
        weight_map = {k: second if k in names else first for k in tensors}
        synth.write_json(folder / "model.safetensors.index.json", {"weight_map": weight_map})

    return mutate


def truncate(folder: Path) -> None:
    """Cut the last bytes of the drafter's weights (an unreadable checkpoint)."""
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-3])


# --- the bench: where drafters and targets are written --------------------------------


class Bench:
    """Writes each case's drafter in a fresh folder under ``root``; targets are built
    (or loaded) once per bench and shared by its cases."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._n = itertools.count()
        self._targets: dict[TargetSpec, Any] = {}

    def target(self, spec: TargetSpec):
        if spec not in self._targets:
            self._targets[spec] = self._build_target(spec)
        return self._targets[spec]

    def _build_target(self, spec: TargetSpec):
        if isinstance(spec, int):
            return target_from_vocab_size(spec)
        if isinstance(spec, str):
            return load_target(FIXTURES / "targets" / spec)
        folder = self.root / f"target-{len(self._targets)}"
        synth.target(folder, json.loads(spec.config), embed_rows=spec.embed_rows)
        _tokenizer(folder, spec.tokenizer)
        return load_target(folder)

    def drafter(
        self,
        config: dict | None = None,
        tensors: dict | None = None,
        *,
        vocab: int = VT,
        draft: int | None = VT,
        tokenizer: str | None = None,
    ) -> Path:
        folder = self.root / f"drafter-{next(self._n)}"
        cfg = synth.drafter_config(vocab, draft, H)
        cfg.update(config or {})
        synth.write_json(folder / "config.json", cfg)
        whole = synth.complete(cfg, H, tensors)  # the family's backbone (and Markov head)
        weights = {k: v for k, v in {**whole, **(tensors or {})}.items() if v is not DROP}
        synth.write_safetensors(folder / "model.safetensors", weights)
        _tokenizer(folder, tokenizer)
        return folder

    def case(
        self,
        config: dict | None = None,
        tensors: dict | None = None,
        target: TargetSpec = VT,
        profile: str | list[str] | None = "vllm",
        *,
        vocab: int = VT,
        draft: int | None = VT,
        tokenizer: str | None = None,
        mutate: Callable[[Path], None] | None = None,
    ) -> Report:
        """Write a drafter (and its target, once) and inspect it in-process."""
        folder = self.drafter(config, tensors, vocab=vocab, draft=draft, tokenizer=tokenizer)
        if mutate is not None:
            mutate(folder)
        return inspect_checkpoint(str(folder), self.target(target), profile)

    def run(self, c: Case) -> Report:
        return self.case(
            c.config,
            c.tensors,
            c.target,
            None if c.by_default else c.profile,
            vocab=c.vocab,
            draft=c.draft,
            tokenizer=c.tokenizer,
            mutate=c.mutate,
        )


def _tokenizer(folder: Path, name: str | None) -> None:
    if name is not None:
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(TOKENIZERS / name / f, folder / f)


# --- the check every row gets -----------------------------------------------------------


def _shown(findings: list[Finding]) -> str:
    return json.dumps([(f.code, f.profile, f.severity, f.message) for f in findings], indent=1)


def check(bench: Bench, c: Case) -> Report:
    """Run ``c`` through the engine and hold the report to the row."""
    report = bench.run(c)
    if c.by_default:
        assert report.profile == c.profile, report.profile
    seen = [f for f in report.findings if f.profile in (None, c.profile)]
    # an unreadable or unjudged drafter says nothing about any other code
    for guard in ("DSC001", "DSC108"):
        if guard != c.code or not c.fires:
            assert all(f.code != guard for f in report.findings), _shown(report.findings)
    hits = [f for f in seen if f.code == c.code]
    if c.fires:
        assert hits, f"{c.code} does not fire under {c.profile}:\n{_shown(seen)}"
        assert {f.severity for f in hits} == {CODES[c.code].severity}, _shown(hits)
        if c.says is not None:
            assert any(c.says in f.message for f in hits), _shown(hits)
        if c.hint is not None:
            assert any(c.hint in (f.fix_hint or "") for f in hits), [f.fix_hint for f in hits]
        if c.says_not is not None:
            assert all(c.says_not not in f.message for f in hits), _shown(hits)
        if c.at is not None:
            named = [(f.tensor, f.file and Path(f.file).name) for f in hits]
            assert c.at in named, named
    else:
        assert not hits, f"{c.code} fires under {c.profile}:\n{_shown(hits)}"
        # a clean row is clean under its profile: one that never judged the drafter (another
        # family's, a variant's not routed to) proves nothing (DSC001/DSC108 rows: no verdict)
        if c.code not in ("DSC001", "DSC108") and "==" not in c.profile:
            assert c.profile in report.verdicts, (c.profile, report.verdicts)
    if c.exactly is not None:
        assert sorted(f.code for f in seen) == sorted(c.exactly), _shown(seen)
    for profile, verdict in c.verdicts.items():
        assert report.verdicts[profile] is verdict, (profile, report.verdicts)
    return report
