"""Where reports (``-o``, ``--also``) may go: never over a file the run reads, never two
to one path; where ``fix`` may write a checkpoint: never the target's folder.

A report replaces an existing file as ruff's ``--output-file`` does, unless that file
is an input of the same run: the configuration ``check`` reads, a drafter or target
file, any file of a checkpoint folder the run reads (its config, index, weights,
tokenizer files sit side by side). Those, and one path given for two reports, are
usage errors naming both roles, before anything is read or written."""

from __future__ import annotations

import os
from pathlib import Path

from dspark_ckpt.errors import UsageError

# an input: (its role, the path as given, whether it names a checkpoint, read with its
# folder, or one file alone)
Input = tuple[str, "str | Path | None", bool]


def _same(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _read_by(dest: str, inputs: list[Input]) -> str | None:
    """The role of the input ``dest`` (an existing file) is, or lies in; else None."""
    where = os.path.dirname(os.path.realpath(dest))
    for role, name, checkpoint in inputs:
        if name is None or str(name) == "-":
            continue
        path = Path(name)
        try:
            if not path.exists():  # a Hub id, or missing: the run itself says so
                continue
            folder = path if path.is_dir() else path.parent
        except OSError:
            continue
        if path.is_file() and _same(dest, path):
            return f"{role} ({path})"
        if checkpoint and where == os.path.realpath(folder):
            return f"in the checkpoint folder ({folder}) of {role}"
    return None


def refuse_report_paths(reports: list[tuple[str, Path | None]], inputs: list[Input]) -> None:
    """``reports``: (role, path) of each report file asked for (``None`` or ``-``:
    stdout). A usage error if one is an input of the run or given twice."""
    seen: dict[str, str] = {}
    for role, path in reports:
        if path is None or str(path) == "-":
            continue
        try:  # an existing file by its inode (a hard link is the same file)
            st = os.stat(path)
            key = f"{st.st_dev}:{st.st_ino}"
        except OSError:
            key = os.path.realpath(path)
        if key in seen:
            raise UsageError(
                f"{path}: is both {seen[key]} and {role}; give each report its own path"
            )
        seen[key] = role
        try:
            exists = os.path.isfile(path)
        except OSError:
            exists = False
        if exists and (read := _read_by(str(path), inputs)) is not None:
            raise UsageError(
                f"{path}: is {read}, an input of this run; refusing to write {role} over it"
            )


def _folder(name: str | Path | None) -> str | None:
    """The real folder of a local checkpoint as named (a folder, or the folder of a file
    named), else None (a Hub id, missing)."""
    if name is None:
        return None
    path = Path(name)
    try:
        if not path.exists():
            return None
        return os.path.realpath(path if path.is_dir() else path.parent)
    except OSError:
        return None


def refuse_fix_over_target(
    drafter: str, target: str | None, out: str | None, in_place: bool
) -> None:
    """``fix`` writes a checkpoint into a folder: never the target's, which the run reads
    and judges against (``--out TARGET --force`` replaced the target's config.json with
    the drafter's; ``--in-place`` on a drafter that is its own target changed the target
    it was checked against). A usage error naming both roles."""
    held = _folder(target)
    if held is None:
        return
    if out is not None and os.path.realpath(out) == held:
        raise UsageError(
            f"{out}: is the target's folder (--target {target}), an input of this run; "
            "refusing to write the fixed checkpoint (--out) there"
        )
    if in_place and _folder(drafter) == held:
        raise UsageError(
            f"{drafter}: is also the target's folder (--target {target}); patching it in "
            "place would change the target it is checked against"
        )
