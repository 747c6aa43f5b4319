"""Snapshot, byte for byte, every output of the dspark-ckpt CLI, to prove a refactor
changes none of them.

    python tools/snapshot_outputs.py --repo REPO --inputs DIR --out OUTDIR [-j N]
    python tools/snapshot_outputs.py --compare OUTDIR_A OUTDIR_B

Each case runs ``python -m dspark_ckpt ARGS`` as a process of its own (the interpreter
running this tool, or ``--python``) with ``PYTHONPATH=REPO`` and the current folder REPO,
so that fixture paths are given as a user types them (``fixtures/padded``), in a fixed
environment (``COLUMNS=120``, ``C.UTF-8``, the Hub offline, no colour variables). It
writes ``OUTDIR/<case>.txt``: the argv, the exit code, stdout and stderr, and for the
commands that write files (``fix``, ``-o``) each file written, with its sha256.

The conformance inputs (the real drafters of ``fixtures/real-configs`` and their
targets, the target-contract drafters, tokenizer pairs, the Inkling-sized drafter,
``check`` configurations and broken checkpoints) are built once into ``--inputs DIR``
with the repository's own builders (``fixtures/conformance.py``, ``synth.py``,
``target_contract.py``) and reused: their paths appear in the outputs, so two runs to
compare must use the same DIR. The set of cases is read from DIR's manifest (written
when it was built), not from the checkout under test.

Normalised (so that two runs of one checkout give identical files): the absolute path
of REPO (``<REPO>``), and ``verify``'s timings, throughput and peak memory. ``verify``
cases run only where torch imports (``--device cpu``, a fixed seed).

Stdlib only; the builders run in a subprocess of the same interpreter (numpy).
"""

from __future__ import annotations

import argparse
import difflib
import fcntl
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

INPUTS_VERSION = 1
MANIFEST = "golden-inputs.json"
FORMATS = ("table", "json", "github", "junit", "sarif")
STEP_TIMEOUT_S = 600
CASE_LIST = "_cases.txt"  # in OUTDIR: every case name with its argv, one a line

# tests/rules/test_conformance.py VARIANTS, as data (a tensor is [dtype, shape]): the build
# step compares this copy with the test module's own table where that imports
NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}
QWEN_EAGLE3 = "specforge-qwen3-8b-eagle3"
QWEN_DSPARK = "specforge-qwen3-8b-dspark"
INKLING = "specforge-inkling-dspark"
VARIANTS: dict[str, tuple[str, dict]] = {
    "qwen3-8b-eagle3-no-d2t": (QWEN_EAGLE3, {"drop": ["d2t"]}),
    "qwen3-8b-eagle3-int32-d2t": (QWEN_EAGLE3, {"dtypes": {"d2t": "I32"}}),
    "qwen3-8b-eagle3-nvfp4-head": (
        QWEN_EAGLE3,
        {
            "drop": ["lm_head.weight"],
            "add": {
                "lm_head.weight": ["U8", [32000, 2048]],
                "lm_head.weight_scale": ["F8_E4M3", [32000, 256]],
                "lm_head.weight_scale_2": ["F32", []],
            },
            "config": {"quantization_config": NVFP4},
        },
    ),
    "qwen3-8b-dspark-serving": (QWEN_DSPARK, {"serving": True}),
    "inkling-dspark-serving": (INKLING, {"serving": True}),
    "qwen3-8b-dspark-serving-prefixed-embed": (
        QWEN_DSPARK,
        {"serving": True, "add": {"model.embed_tokens.weight": ["BF16", [151936, 4096]]}},
    ),
}

# the check configurations written into DIR/check (paths relative to that folder)
CHECK_MAIN = """\
profiles = ["vllm", "vllm-legacy"]
warnings-as-errors = ["DSC401"]

[ignore]
DSC304 = "ModelOpt calibration does not sort d2t"

[[pairs]]
name = "padded-small"
drafter = "ckpt/padded"
target = "ckpt/targets/small"
ignore = { DSC401 = "our sampler masks rows >= Vt" }

[[pairs]]
name = "padded-tight"
drafter = "ckpt/padded"
target = "ckpt/targets/tight"
profiles = "all"

[[pairs]]
drafter = "ckpt/equal"
target = "ckpt/targets/small"
warnings-as-errors = true

[[pairs]]
name = "pruned"
drafter = "ckpt/pruned-eagle3"
target = "ckpt/targets/small"
profiles = ["vllm-eagle3", "vllm-eagle3-legacy", "sglang-eagle3"]

[[pairs]]
name = "no-head"
drafter = "ckpt/no-head"
target-vocab-size = 100

[[pairs]]
name = "sharded"
drafter = "ckpt/sharded"
target = "ckpt/targets/small"
warnings-as-errors = false

[[pairs]]
name = "lfs"
drafter = "ckpt/lfs-pointer"
target = "ckpt/targets/small"

[[pairs]]
name = "bad-target"
drafter = "ckpt/padded"
target = "ckpt/no-vocab"
"""
CHECK_PASSING = """\
[[pairs]]
name = "e3"
drafter = "ckpt/pruned-eagle3"
target = "ckpt/targets/small"

[[pairs]]
name = "ds"
drafter = "ckpt/padded"
target = "ckpt/targets/small"
"""
CHECK_PYPROJECT = """\
[project]
name = "someone-else"

[tool.other]
x = 1

[tool.dspark-ckpt]
profiles = ["vllm"]

[[tool.dspark-ckpt.pairs]]
name = "padded"
drafter = "../ckpt/padded"
target = "../ckpt/targets/small"

[[tool.dspark-ckpt.pairs]]
name = "pruned"
drafter = "../ckpt/pruned-eagle3"
target = "../ckpt/targets/small"
profiles = ["vllm-eagle3", "vllm-eagle3-legacy"]
"""
CHECK_VERIFY = """\
verify = true

[[pairs]]
name = "padded"
drafter = "ckpt/padded"
target = "ckpt/targets/small"

[[pairs]]
name = "pruned"
drafter = "ckpt/pruned-eagle3"
target-vocab-size = 100
"""
PAIR = '[[pairs]]\ndrafter = "ckpt/padded"\ntarget = "ckpt/targets/small"\n'
CHECK_BAD = {
    "unknown-key": 'profile = ["vllm"]\n' + PAIR,
    "wrong-type": 'profiles = [["vllm"]]\n' + PAIR,
    "missing-drafter": '[[pairs]]\ndrafter = "ckpt/nope"\ntarget = "ckpt/targets/small"\n',
    "missing-target": '[[pairs]]\ndrafter = "ckpt/padded"\ntarget = "ckpt/nope"\n',
    "ignore-dsc001": '[ignore]\nDSC001 = "never"\n' + PAIR,
    "ignore-empty-reason": '[ignore]\nDSC401 = ""\n' + PAIR,
    "wae-not-a-warning": 'warnings-as-errors = ["DSC103"]\n' + PAIR,
    "vocab-out-of-range": '[[pairs]]\ndrafter = "ckpt/padded"\ntarget-vocab-size = 0\n',
    "both-targets": PAIR + "target-vocab-size = 100\n",
    "bad-profile": 'profiles = ["nosuch"]\n' + PAIR,
    "no-pairs": 'profiles = ["vllm"]\n',
    "toml-syntax": "[[pairs]\ndrafter = \n",
    "date-value": "verify = 1979-05-27\n" + PAIR,
}

