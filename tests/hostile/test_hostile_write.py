"""Attacks on what ``fix`` writes: the commit point, signals, races with the files it
reads, names and neighbours. Each runs the real CLI; where a signal, a hang or a race
is involved, as a real process whose ``atomic.step`` seam (the failure-injection hook
every write step calls) pauses or acts at one named step, so that nothing depends on
timing.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import synth
from conftest import FIXTURES, ROOT, cli, cli_with_fault, signal_at

from dspark_ckpt.commands.fix import NEW_SHARD

SMALL = FIXTURES / "targets/small"
LEGACY = ("--profile", "vllm-legacy")  # a padded drafter with d2t is meant for this loader
INDEX = "model.safetensors.index.json"


def digest(root: Path) -> dict[str, str]:
    """Every file under ``root`` and its sha256 (other entries by kind)."""
    out = {}
    for p in sorted(root.rglob("*")):
        key = str(p.relative_to(root))
        if p.is_symlink() or not p.is_file():
            out[key] = "link" if p.is_symlink() else "dir" if p.is_dir() else "special"
        else:
            out[key] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


SHARDS = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]


# --- a source file swapped for a FIFO while fix --out copies it ----------------------

SWAP_FOR_FIFO = """
def fault(step, path):
    victim = Path(os.environ['VICTIM'])
    if step == 'mkdir' and not victim.is_fifo():
        victim.unlink()
        os.mkfifo(victim)
"""


@pytest.mark.slow
@pytest.mark.parametrize("victim", ["tokenizer.json", "config.json", SHARDS[0]])
def test_a_source_file_swapped_for_a_fifo_is_refused_not_waited_on(tmp_path, victim):
    """After fix listed the files to copy, one becomes a FIFO: opened without blocking,
    its descriptor checked; one line naming it, nothing written, no hang (config.json
    states draft_vocab_size here: copied as it is, not rewritten)."""
    src = synth.padded_sharded(tmp_path / "src")
    synth.write_json(src / "config.json", synth.drafter_config(128, 128))
    (src / "tokenizer.json").write_text("{}")
    out = tmp_path / "out"
    code, _, err = cli_with_fault(
        SWAP_FOR_FIFO,
        *("fix", src, "--target", SMALL, "--emit-d2t", "--out", out, *LEGACY),
        env={"VICTIM": str(src / victim)},
        timeout=20,
    )
    assert code == 1, err
    assert err == (
        f"dspark-ckpt: error: {src / victim}: is no longer a regular file (replaced while "
        "this command ran?); nothing written\n"
    )
    assert not out.exists()


# --- a destination name near NAME_MAX ------------------------------------------------


@pytest.mark.parametrize("length", [238, 245, 255])
def test_a_destination_name_near_the_limit_is_written(tmp_path, length):
    """The temporary file beside it adds 18 bytes to its name: cut, not ENAMETOOLONG."""
    name = "m" * (length - len(".safetensors")) + ".safetensors"
    dest = tmp_path / name
    r = cli("fix", FIXTURES / "equal", "--target", SMALL, "--mask-path", dest)
    assert (r.exit_code, r.stderr) == (0, "")
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert dest.stat().st_size > 0


# --- what is written is compared with the plan, not only its verdicts -----------------


def failing_everywhere(root: Path, head_shard: str) -> Path:
    """A sharded DSpark drafter whose head has the wrong row count (DSC201, a check every
    runtime shares): it fails every profile before and after any fix, so verdicts alone
    cannot tell a broken write. Its config states draft_vocab_size (fix leaves config.json
    alone); its head is stored in ``head_shard``. (A drafter of no known family is not
    judged: fix refuses it.)"""
    synth.write_json(root / "config.json", synth.drafter_config(128, 128))
    synth.write_safetensors(root / "model-00001-of-00002.safetensors", synth.backbone(8))
    synth.write_safetensors(root / head_shard, {"lm_head.weight": synth.head(64, 8, 1)})
    weight_map = dict.fromkeys(synth.backbone(8), "model-00001-of-00002.safetensors")
    synth.write_json(
        root / INDEX, {"metadata": {}, "weight_map": {**weight_map, "lm_head.weight": head_shard}}
    )
    return root


def tensors_of(root: Path) -> dict[str, str]:
    """Tensor -> shard, as the written checkpoint's index says and its shards hold."""
    r = cli("inspect", root, "--target", SMALL, "--format", "json")
    assert "DSC001" not in r.stdout, r.stdout
    return json.loads((root / INDEX).read_text())["weight_map"]


