"""Fetch the runtime releases the profiles cite, and unpack the cited files.

    python tools/fetch_sources.py [--dest DIR] [--wheels DIR]

For each vLLM / SGLang release a profile cites (``dspark_ckpt/profiles/cites.py``:
``RELEASES``, or a ``path@VERSION`` part), ``pip download --no-deps`` its wheel into
``DEST/wheels/`` (skipped when the wheel is already there or in ``--wheels DIR``), then
unpack the cited files only into ``DEST/<package>-<version>/`` with the wheel's file list
beside them (``WHEEL-FILES.txt``: a cited path missing from it is not in the release).
``tests/test_citations.py`` reads them there.

DEST is ``$DSPARK_CKPT_SOURCES``, else ``~/.cache/dspark-ckpt/sources``: outside the
repository (the wheels are about 380 MB; never commit them). Standard library only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dspark_ckpt.profiles.architectures import ARCHITECTURES  # noqa: E402
from dspark_ckpt.profiles.cites import Release, parse_cites  # noqa: E402
from dspark_ckpt.profiles.mtp import LOADERS  # noqa: E402
from dspark_ckpt.profiles.registry import PROFILES  # noqa: E402

FILE_LIST = "WHEEL-FILES.txt"
# a cited file is a Python source: a few hundred KB; an entry declaring more is refused
# before a byte of it is unpacked, and entries are streamed (zipfile stops at the size
# the entry declares and checks its CRC)
MAX_SOURCE_BYTES = 16 << 20
CHUNK = 1 << 20


def default_dest() -> Path:
    env = os.environ.get("DSPARK_CKPT_SOURCES")
    return Path(env).expanduser() if env else Path.home() / ".cache/dspark-ckpt/sources"


def cited_files() -> dict[Release, set[str]]:
    """Every release file the profiles, the draft-architecture table and the MTP loaders
    cite (line and file cites), by release."""
    out: dict[Release, set[str]] = {}
    values = [v for cited in (*PROFILES.values(), *LOADERS) for v in cited.cites.values()]
    for value in [*values, *(a.cite for a in ARCHITECTURES)]:
        for cite in parse_cites(value):
            if cite.kind in ("line", "file") and cite.release is not None:
                out.setdefault(cite.release, set()).add(cite.wheel_path)
    return out


def _wheel_in(folder: Path, rel: Release) -> Path | None:
    found = sorted(folder.glob(f"{rel.package}-{rel.version}-*.whl"))
    return found[0] if found else None


def find_or_download(rel: Release, dest: Path, extra: Path | None) -> Path:
    """The release's wheel: in DEST/wheels, in ``extra``, else downloaded to DEST/wheels."""
    wheels = dest / "wheels"
    for folder in (wheels, extra):
        if folder is not None and (whl := _wheel_in(folder, rel)) is not None:
            return whl
    wheels.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--dest", str(wheels), f"{rel.package}=={rel.version}"]
    print(f"downloading {rel.package}=={rel.version} ...", file=sys.stderr)
    if subprocess.run(cmd).returncode != 0:
        raise SystemExit(f"fetch_sources: pip download {rel.package}=={rel.version} failed")
    whl = _wheel_in(wheels, rel)
    if whl is None:
        raise SystemExit(f"fetch_sources: no {rel.package}-{rel.version} wheel in {wheels}")
    return whl


def unpack(whl: Path, paths: set[str], out: Path) -> list[str]:
    """Write the cited ``paths`` of ``whl`` (and its file list) under ``out``; returns the
    cited paths the wheel does not hold."""
    with zipfile.ZipFile(whl) as zf:
        names = set(zf.namelist())
        out.mkdir(parents=True, exist_ok=True)
        for path in sorted(paths & names):
            if Path(path).is_absolute() or ".." in Path(path).parts:
                raise SystemExit(f"fetch_sources: refusing the path {path!r}")
            info = zf.getinfo(path)
            if info.file_size > MAX_SOURCE_BYTES:
                raise SystemExit(
                    f"fetch_sources: {whl.name}: {path} unpacks to {info.file_size} bytes, "
                    f"over the {MAX_SOURCE_BYTES} a cited source file may have"
                )
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(target.suffix + ".part")
            try:  # streamed: never the whole entry in memory
                with zf.open(info) as src, open(tmp, "wb") as dst:
                    while chunk := src.read(CHUNK):
                        dst.write(chunk)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            tmp.replace(target)
    listing = out / FILE_LIST
    tmp = listing.with_suffix(".part")
    tmp.write_text("".join(f"{n}\n" for n in sorted(names)))
    tmp.replace(listing)
    return sorted(paths - names)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dest", type=Path, default=None, help="the cache (default: %(default)s)")
    ap.add_argument("--wheels", type=Path, default=None, help="a folder of wheels to reuse")
    args = ap.parse_args(argv)
    dest = (args.dest or default_dest()).expanduser()
    missing = []
    for rel, paths in sorted(cited_files().items(), key=lambda kv: kv[0].name):
        whl = find_or_download(rel, dest, args.wheels)
        absent = unpack(whl, paths, dest / rel.name)
        missing += [f"{rel.name}: {p}" for p in absent]
        print(f"{rel.name}: {len(paths) - len(absent)} cited files in {dest / rel.name}")
    for line in missing:
        print(f"fetch_sources: cited but not in the release: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