# the build step, run as ``python -c BUILD SPEC`` with PYTHONPATH=REPO/fixtures:REPO:REPO/tests
BUILD = r"""
import json, os, shutil, subprocess, sys
from pathlib import Path

spec = json.loads(sys.argv[1])
repo, out = Path(spec["repo"]), Path(spec["inputs"])
import conformance as cf
import synth
import target_contract as tc
from synth import T

def tensor(v):
    return T(v[0], tuple(v[1]))

def kwargs(kw):
    kw = dict(kw)
    if "drop" in kw:
        kw["drop"] = tuple(kw["drop"])
    if "add" in kw:
        kw["add"] = {n: tensor(v) for n, v in kw["add"].items()}
    return kw

warnings = []
try:  # the test module's own table, to compare with the copy
    import test_conformance as tcf
    theirs = {
        k: (n, {**kw, **({"drop": list(kw["drop"])} if "drop" in kw else {}),
                **({"add": {a: [t.dtype, list(t.shape)] for a, t in kw["add"].items()}}
                   if "add" in kw else {})})
        for k, (n, kw) in tcf.VARIANTS.items()
    }
    if json.loads(json.dumps(theirs)) != spec["variants"]:
        warnings.append("tests/rules/test_conformance.py VARIANTS differs from the tool's copy")
except Exception as err:
    warnings.append(f"tests/rules/test_conformance.py not imported ({type(err).__name__}: {err}); "
                    "using the tool's copy of VARIANTS")

manifest = {"version": spec["version"], "warnings": warnings}

# conformance: every real config and variant, against the target it was trained for
conf = out / "conformance"
targets = {t: cf.build_target(t, conf / "targets") for t in sorted(set(cf.TARGET_OF.values()))}
rows = []
plan = [(n, n, {}) for n in cf.real_config_names()]
plan += [(key, name, kw) for key, (name, kw) in spec["variants"].items()]
for key, name, kw in plan:
    d = cf.build_real(name, conf / "drafters" / key, **kwargs(kw))
    rows.append({"key": key, "drafter": str(d), "target": str(targets[cf.TARGET_OF[name]])})
manifest["conformance"] = rows

# target-contract drafters (sparse) against the committed target configs
tcd = out / "target-contract"
manifest["target_contract"] = {
    "drafters": {n: str(tc.build(n, tcd / n)) for n in tc.names()},
    "targets": sorted("fixtures/target-contract/targets/" + p.name
                      for p in (repo / "fixtures/target-contract/targets").iterdir()),
}

# tokenizer pairs: a 100-id drafter and target, each with a chosen tokenizer
toks = repo / "fixtures/target-contract/tokenizers"
pairs = {"same": ("target", "target"), "one-token": ("one-token", "target"),
         "specials": ("specials", "target"), "drafter-none": (None, "target"),
         "both-none": (None, None), "broken": ("broken", "target")}
tok_rows = []
for name, (dt, tt) in pairs.items():
    root = out / "tokenizers" / name
    d = synth.drafter(root / "d", vocab=100, draft=100,
                      tensors={"lm_head.weight": synth.head(100, 8, 0)})
    t = root / "t"
    synth.write_json(t / "config.json", {"architectures": ["Qwen3ForCausalLM"], "vocab_size": 100})
    for folder, tok in ((d, dt), (t, tt)):
        if tok is None:
            continue
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(toks / ("one-token" if tok == "broken" else tok) / f, folder / f)
        if tok == "broken":
            (folder / "tokenizer.json").write_text('{"model": {"vocab": ')
    tok_rows.append({"name": name, "drafter": str(d), "target": str(t)})
manifest["tokenizers"] = tok_rows

# a 100-id drafter of each family detection, and of none (exit 3: not judged)
families = {
    "mtp": {"architectures": ["DeepSeekMTPModel"], "markov_rank": None},
    "eagle1": {"architectures": ["EagleLlamaForCausalLM"], "markov_rank": None},
    "no-family": {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                  "markov_rank": None},
    "p-eagle": {"architectures": ["PEagleDraftModel"]},
    "speculators-eagle3": {"architectures": ["Eagle3Speculator"]},
    "dflash-arch": {"architectures": ["DFlashDraftModel"]},
    "dflash-config": {"architectures": ["Foo"], "dflash_config": {"mask_token_id": 1},
                      "markov_rank": None},
    "dspark-config": {"architectures": ["Foo"], "dflash_config": {"markov_rank": 4}},
}
manifest["families"] = {
    name: str(synth.drafter(out / "families" / name, vocab=100, draft=100,
                            config={"model_type": None, **cfg}))
    for name, cfg in families.items()
}

# the Inkling-sized padded drafter and its target (sparse)
d, t = synth.build_inkling(out / "inkling")
manifest["inkling"] = {"drafter": str(d), "target": str(t)}

# broken checkpoints
broken = out / "broken"
padded = repo / "fixtures/padded"
def folder(name, files):
    root = broken / name
    root.mkdir(parents=True, exist_ok=True)
    for fname, data in files.items():
        (root / fname).write_bytes(data)
    return str(root)
cfg, st = (padded / "config.json").read_bytes(), (padded / "model.safetensors").read_bytes()
manifest["broken"] = {
    "truncated": folder("truncated", {"config.json": cfg, "model.safetensors": st[:200]}),
    "bad-json": folder("bad-json", {"config.json": b"{", "model.safetensors": st}),
    "empty-dir": folder("empty-dir", {}),
    "no-config": folder("no-config", {"model.safetensors": st}),
    "no-weights": folder("no-weights", {"config.json": cfg}),
    "huge-header": folder("huge-header", {"config.json": cfg,
                          "model.safetensors": (2**40).to_bytes(8, "little") + b"{}"}),
    "header-not-json": folder("header-not-json", {"config.json": cfg,
                              "model.safetensors": (8).to_bytes(8, "little") + b"not json"}),
    "empty-file": folder("empty-file", {"config.json": cfg, "model.safetensors": b""}),
    "target-no-vocab": folder("target-no-vocab", {"config.json": b'{"model_type": "qwen3"}'}),
    "target-nan": folder("target-nan", {"config.json": b'{"vocab_size": NaN}'}),
    "target-bad-weights": folder("target-bad-weights", {
        "config.json": (repo / "fixtures/targets/small/config.json").read_bytes(),
        "model.safetensors": b"garbage!"}),
}

# check: copies of the fixtures and the configurations, paths relative to the folder
check = out / "check"
for name in ("padded", "equal", "pruned-eagle3", "sharded", "lfs-pointer", "targets"):
    shutil.copytree(repo / "fixtures" / name, check / "ckpt" / name)
shutil.copytree(repo / "fixtures/vllm-table/v100-d40-none", check / "ckpt/no-head")
(check / "ckpt/no-vocab").mkdir()
(check / "ckpt/no-vocab/config.json").write_text('{"model_type": "qwen3"}')
for rel, text in spec["check_files"].items():
    (check / rel).parent.mkdir(parents=True, exist_ok=True)
    (check / rel).write_text(text)

# work copies for fix --in-place (copied afresh into each case's scratch folder)
for name in ("padded", "pruned-eagle3", "sharded", "equal"):
    shutil.copytree(repo / "fixtures" / name, out / "work" / name)

# what the cases range over, read from the checkout that built the inputs
manifest["vllm_table"] = sorted(p.name for p in (repo / "fixtures/vllm-table").iterdir())
env = {**os.environ, "PYTHONPATH": spec["pythonpath"], "COLUMNS": "120"}
def cli(*args):
    return subprocess.run([sys.executable, "-m", "dspark_ckpt", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=True).stdout.split()
manifest["codes"] = cli("explain", "-q")
manifest["profiles"] = cli("profiles", "-q")
print(json.dumps(manifest))
"""