def test_in_place_never_overwrites_a_shard_the_checkpoint_uses(tmp_path):
    """A shard already named like fix's own new shard (an earlier fix, another version)
    keeps its tensors: the new d2t goes to a shard of a free name."""
    src = failing_everywhere(tmp_path / "src", NEW_SHARD)
    old = digest(src)
    r = cli(
        "fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", "--format", "json"
    )
    assert r.exit_code == 1, r.stderr  # fails every profile, as before
    weight_map = tensors_of(src)
    assert weight_map["lm_head.weight"] == NEW_SHARD
    new = weight_map["d2t"]
    assert new not in (NEW_SHARD, "model-00001-of-00002.safetensors"), new
    kept = {k: v for k, v in old.items() if k != INDEX}
    assert {k: v for k, v in digest(src).items() if k not in (new, INDEX)} == kept
    assert [w["path"] for w in r.json["written"]] == [str(src / new)]


def break_the_index(step: str, path: str) -> None:
    """atomic's seam: everything is in place, then the index loses a tensor it must name."""
    if step == "reinspect":
        index = Path(path) / INDEX
        data = json.loads(index.read_text())
        del data["weight_map"]["fc.weight"]
        index.write_text(json.dumps(data))


def test_a_written_checkpoint_that_differs_from_the_plan_rolls_back(tmp_path, monkeypatch):
    """The read-back after the commit compares every tensor the new index names (file,
    dtype, shape) and every tensor of the source with the plan; a checkpoint that no
    longer loads is a difference, even where every verdict failed before and after."""
    from dspark_ckpt.source import atomic

    src = failing_everywhere(tmp_path / "src", "model-00002-of-00002.safetensors")
    old = digest(src)
    monkeypatch.setattr(atomic, "fault", break_the_index)
    r = cli("fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force")
    err = r.stderr
    assert r.exit_code == 1, err
    assert err.startswith(f"dspark-ckpt: error: {src}: the written checkpoint "), err
    assert "rolled back" in err and len(err.splitlines()) == 1, err
    assert digest(src) == old


# --- the commit point: a signal after it says done and nothing rolls back -------------

DONE = {
    signal.SIGINT: "dspark-ckpt: interrupted after the commit point; done, the change is complete\n",
    signal.SIGTERM: "dspark-ckpt: terminated after the commit point; done, the change is complete\n",
}


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize(
    "mode, step, name",
    [
        ("in-place", "commit", INDEX),  # the commit point itself
        ("in-place", "drop_backup", ".config.json"),  # dropping the backups of replaced files
        ("in-place", "drop_backup", "." + INDEX),
        ("out", "commit", INDEX),
    ],
)
def test_a_signal_after_the_commit_point_says_done_and_keeps_the_change(
    tmp_path, signum, mode, step, name
):
    """Once the written checkpoint has been read back, the change stands: a SIGINT or
    SIGTERM then rolls nothing back (a rollback with half its backups dropped left an
    index naming a deleted shard), the report is printed whole, stderr says the change is
    complete, and the exit code is the fix's own (0: deployable under the profile)."""
    src = synth.padded_sharded(tmp_path / "src")
    dest = src if mode == "in-place" else tmp_path / "out"
    where = ["--in-place", "--force"] if mode == "in-place" else ["--out", dest]
    args = ["fix", src, "--target", SMALL, "--emit-d2t", *where, *LEGACY, "--format", "json"]
    code, out, err = signal_at(step, name, signum, tmp_path / "paused", *args)
    assert (code, err) == (0, DONE[signum])
    assert json.loads(out)["verdicts_after"]["vllm-legacy"] is True
    assert cli("inspect", dest, "--target", SMALL, *LEGACY).exit_code == 0
    assert sorted(p.name for p in dest.iterdir()) == sorted(
        ["config.json", *SHARDS, NEW_SHARD, INDEX]
    )


# --- an in-place fix of one file of a folder the runtime loads whole ------------------