# --------------------------------------------------------------------------- cases


@dataclass
class Step:
    args: list[str]
    env: dict[str, str | None] = field(default_factory=dict)  # over the base (None: unset)
    cwd: str | None = None  # default: REPO


@dataclass
class Case:
    name: str
    steps: list[Step]
    prepare: list[tuple[str, str]] = field(default_factory=list)  # copytree (SRC, DEST)
    collect: bool = False  # record every file under the case's scratch folder
    normalise: tuple[str, ...] = ()


def step(cmd: str | list[str] | Step, env: dict | None = None, cwd: str | None = None) -> Step:
    """A step from a shell-quoted command line (placeholders {repo} {inputs} {scratch})."""
    if isinstance(cmd, Step):
        return cmd
    return Step(shlex.split(cmd) if isinstance(cmd, str) else list(cmd), env or {}, cwd)


def q(path: str) -> str:
    return shlex.quote(path)


def slug(text: str) -> str:
    """A path as part of a case name: a fixture's path under fixtures/, an input's name."""
    text = Path(text).name if os.path.isabs(text) else text.removeprefix("fixtures/")
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-") or "x"


class Cases:
    def __init__(self) -> None:
        self.items: list[Case] = []
        self.names: set[str] = set()

    def add(self, name: str, *steps: str | list[str] | Step, **kw) -> None:
        if name in self.names or not re.fullmatch(r"[A-Za-z0-9._+-]+", name):
            raise SystemExit(f"snapshot_outputs: bad or duplicate case name {name!r}")
        self.names.add(name)
        self.items.append(Case(name, [step(s) for s in steps], **kw))


def inspect_matrix(
    c: Cases,
    prefix: str,
    drafter: str,
    target: str,
    tname: str,
    *,
    formats=FORMATS,
    all_formats=FORMATS,
    quiet: bool = True,
    narrow: bool = True,
) -> None:
    """``inspect DRAFTER TARGET`` in ``formats`` (default profile) and ``all_formats``
    (``--profile all``); each profile choice also -q and at COLUMNS=80 (table).
    ``target``: a path, or ``vocab=N`` for ``--target-vocab-size N``."""
    if target.startswith("vocab="):
        tgt = f"--target-vocab-size {target.removeprefix('vocab=')}"
    else:
        tgt = f"--target {q(target)}"
    base = f"inspect {q(drafter)} {tgt}"
    for label, prof, fmts in (("default", "", formats), ("all", " --profile all", all_formats)):
        stem = f"{prefix}__{slug(drafter)}__{tname}__{label}"
        for fmt in fmts:
            c.add(f"{stem}__{fmt}", f"{base}{prof} --format {fmt}")
        if quiet and fmts:
            c.add(f"{stem}__table-q", f"{base}{prof} -q")
        if narrow and fmts:
            c.add(f"{stem}__table-cols80", step(base + prof, {"COLUMNS": "80"}))


def build_cases(m: dict, torch: bool) -> list[Case]:
    """Every case, from the inputs' manifest ``m`` (not from the checkout under test)."""
    c = Cases()

    # --- inspect: the bundled fixtures (Vt 100) against the targets meant for them
    drafters = [
        "fixtures/padded",
        "fixtures/equal",
        "fixtures/pruned-eagle3",
        "fixtures/sharded",
        "fixtures/single-file/drafter.safetensors",
        "fixtures/single-file",
        "fixtures/lfs-pointer",
        *(f"fixtures/vllm-table/{n}" for n in m["vllm_table"]),
    ]
    targets = {
        "small": "fixtures/targets/small",
        "tight": "fixtures/targets/tight",
        "vl": "fixtures/targets/vl",
        "omni": "fixtures/targets/omni",
        "vocab100": "vocab=100",
    }
    for d in drafters:
        for tname, t in targets.items():
            full = tname in ("small", "vocab100")
            inspect_matrix(c, "inspect", d, t, tname, all_formats=FORMATS if full else FORMATS[:2])

    # drafters of every family detection (and of none: exit 3, not judged)
    for name, d in m["families"].items():
        for fmt in ("table", "json", "sarif"):
            c.add(
                f"family__{name}__{fmt}", f"inspect {q(d)} --target-vocab-size 100 --format {fmt}"
            )
        c.add(
            f"family__{name}__all__json",
            f"inspect {q(d)} --target-vocab-size 100 --profile all --format json",
        )
        c.add(
            f"family__{name}__vllm__json",
            f"inspect {q(d)} --target-vocab-size 100 --profile vllm --format json",
        )

    # profile choices and other options
    ps = "inspect fixtures/padded --target fixtures/targets/small"
    pt = "inspect fixtures/padded --target fixtures/targets/tight"
    es = "inspect fixtures/pruned-eagle3 --target fixtures/targets/small"
    for fmt in FORMATS:
        c.add(
            f"inspect-opt__padded__small__vllm+vllm-legacy__{fmt}",
            f"{ps} --profile vllm,vllm-legacy --format {fmt}",
        )
    for prof in m["profiles"]:
        c.add(
            f"inspect-opt__padded__small__profile-{prof}__json",
            f"{ps} --profile {prof} --format json",
        )
        c.add(f"inspect-opt__pruned-eagle3__small__profile-{prof}__table", f"{es} --profile {prof}")
    c.add(
        "inspect-opt__padded__small__repeated-profile__json",
        f"{ps} --profile vllm --profile sglang-dspark,vllm --format json",
    )
    c.add("inspect-opt__padded__small__all-and-named__table", f"{ps} --profile all,vllm")
    c.add("inspect-opt__padded__tight__legacy__sarif", f"{pt} --profile vllm-legacy --format sarif")
    c.add("inspect-opt__padded__small__quiet-json", f"{ps} -q --format json")
    c.add("inspect-opt__padded__small__long-quiet", f"{ps} --quiet")
    c.add(
        "inspect-opt__padded__small__options-first",
        "inspect --format json --target fixtures/targets/small fixtures/padded",
    )
    # -o / --output
    for fmt in FORMATS:
        c.add(
            f"inspect-output__padded__tight__{fmt}",
            f"{pt} --format {fmt} -o {{scratch}}/report.{fmt}",
            collect=True,
        )
    c.add("inspect-output__padded__small__dash", f"{ps} --format json -o -")
    c.add(
        "inspect-output__padded__small__quiet-file",
        f"{ps} -q --output {{scratch}}/summary.txt",
        collect=True,
    )
    c.add(
        "inspect-output__padded__small__no-such-folder",
        f"{ps} --format junit -o {{scratch}}/no/such/x.xml",
        collect=True,
    )
    c.add(
        "inspect-output__padded__small__output-is-a-folder",
        f"{ps} --format json -o {{scratch}}",
        collect=True,
    )
    c.add(
        "inspect-output__padded__small__replace",
        f"{ps} -o {{scratch}}/r.txt",
        f"{ps} --format json -o {{scratch}}/r.txt",
        collect=True,
    )
    # the environment
    c.add("inspect-env__padded__small__force-color", step(ps, {"FORCE_COLOR": "1"}))
    c.add(
        "inspect-env__padded__small__force-color-no-color",
        step(ps, {"FORCE_COLOR": "1", "NO_COLOR": "1"}),
    )
    c.add(
        "inspect-env__padded__tight__force-color-github",
        step(f"{pt} --format github", {"FORCE_COLOR": "1"}),
    )
    c.add(
        "inspect-env__padded__tight__github-workspace",
        step(f"{pt} --format github", {"GITHUB_WORKSPACE": "{repo}"}),
    )
    c.add(
        "inspect-env__padded__tight__github-workspace-abs",
        step(
            "inspect {repo}/fixtures/padded --target fixtures/targets/tight --format github",
            {"GITHUB_WORKSPACE": "{repo}"},
        ),
    )
    c.add("inspect-env__padded__small__ascii", step(ps, {"PYTHONIOENCODING": "ascii"}))
    c.add("inspect-env__padded__small__cols40", step(ps, {"COLUMNS": "40"}))
    c.add("inspect-env__padded__small__cols200", step(ps, {"COLUMNS": "200"}))
    c.add("inspect-env__padded__small__no-columns", step(ps, {"COLUMNS": None}))
    c.add(
        "inspect-env__lfs-pointer__vocab100__cols80-json",
        step(
            "inspect fixtures/lfs-pointer --target-vocab-size 100 --format json", {"COLUMNS": "80"}
        ),
    )

    # --- inspect: the target-contract drafters against every target-contract target
    tcm = m["target_contract"]
    for d in tcm["drafters"].values():
        for t in tcm["targets"]:
            inspect_matrix(
                c,
                "target-contract",
                d,
                t,
                slug(Path(t).name),
                all_formats=("table", "json", "sarif"),
            )
    for row in m["tokenizers"]:
        for fmt in ("table", "json"):
            c.add(
                f"tokenizer__{row['name']}__{fmt}",
                f"inspect {q(row['drafter'])} --target {q(row['target'])} --format {fmt}",
            )
    ink = m["inkling"]
    inspect_matrix(
        c, "inkling", ink["drafter"], ink["target"], "inkling-target", all_formats=("table", "json")
    )
    inspect_matrix(
        c,
        "inkling",
        ink["drafter"],
        "vocab=200058",
        "vocab200058",
        formats=("table", "json"),
        all_formats=("json",),
        quiet=False,
        narrow=False,
    )

    # --- inspect: every conformance drafter (real configs and variants) against its target
    for row in m["conformance"]:
        d, t = row["drafter"], row["target"]
        inspect_matrix(
            c,
            "conformance",
            d,
            t,
            slug(Path(t).name),
            formats=("table", "json", "sarif"),
            all_formats=("table", "json", "sarif"),
            quiet=False,
        )
        c.add(
            f"conformance__{slug(d)}__vocab151936__all__json",
            f"inspect {q(d)} --target-vocab-size 151936 --profile all --format json",
        )

    # --- profiles, explain, help, version
    c.add("profiles__table", "profiles")
    c.add("profiles__json", "profiles --format json")
    c.add("profiles__table-q", "profiles -q")
    c.add("profiles__json-q", "profiles -q --format json")
    c.add("profiles__table-cols80", step("profiles", {"COLUMNS": "80"}))
    c.add("profiles__bad-format", "profiles --format sarif")
    c.add("profiles__extra-arg", "profiles vllm")
    c.add("explain__list__table", "explain")
    c.add("explain__list__json", "explain --format json")
    c.add("explain__list__table-q", "explain -q")
    c.add("explain__list__table-cols80", step("explain", {"COLUMNS": "80"}))
    for code in m["codes"]:
        c.add(f"explain__{code}__table", f"explain {code}")
        c.add(f"explain__{code}__json", f"explain {code} --format json")
        c.add(f"explain__{code}__table-q", f"explain {code} -q")
    c.add("explain__DSC401__table-cols80", step("explain DSC401", {"COLUMNS": "80"}))
    c.add("explain__lowercase", "explain dsc103")
    c.add("explain__unknown", "explain DSC999")
    c.add("explain__unknown-json", "explain DSC999 --format json")
    c.add("explain__garbage", "explain not-a-code")
    c.add("explain__two-codes", "explain DSC103 DSC104")
    commands = ["inspect", "profiles", "explain", "check", "verify", "fix"]
    c.add("help__no-args", [])
    c.add("help__version", "--version")
    for flag in ("--help", "-h"):
        c.add(f"help__root{flag}", flag)
        for cmd in commands:
            c.add(f"help__{cmd}{flag}", f"{cmd} {flag}")
    c.add("help__root--help-cols80", step("--help", {"COLUMNS": "80"}))
    for cmd in commands:
        c.add(f"help__{cmd}--help-cols80", step(f"{cmd} --help", {"COLUMNS": "80"}))
    c.add("help__unknown-command", "frobnicate")
    for cmd in ("inspect", "fix", "verify"):
        c.add(f"help__{cmd}-no-args", cmd)
    c.add("help__unknown-option", "inspect fixtures/padded --bogus")
    c.add("help__help-after-bad-option", "inspect --bogus --help")

    # --- check
    main, passing = (
        "check --config {inputs}/check/dspark-ckpt.toml",
        "check --config {inputs}/check/passing/dspark-ckpt.toml",
    )
    for fmt in FORMATS:
        c.add(f"check__main__{fmt}", f"{main} --format {fmt}")
        c.add(f"check__passing__{fmt}", f"{passing} --format {fmt}")
    c.add("check__main__table-q", f"{main} -q")
    c.add("check__main__json-q", f"{main} -q --format json")
    c.add("check__main__table-cols80", step(main, {"COLUMNS": "80"}))
    c.add("check__passing__table-q", f"{passing} -q")
    c.add(
        "check__main__sarif-file", f"{main} --format sarif -o {{scratch}}/check.sarif", collect=True
    )
    c.add(
        "check__main__junit-file",
        f"{main} --format junit --output {{scratch}}/check.xml",
        collect=True,
    )
    for fmt in ("table", "json"):
        c.add(
            f"check__pyproject__{fmt}",
            f"check --config {{inputs}}/check/sub/pyproject.toml --format {fmt}",
        )
        # the configuration found in the current folder (there, not REPO)
        c.add(f"check__discovered-toml__{fmt}", step(f"check --format {fmt}", cwd="{inputs}/check"))
        c.add(
            f"check__discovered-pyproject__{fmt}",
            step(f"check --format {fmt}", cwd="{inputs}/check/sub"),
        )
    c.add("check__repo-cwd-no-config", "check")
    c.add("check__missing-config", "check --config {inputs}/check/nope.toml")
    for bad in CHECK_BAD:
        c.add(f"check__bad__{bad}", f"check --config {{inputs}}/check/bad/{bad}.toml")
    c.add(
        "check__bad__unknown-key__json",
        "check --config {inputs}/check/bad/unknown-key.toml --format json",
    )
    if torch:
        for fmt in ("table", "json"):
            c.add(
                f"check__verify__{fmt}",
                f"check --config {{inputs}}/check/verify/dspark-ckpt.toml --format {fmt}",
            )
    else:
        c.add(
            "check__verify-without-torch", "check --config {inputs}/check/verify/dspark-ckpt.toml"
        )

    # --- fix: every output inside the case's scratch folder (emptied before the case);
    # never a side file in the current folder (REPO)
    small, tight, vt = (
        "--target fixtures/targets/small",
        "--target fixtures/targets/tight",
        "--target-vocab-size 100",
    )
    mask, out = "--mask-path {scratch}/mask.safetensors", "--out {scratch}/out"
    d2t = "--d2t-path {scratch}/d2t.safetensors"
    bias, legacy = "--mask-path {scratch}/bias.safetensors", "--profile vllm-legacy"
    copy, tgt = "{scratch}/padded", "{scratch}/small"  # copies made by the case
    fixes = {
        "padded__mask-out": f"fixtures/padded {small} --emit-mask {mask} {out}",
        "padded__mask-side": f"fixtures/padded {small} --emit-mask {mask}",
        "padded__mask-additive": f"fixtures/padded {small} {bias} --mask-style additive",
        "padded__mask-tight": f"fixtures/padded {tight} {mask}",
        "padded__mask-vocab": f"fixtures/padded {vt} {mask}",
        "padded__d2t-side": f"fixtures/padded {small} {d2t}",
        "padded__d2t-side-legacy": f"fixtures/padded {small} {d2t} --profile vllm-legacy",
        "padded__d2t-out-vllm": f"fixtures/padded {small} --emit-d2t {out}",
        "padded__d2t-out-legacy": f"fixtures/padded {small} --emit-d2t {out} --profile vllm-legacy",
        "padded__both-out-legacy": f"fixtures/padded {small} --emit-d2t {mask} {out} {legacy}",
        "padded__nothing": f"fixtures/padded {small}",
        "padded__out-only": f"fixtures/padded {small} {out}",
        "pruned-eagle3__mask-d2t-out": f"fixtures/pruned-eagle3 {small} --emit-d2t {mask} {out}",
        "pruned-eagle3__d2t-side": f"fixtures/pruned-eagle3 {small} {d2t}",
        "equal__d2t-out": f"fixtures/equal {small} --emit-d2t {out}",
        "equal__mask-side": f"fixtures/equal {small} {mask}",
        "sharded__d2t-out-legacy": f"fixtures/sharded {small} --emit-d2t {out} {legacy}",
        "sharded__mask-out": f"fixtures/sharded {small} {mask} {out}",
        "single-file__mask-out": f"fixtures/single-file/drafter.safetensors {vt} {mask} {out}",
        "v100-d40-none__mask": f"fixtures/vllm-table/v100-d40-none {vt} {mask}",
        "v100-d40-lm_head__d2t": f"fixtures/vllm-table/v100-d40-lm_head {vt} {d2t}",
        "v100-d101-none__mask": f"fixtures/vllm-table/v100-d101-none {vt} {mask}",
        "lfs-pointer__mask": f"fixtures/lfs-pointer {vt} {mask}",
        "padded__d2t-path-with-out": f"fixtures/padded {small} {d2t} {out}",
        "padded__in-place-no-force": f"{{scratch}}/padded {small} --emit-d2t --in-place",
        "padded__profile-all": f"fixtures/padded {small} --emit-d2t {out} --profile all",
        "padded__bad-profile": f"fixtures/padded {small} --emit-d2t {out} --profile x",
        "padded__bad-mask-style": f"fixtures/padded {small} {mask} --mask-style float",
        "padded__no-target": f"fixtures/padded {mask}",
        "padded__side-in-drafter": f"{copy} {small} --mask-path {copy}/m.safetensors",
        "padded__side-in-target": f"fixtures/padded --target {tgt} --mask-path {tgt}/m.safetensors",
        "padded__out-is-source": f"{{scratch}}/padded {small} --emit-d2t --out {{scratch}}/padded",
        "padded__out-inside-source": f"{copy} {small} --emit-d2t --out {copy}/copy",
    }
    padded_copy = [("{inputs}/work/padded", "{scratch}/padded")]
    copies = {
        "padded__in-place-no-force": padded_copy,
        "padded__side-in-drafter": padded_copy,
        "padded__side-in-target": [("{repo}/fixtures/targets/small", "{scratch}/small")],
        "padded__out-is-source": padded_copy,
        "padded__out-inside-source": padded_copy,
    }
    for name, args in fixes.items():
        for fmt in ("table", "json"):
            c.add(
                f"fix__{name}__{fmt}",
                f"fix {args} --format {fmt}",
                prepare=copies.get(name, []),
                collect=True,
            )
    c.add("fix__padded__mask-out__table-q", f"fix {fixes['padded__mask-out']} -q", collect=True)
    # twice into the same places: refused without --force, replaced with it
    for fmt in ("table", "json"):
        again = f"fix {fixes['padded__both-out-legacy']} --format {fmt}"
        c.add(f"fix__padded__twice__{fmt}", again, again, f"{again} --force", collect=True)
        side = f"fix {fixes['padded__mask-side']} --format {fmt}"
        c.add(f"fix__padded__side-twice__{fmt}", side, side, f"{side} --force", collect=True)
    # in place, on a copy; then the result inspected
    for name, prof in (
        ("padded", " --profile vllm-legacy"),
        ("sharded", " --profile vllm-legacy"),
        ("pruned-eagle3", ""),
        ("equal", ""),
    ):
        c.add(
            f"fix__{name}__in-place",
            f"fix {{scratch}}/{name} {small} --emit-d2t --in-place --force{prof} --format json",
            f"inspect {{scratch}}/{name} {small} --profile all",
            prepare=[(f"{{inputs}}/work/{name}", f"{{scratch}}/{name}")],
            collect=True,
        )
    # the patched copy, inspected
    c.add(
        "fix__padded__out-then-inspect",
        f"fix {fixes['padded__d2t-out-legacy']}",
        f"inspect {{scratch}}/out {small} --profile all --format json",
        f"inspect {{scratch}}/out {small}",
        collect=True,
    )

    # --- errors: paths, options, unreadable files
    errs = {
        "missing-hub-shaped": f"inspect fixtures/nope {small}",
        "missing-plain": f"inspect nope {small}",
        "missing-dot": f"inspect ./nope {small}",
        "missing-abs": f"inspect /nonexistent/x.safetensors {small}",
        "missing-hf-url": f"inspect hf://org/name {small}",
        "missing-target": "inspect fixtures/padded --target fixtures/targets/nope",
        "bad-profile": f"inspect fixtures/padded {small} --profile nosuch",
        "bad-profile-list": f"inspect fixtures/padded {small} --profile vllm,,x",
        "empty-profile": f"inspect fixtures/padded {small} --profile ''",
        "both-targets": f"inspect fixtures/padded {small} {vt}",
        "no-target": "inspect fixtures/padded",
        "vocab-abc": "inspect fixtures/padded --target-vocab-size abc",
        "vocab-zero": "inspect fixtures/padded --target-vocab-size 0",
        "vocab-huge": "inspect fixtures/padded --target-vocab-size 2147483648",
        "bad-format": f"inspect fixtures/padded {small} --format xml",
        "extra-arg": f"inspect fixtures/padded fixtures/equal {small}",
        "config-file-as-drafter": f"inspect fixtures/padded/config.json {small}",
    }
    for name, path in m["broken"].items():
        if name.startswith("target-"):
            errs[f"broken-{name}"] = f"inspect fixtures/padded --target {q(path)}"
        else:
            errs[f"broken-{name}"] = f"inspect {q(path)} {small}"
    for name, cmd in errs.items():
        c.add(f"error__{name}__table", cmd)
        c.add(f"error__{name}__json", f"{cmd} --format json")
    for name in ("truncated", "huge-header", "no-weights", "target-bad-weights"):
        for fmt in ("sarif", "github", "junit"):
            c.add(f"error__broken-{name}__{fmt}", f"{errs[f'broken-{name}']} --format {fmt}")
    for name, opts in (("tokens", "--tokens 0"), ("seed", "--seed -1"), ("device", "--device tpu")):
        c.add(f"error__verify-bad-{name}__table", f"verify fixtures/padded {small} {opts}")
    truncated = q(m["broken"]["truncated"])
    c.add(
        "error__fix-broken-truncated__json",
        f"fix {truncated} {small} {mask} --format json",
        collect=True,
    )
    c.add("error__fix-missing__table", f"fix nope {small} {mask}", collect=True)

    # --- verify (needs torch): on the CPU, a fixed seed; timings normalised
    if torch:
        v = f"verify fixtures/padded {small} --device cpu --seed 7 --tokens 64"
        # COLUMNS=200: its 'time' row (normalised) is never wrapped, whatever the numbers
        c.add("verify__padded__small__table", step(v, {"COLUMNS": "200"}), normalise=("verify",))
        c.add("verify__padded__small__json", f"{v} --format json", normalise=("verify",))
    return c.items