def test_in_place_on_one_file_of_a_folder_loaded_whole_is_refused(tmp_path):
    """Without an index the runtime loads every *.safetensors of the folder: an index
    naming only the file given would stop serving the others' tensors. Refused, naming
    them and the folder to give instead; nothing written."""
    src = padded_drafter_single(tmp_path / "src")
    # a drafter tensor in a second file (a file of names no drafter has is DSC620's)
    from safetensors.numpy import load_file, save_file

    weights = load_file(src / "model.safetensors")
    save_file({"hidden_norm.weight": weights.pop("hidden_norm.weight")}, src / "extra.safetensors")
    save_file(weights, src / "model.safetensors")
    old = digest(src)
    r = cli(
        "fix",
        src / "model.safetensors",
        "--target",
        SMALL,
        "--emit-d2t",
        "--in-place",
        "--force",
        *LEGACY,
    )
    assert r.exit_code == 2, r.stdout
    assert r.stderr == (
        f"dspark-ckpt: error: {src / 'model.safetensors'}: the folder also holds "
        "extra.safetensors, which runtimes load with it (there is no index); an index "
        f"naming only this file would stop serving them: pass the folder ({src})\n"
    )
    assert digest(src) == old
    # the folder itself: both files stay served
    assert (
        cli("fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY).exit_code
        == 0
    )
    weight_map = json.loads((src / INDEX).read_text())["weight_map"]
    assert weight_map["hidden_norm.weight"] == "extra.safetensors"
    assert weight_map["lm_head.weight"] == "model.safetensors"


def padded_drafter_single(root: Path) -> Path:
    """``padded_drafter`` as one ``model.safetensors`` and no index."""
    head = synth.head(128, 8, 1)
    tensors = {"lm_head.weight": head, "embed_tokens.weight": head}
    return synth.drafter(root, vocab=128, draft=None, tensors=tensors)


# --- side files by default land in the current folder: not a target's -----------------


@pytest.mark.parametrize(
    "emit", [["--emit-mask"], ["--emit-d2t"], ["--mask-path", "m.safetensors"]]
)
@pytest.mark.parametrize("with_weights", [True, False])
def test_side_files_are_refused_inside_the_target_folder(tmp_path, monkeypatch, emit, with_weights):
    """Run from the target's checkpoint folder (or with a path into it), a side file would
    be loaded by the runtime as one of the target's weights: refused, nothing written."""
    target = tmp_path / "target"
    target.mkdir()
    for name in ["config.json", "model.safetensors"][: 2 if with_weights else 1]:
        (target / name).write_bytes((SMALL / name).read_bytes())
    old = digest(target)
    monkeypatch.chdir(target)
    r = cli("fix", FIXTURES / "padded", "--target", ".", *emit)
    assert r.exit_code == 2, r.stdout
    assert r.stderr.startswith("dspark-ckpt: error: ") and (
        f"inside the target's checkpoint folder {Path('.')}, where it would be loaded as weights"
        in r.stderr
    ), r.stderr
    assert digest(target) == old


# --- a shard replaced while fix runs -------------------------------------------------


@pytest.mark.parametrize("mode", [[], ["--out", "OUT"]])
def test_a_shard_replaced_while_fix_runs_is_refused(tmp_path, monkeypatch, mode):
    """The shard is cut short after fix read it and before it checks its plan: the plan
    cannot be checked, so nothing is written (side files included) and the line names the
    file; no KeyError from a report that covers other profiles."""
    from dspark_ckpt.source import atomic

    d2t, _ = synth.sorted_mapping(synth.VT, 32, seed=5)
    src = synth.drafter(
        tmp_path / "src",
        vocab=100,
        draft=32,
        tensors={"lm_head.weight": synth.head(32, 8, 1), "d2t": synth.T("I64", (32,), d2t)},
    )
    shard = src / "model.safetensors"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    def cut_short(step, path):
        if step == "verify" and shard.stat().st_size > 64:
            shard.write_bytes(shard.read_bytes()[:64])

    monkeypatch.setattr(atomic, "fault", cut_short)
    where = [str(tmp_path / "out") if a == "OUT" else a for a in mode]
    r = cli("fix", src, "--target", SMALL, "--emit-mask", *where)
    assert r.exit_code == 1, r.stdout
    assert r.stderr.startswith(f"dspark-ckpt: error: {shard}: "), r.stderr
    assert r.stderr.endswith("; nothing written\n") and r.stderr.count("\n") == 1, r.stderr
    assert list(work.iterdir()) == [] and not (tmp_path / "out").exists()


def test_every_test_the_safety_docs_name_exists():
    """docs/safety.md backs each claim with a named test: each name is a real test."""
    import re

    named = set(re.findall(r"`(test_\w+)`", (ROOT / "docs/safety.md").read_text()))
    defined = {
        m
        for p in (ROOT / "tests").rglob("test_*.py")
        for m in re.findall(r"^def (test_\w+)", p.read_text(), re.M)
    }
    assert len(named) >= 10 and named <= defined, named - defined


# --- a signal while a module is still being imported ------------------------------------

# the CLI as ``python -m dspark_ckpt`` runs it, sending itself ``signum`` at ``where``:
# ``import:MODULE`` as MODULE starts to be imported (it is in sys.modules, still empty);
# ``class:MODULE.CLASS`` as a dataclass field of CLASS is named (Python 3.11 wraps what
# ``__set_name__`` raises, our Interrupted included, in a RuntimeError)
SIGNAL_WHILE_IMPORTING = """
import dataclasses, importlib.abc, importlib.util, os, runpy, sys
where, signum = sys.argv[1], int(sys.argv[2])
kind, _, name = where.partition(':')
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        run = spec.loader.exec_module
        def exec_module(mod):
            os.kill(os.getpid(), signum)
            run(mod)
        spec.loader.exec_module = exec_module
        return spec
if kind == 'import':
    sys.meta_path.insert(0, Hook())
else:
    set_name = dataclasses.Field.__set_name__
    def signal_in_set_name(self, owner, attr):
        if f'{owner.__module__}.{owner.__qualname__}' == name:
            dataclasses.Field.__set_name__ = set_name
            os.kill(os.getpid(), signum)
        return set_name(self, owner, attr)
    dataclasses.Field.__set_name__ = signal_in_set_name
sys.argv = ['dspark-ckpt', *sys.argv[3:]]
runpy.run_module('dspark_ckpt', run_name='__main__')
"""

SAYS = {
    signal.SIGINT: "dspark-ckpt: interrupted; nothing written\n",
    signal.SIGTERM: "dspark-ckpt: terminated; nothing written\n",
}


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize(
    "where",
    [
        "import:dspark_ckpt.cli.root",  # before the handlers that roll a write back are set
        "import:typer",
        "import:dspark_ckpt.source.atomic",  # the handler asked it whether it had committed
        "class:dspark_ckpt.rules.engine.Report",
    ],
)
def test_a_signal_while_a_module_is_imported_says_interrupted(tmp_path, where, signum):
    """Random SIGINT/SIGTERM during ``fix --in-place``: once in 20, exit 1 and a
    traceback. One came while ``source.atomic`` was half imported, and the handler asked
    it ``committed()``; one inside a dataclass's ``__set_name__``, which wraps it in a
    RuntimeError; before the handlers were set, a SIGINT was a KeyboardInterrupt
    traceback and a SIGTERM a silent death. Each is now exit 128 + the signal number with
    the one line, and the folder as it was."""
    src = synth.padded_sharded(tmp_path / "src")
    untouched = digest(src)
    args = ["fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY]
    r = subprocess.run(
        [sys.executable, "-c", SIGNAL_WHILE_IMPORTING, where, str(int(signum))]
        + [str(a) for a in args],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (128 + signum, SAYS[signum])
    assert digest(src) == untouched


# the CLI, sending itself SIGTERM as Python shuts down (a module global's __del__): after
# the report, when Python has put the signals' default actions back
SIGNAL_AT_SHUTDOWN = """
import os, runpy, signal, sys, time
class Late:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)
sys.modules['late_holder'] = type(sys)('late_holder')
sys.modules['late_holder'].late = Late()
sys.argv = ['dspark-ckpt', *sys.argv[1:]]
runpy.run_module('dspark_ckpt', run_name='__main__')
"""


@pytest.mark.slow
def test_a_signal_after_the_report_keeps_the_exit_code(tmp_path):
    """The fix is written and reported; a SIGTERM as the process ends killed it anyway
    (exit 143, as if nothing had happened). Now it is ignored: the fix's own exit code."""
    src = synth.padded_sharded(tmp_path / "src")
    args = ["fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY, "-q"]
    r = subprocess.run(
        [sys.executable, "-c", SIGNAL_AT_SHUTDOWN, *map(str, args)],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert r.stdout.startswith("deployable after fix")


# --- leftovers: an append-only folder, a kill -9 mid-fix ---------------------------------

# the seam as an append-only folder acts (chattr +a): files can be created and written,
# never renamed into place or removed
APPEND_ONLY = """
import errno
def fault(step, path):
    if step in ('replace', 'remove'):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), str(path))
"""


def visible(root: Path) -> dict[str, str]:
    return {k: v for k, v in digest(root).items() if not k.startswith(".")}


def hidden(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("."))


def test_a_folder_that_acts_append_only_names_the_files_it_could_not_remove(tmp_path):
    """Where the folder's flags cannot be read (a filesystem without them) and it acts
    append-only, fix said "nothing written" and left three hidden temporary files, the
    whole new shard among them. They are emptied and named, with the undo record, in
    the one line; the next fix where the folder allows it clears them (its undo record
    names them) and says so."""
    src = synth.padded_sharded(tmp_path / "src")
    untouched = visible(src)
    args = ["fix", src, "--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY]
    code, _, err = cli_with_fault(APPEND_ONLY, *args)
    assert code == 2, err
    [line] = err.splitlines()
    assert line.startswith(f"dspark-ckpt: error: {src / NEW_SHARD}: cannot write: "), line
    left = hidden(src)
    assert len(left) == 4 and all(name in line for name in left), (left, line)
    assert [n for n in left if n.endswith(".undo")] == [n for n in left if "dspark-ckpt-write" in n]
    assert all((src / n).stat().st_size == 0 for n in left if n.endswith(".tmp"))
    assert visible(src) == untouched
    again = cli(*args, "--format", "json")
    assert again.exit_code == 0, again.stderr
    [said] = [n for n in again.json["notes"] if n.startswith("cleared 4 hidden file(s)")]
    assert all(name in said for name in left), said
    assert hidden(src) == []


KILL_AT = """
calls = iter(range(10**6))
def fault(step, path):
    if 'LOG' in os.environ:
        with open(os.environ['LOG'], 'a') as f:
            f.write(f'{step} {Path(path).name}\\n')
    elif next(calls) == int(os.environ['KILL']):
        os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.slow
def test_kill_9_at_every_step_of_a_fix_is_cleared_by_the_next(tmp_path):
    """``kill -9`` at each step of ``fix --in-place`` left hidden .tmp/.bak files at 19 of
    20 kill points, and no way to tell whether a .bak was the old file to put back. The
    undo record says: before the commit point the next fix restores the checkpoint as it
    was, after it keeps the change; either way it clears every hidden file and says so."""
    from dspark_ckpt.source import atomic

    def fresh(name: str) -> Path:
        return synth.padded_sharded(tmp_path / name)

    args = ["--target", SMALL, "--emit-d2t", "--in-place", "--force", *LEGACY]
    log = tmp_path / "steps"
    src = fresh("whole")
    untouched = digest(src)
    code, _, err = cli_with_fault(KILL_AT, "fix", src, *args, env={"LOG": str(log)})
    assert code == 0, err
    fixed = digest(src)
    steps = log.read_text().splitlines()
    commit = steps.index(f"commit {INDEX}")  # the records are gone just before it
    assert len(steps) >= 20, steps
    leaving = 0
    for n, step in enumerate(steps):
        for then in ("recover", "fix"):
            src = fresh(f"k{n}-{then}")
            code, _, err = cli_with_fault(KILL_AT, "fix", src, *args, env={"KILL": str(n)})
            assert code == -signal.SIGKILL, (step, err)
            left = hidden(src)
            leaving += bool(left) and then == "fix"
            if then == "recover":  # the mechanism alone: the state the commit point says
                said = atomic.recover(src)
                assert digest(src) == (fixed if n >= commit else untouched), (step, said)
                assert bool(said) == bool(left), (step, left, said)
                continue
            r = cli("fix", src, *args, "--format", "json")  # the user's next run
            assert r.exit_code == 0, (step, r.stderr)
            assert digest(src) == fixed, step
            notes = r.json["notes"]
            rolled = " ".join(n.partition("restored ")[2] for n in notes if "rolled back" in n)
            for name in left:  # each named: cleared, or a backup put back as its file
                named = any(name in n for n in notes) or name[1:].rsplit(".", 2)[0] in rolled
                assert named, (step, name, notes)
    assert leaving >= len(steps) - 3  # what the kill leaves, at nearly every step


def test_a_fix_that_may_not_change_the_checkpoint_only_names_its_leftovers(tmp_path, monkeypatch):
    """Side files only: the checkpoint is not this run's to change, so what an
    interrupted write left there is named in a note, not removed."""
    src = synth.padded_sharded(tmp_path / "src")
    stray = src / ".config.json.0123456789ab.bak"
    stray.write_text("old config")
    record = src / ".dspark-ckpt-write.0123456789ab.undo"
    entry = {"dest": "config.json", "temp": ".config.json.aaaaaaaaaaaa.tmp", "new": False}
    record.write_text(
        json.dumps({"made": False}) + "\n" + json.dumps({**entry, "backup": stray.name})
    )
    unnamed = src / ".notes.bbbbbbbbbbbb.tmp"  # no record names it: not ours, never named
    unnamed.write_text("the user's")
    monkeypatch.chdir(tmp_path)
    r = cli("fix", src, "--target", SMALL, "--emit-mask", "--format", "json")
    assert r.exit_code == 0, r.stderr
    [note] = [n for n in r.json["notes"] if stray.name in n]
    assert record.name in note and unnamed.name not in note
    assert note.endswith("fix --in-place --force rolls it back or clears them")
    assert stray.read_text() == "old config" and record.exists() and unnamed.exists()