# --------------------------------------------------------------------------- running


def run_env(repo: Path, pythonpath: str, inputs: Path) -> dict[str, str]:
    """A fixed environment: nothing of the caller's that could change an output."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm-256color",
        "PYTHONPATH": pythonpath,
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "COLUMNS": "120",
        "HF_HOME": str(inputs / "hf-home"),
        "HF_HUB_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "TZ": "UTC",
    }
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    return env


def expand(text: str, subst: dict[str, str]) -> str:
    for key, value in subst.items():
        text = text.replace("{" + key + "}", value)
    return text


VERIFY_JSON = re.compile(
    rb'^(\s*"(?:load|logits|sampling|tokens_per_s|bandwidth_gbs|peak_memory_bytes)": )'
    rb"(?:-?[0-9][0-9.eE+-]*|null)(,?)$",
    re.M,
)
VERIFY_TIME = re.compile(
    rb"load [0-9.]+s, logits [0-9.]+s, sampling [0-9.]+s(, [0-9.e+-]+ GB/s over the head)?; "
    rb"peak memory [0-9]+ MiB"
)


def _verify_time(match: re.Match) -> bytes:
    bandwidth = b", <BW> GB/s over the head" if match.group(1) else b""
    return b"load <T>s, logits <T>s, sampling <T>s" + bandwidth + b"; peak memory <MEM> MiB"


def normalise(data: bytes, kinds: tuple[str, ...], repo: Path) -> bytes:
    """REPO's absolute path as ``<REPO>``; with "verify", its measurements (JSON: the
    numbers of timings_s, tokens_per_s, bandwidth_gbs, peak_memory_bytes; the table's
    'time' row), which differ from run to run."""
    data = data.replace(str(repo).encode(), b"<REPO>")
    if "verify" in kinds:
        data = VERIFY_JSON.sub(rb'\1"<normalised>"\2', data)
        data = VERIFY_TIME.sub(_verify_time, data)
    return data


def file_listing(root: Path, repo: Path) -> bytes:
    """Every file under ``root``: path, size, sha256; a safetensors header, a small text
    file's content."""
    lines: list[bytes] = []
    if not root.exists():
        return b"(no scratch folder)\n"
    paths = sorted(p for p in root.rglob("*"))
    if not paths:
        return b"(empty)\n"
    for p in paths:
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            lines.append(f"{rel} -> symlink {os.readlink(p)}".encode())
        elif p.is_dir():
            lines.append(f"{rel}/".encode())
        else:
            data = p.read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            lines.append(f"{rel}  {len(data)} bytes  sha256 {digest}".encode())
            if p.name.endswith(".safetensors") and len(data) >= 8:
                n = int.from_bytes(data[:8], "little")
                if 0 < n <= len(data) - 8:
                    lines.append(b"  header: " + data[8 : 8 + n].rstrip())
            elif len(data) <= 65536 and not p.name.endswith(".safetensors"):
                try:
                    data.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                text = normalise(data, (), repo)
                if text.endswith(b"\n"):
                    text = text[:-1]
                else:
                    lines.append(b"  (no final newline)")
                lines.append(b"  | " + text.replace(b"\n", b"\n  | "))
    return b"\n".join(lines) + b"\n"


@dataclass
class Runner:
    repo: Path
    inputs: Path
    out: Path
    python: str
    pythonpath: str

    def __post_init__(self) -> None:
        self.env = run_env(self.repo, self.pythonpath, self.inputs)
        self.lock = threading.Lock()
        self.done = 0

    def subst(self, case: Case) -> dict[str, str]:
        return {
            "inputs": str(self.inputs),
            "scratch": str(self.inputs / "scratch" / case.name),
            "repo": str(self.repo),
        }

    def run_case(self, case: Case) -> tuple[str, float]:
        """Run ``case``, holding its lock: runs of other checkouts sharing DIR may run the
        same case (the same scratch folder) at the same time."""
        t0 = time.monotonic()
        lock = self.inputs / "scratch" / f"{case.name}.lock"
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self.run_locked(case)
        finally:
            os.close(fd)
        with self.lock:
            self.done += 1
        return case.name, time.monotonic() - t0

    def run_locked(self, case: Case) -> None:
        sub = self.subst(case)
        scratch = Path(sub["scratch"])
        if scratch.exists():
            shutil.rmtree(scratch)
        scratch.mkdir(parents=True)
        for src, dest in case.prepare:
            shutil.copytree(expand(src, sub), expand(dest, sub), symlinks=True)
        parts = [f"case: {case.name}\n".encode()]
        for i, step in enumerate(case.steps, 1):
            args = [expand(a, sub) for a in step.args]
            env = dict(self.env)
            shown = ["COLUMNS=120"]
            for key, value in step.env.items():
                if value is None:
                    env.pop(key, None)
                    shown = [s for s in shown if not s.startswith(key + "=")] + [f"-{key}"]
                else:
                    env[key] = expand(value, sub)
                    shown = [s for s in shown if not s.startswith(key + "=")]
                    shown.append(f"{key}={value}")
            cwd = expand(step.cwd, sub) if step.cwd else str(self.repo)
            try:
                p = subprocess.run(
                    [self.python, "-m", "dspark_ckpt", *args],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=STEP_TIMEOUT_S,
                    start_new_session=True,  # no controlling terminal: /dev/tty gives no width
                )
                code, so, se = str(p.returncode), p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                code, so, se = f"TIMEOUT after {STEP_TIMEOUT_S}s", e.stdout or b"", e.stderr or b""
            so = normalise(so, case.normalise, self.repo)
            se = normalise(se, case.normalise, self.repo)
            argv = shlex.join(["python", "-m", "dspark_ckpt", *args])
            parts += [
                f"\n=== step {i} of {len(case.steps)} ===\n".encode(),
                b"argv: " + argv.encode() + b"\n",
                f"cwd: {cwd}\n".encode(),
                f"env: {' '.join(shown)}\n".encode(),
                f"exit: {code}\n".encode(),
            ]
            for label, data in (("stdout", so), ("stderr", se)):
                end = "" if not data or data.endswith(b"\n") else ", no final newline"
                parts.append(f"--- {label} ({len(data)} bytes{end}) ---\n".encode())
                parts.append(data + (b"" if not data or data.endswith(b"\n") else b"\n"))
                parts.append(f"--- end {label} ---\n".encode())
        if case.normalise:
            parts.append(f"\nnormalised: {', '.join(case.normalise)}\n".encode())
        if case.collect:
            parts.append(f"\n=== files under {scratch} ===\n".encode())
            parts.append(file_listing(scratch, self.repo))
        shutil.rmtree(scratch, ignore_errors=True)
        text = normalise(b"".join(parts), (), self.repo)
        (self.out / f"{case.name}.txt").write_bytes(text)


# --------------------------------------------------------------------------- inputs


def check_files() -> dict[str, str]:
    files = {
        "dspark-ckpt.toml": CHECK_MAIN,
        "passing/dspark-ckpt.toml": CHECK_PASSING.replace('"ckpt/', '"../ckpt/'),
        "sub/pyproject.toml": CHECK_PYPROJECT,
        "verify/dspark-ckpt.toml": CHECK_VERIFY.replace('"ckpt/', '"../ckpt/'),
    }
    for name, text in CHECK_BAD.items():
        files[f"bad/{name}.toml"] = text.replace('"ckpt/', '"../ckpt/')
    return files


def spec_digest() -> str:
    blob = json.dumps([INPUTS_VERSION, VARIANTS, check_files(), BUILD], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def build_inputs(inputs: Path, repo: Path, python: str, pythonpath: str) -> dict:
    """Build DIR's inputs with REPO's builders (in a subprocess: they need numpy)."""
    t0 = time.monotonic()
    inputs.mkdir(parents=True, exist_ok=True)
    spec = {
        "version": INPUTS_VERSION,
        "repo": str(repo),
        "inputs": str(inputs),
        "variants": VARIANTS,
        "check_files": check_files(),
        "pythonpath": pythonpath,
    }
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(repo / "fixtures"), pythonpath, str(repo / "tests"), str(repo / "tests" / "rules")]
        ),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    p = subprocess.run(
        [python, "-c", BUILD, json.dumps(spec)],
        cwd=str(repo),
        env=env,
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        shutil.rmtree(inputs, ignore_errors=True)
        raise SystemExit(f"snapshot_outputs: building the inputs failed:\n{p.stderr}{p.stdout}")
    m = json.loads(p.stdout.strip().splitlines()[-1])
    for w in m.get("warnings", []):
        print(f"inputs: warning: {w}")
    m["digest"] = spec_digest()
    m["built_from"] = str(repo)
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    m["built_from_commit"] = head.stdout.strip() or None
    (inputs / MANIFEST).write_text(json.dumps(m, indent=2) + "\n")
    print(f"inputs: built {inputs} in {time.monotonic() - t0:.1f}s")
    return m


def read_manifest(inputs: Path) -> dict | None:
    try:
        return json.loads((inputs / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def ensure_inputs(
    inputs: Path, repo: Path, python: str, pythonpath: str, rebuild: bool = False
) -> dict:
    """The manifest of DIR's inputs, building them first (with REPO's builders) where DIR
    is new or empty. Runs may share DIR at the same time: each holds a shared lock on
    ``DIR.lock`` while it runs; building takes it exclusively. Inputs built by another
    version of this tool are never replaced unless ``rebuild`` (and no run holds DIR)."""
    fd = os.open(str(inputs) + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_SH)  # held until this process exits
    m = read_manifest(inputs)
    if m is not None and m.get("digest") == spec_digest() and not rebuild:
        print(f"inputs: reusing {inputs} (built from {m.get('built_from')})")
        return m
    if m is not None and not rebuild:
        raise SystemExit(
            f"snapshot_outputs: {inputs} holds inputs built by another version of this tool "
            "(their paths and contents are part of every output): give a new --inputs DIR, "
            "or --rebuild-inputs (then rerun every snapshot to be compared)"
        )
    if m is None and inputs.exists() and any(p.name != "scratch" for p in inputs.iterdir()):
        raise SystemExit(
            f"snapshot_outputs: {inputs} is not empty and holds no {MANIFEST}: "
            "refusing to build into it (give an empty or new folder)"
        )
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(
            f"snapshot_outputs: another run is using {inputs}: cannot build it now"
        ) from None
    try:
        m = read_manifest(inputs)  # built by another run meanwhile?
        if m is not None and m.get("digest") == spec_digest() and not rebuild:
            return m
        if inputs.exists():
            shutil.rmtree(inputs)
        return build_inputs(inputs, repo, python, pythonpath)
    finally:
        fcntl.flock(fd, fcntl.LOCK_SH)


# --------------------------------------------------------------------------- compare


def compare(a: Path, b: Path, shown: int = 5, context: int = 3, max_lines: int = 60) -> int:
    """Which case files differ between two snapshots; a short diff of the first few.
    Exit 0 when identical, 1 otherwise."""
    fa = {p.name for p in a.glob("*.txt")}
    fb = {p.name for p in b.glob("*.txt")}
    only_a, only_b = sorted(fa - fb), sorted(fb - fa)
    differ = sorted(n for n in fa & fb if (a / n).read_bytes() != (b / n).read_bytes())
    print(f"compared {a} ({len(fa)} files) with {b} ({len(fb)} files)")
    for label, names in ((f"only in {a}", only_a), (f"only in {b}", only_b)):
        if names:
            print(f"{label}: {len(names)}")
            for n in names:
                print(f"  {n}")
    if differ:
        print(f"differ: {len(differ)}")
        for n in differ:
            print(f"  {n}")
        for n in differ[:shown]:
            la = (a / n).read_bytes().decode("utf-8", "backslashreplace").splitlines(True)
            lb = (b / n).read_bytes().decode("utf-8", "backslashreplace").splitlines(True)
            diff = list(difflib.unified_diff(la, lb, str(a / n), str(b / n), n=context))
            print()
            sys.stdout.writelines(
                line if line.endswith("\n") else line + "\n" for line in diff[:max_lines]
            )
            if len(diff) > max_lines:
                print(f"... ({len(diff) - max_lines} more diff lines)")
    same = len(fa & fb) - len(differ)
    print(f"identical: {same}, differ: {len(differ)}, only in one: {len(only_a) + len(only_b)}")
    return 0 if not (differ or only_a or only_b) else 1


# --------------------------------------------------------------------------- main


def default_pythonpath(repo: Path) -> str:
    return str(repo / "src") if (repo / "src" / "dspark_ckpt").is_dir() else str(repo)


def probe(python: str, env: dict[str, str], cwd: Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def git_status(repo: Path) -> str:
    p = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--ignored", "--untracked-files=all"],
        capture_output=True,
        text=True,
    )
    return p.stdout if p.returncode == 0 else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, help="the checkout whose dspark_ckpt to run")
    ap.add_argument("--inputs", type=Path, help="where the conformance inputs are (built once)")
    ap.add_argument("--out", type=Path, help="the folder to write <case>.txt files to")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--python", default=sys.executable, help="interpreter (default: this one)")
    ap.add_argument("--pythonpath", help="PYTHONPATH for the CLI (default: REPO, or REPO/src)")
    ap.add_argument("--rebuild-inputs", action="store_true", help="build DIR's inputs anew")
    ap.add_argument("--only", metavar="REGEX", help="run only the cases whose name matches")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("OUTDIR_A", "OUTDIR_B"))
    args = ap.parse_args(argv)

    if args.compare:
        return compare(*args.compare)
    if not (args.repo and args.inputs and args.out):
        ap.error("--repo, --inputs and --out are required (or --compare A B)")
    t0 = time.monotonic()
    repo, inputs, out = args.repo.resolve(), args.inputs.resolve(), args.out.resolve()
    pythonpath = args.pythonpath or default_pythonpath(repo)
    if inputs == repo or repo in inputs.parents or out == repo or repo in out.parents:
        ap.error("--inputs and --out must lie outside --repo")

    manifest = ensure_inputs(inputs, repo, args.python, pythonpath, args.rebuild_inputs)
    env = run_env(repo, pythonpath, inputs)
    which = probe(args.python, env, repo, "import dspark_ckpt; print(dspark_ckpt.__file__)")
    where = Path(which.stdout.strip() or "?").resolve()
    if which.returncode != 0 or Path(pythonpath).resolve() not in where.parents:
        raise SystemExit(
            f"snapshot_outputs: dspark_ckpt is imported from {where}, not from {pythonpath}:\n"
            f"{which.stderr}"
        )
    torch = probe(args.python, env, repo, "import torch").returncode == 0
    print(f"running {where.parent} with {args.python}; torch: {'yes' if torch else 'no'}")

    cases = build_cases(manifest, torch)
    if args.only:
        cases = [c for c in cases if re.search(args.only, c.name)]
    if out.exists():
        for p in out.glob("*.txt"):
            p.unlink()
    out.mkdir(parents=True, exist_ok=True)
    before = git_status(repo)
    runner = Runner(repo, inputs, out, args.python, pythonpath)
    slow: list[tuple[float, str]] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for i, (name, secs) in enumerate(pool.map(runner.run_case, cases), 1):
            slow.append((secs, name))
            if i % 200 == 0:
                print(f"  {i}/{len(cases)} cases ({time.monotonic() - t0:.0f}s)", flush=True)
    listing = [f"{c.name}\t" + " ; ".join(shlex.join(s.args) for s in c.steps) for c in cases]
    (out / CASE_LIST).write_text("\n".join(listing) + "\n")
    after = git_status(repo)
    if after != before:
        print(f"WARNING: the cases changed files in {repo}:")
        for line in sorted(set(after.splitlines()) - set(before.splitlines())):
            print(f"  {line}")
    slow.sort(reverse=True)
    print("slowest: " + ", ".join(f"{n} {s:.1f}s" for s, n in slow[:3]))
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"{len(cases)} cases written to {out} in {time.monotonic() - t0:.1f}s "
        f"(-j {args.jobs}; the CLI processes used {cpu.ru_utime + cpu.ru_stime:.0f}s of CPU)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
