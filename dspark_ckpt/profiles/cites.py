"""The citations of a profile, parsed once: which release file and lines each ``cites``
part names, and the anchor that must stand there.

A ``cites`` value is ``;``-separated parts (a ``;`` inside parentheses or backticks is
prose). A part is one of:

- a **line cite**: ``path:LINES `anchor` (prose)``. ``LINES`` is ``N``, ``N-M`` or a
  comma list of those; each backticked anchor is a literal substring of the cited file
  that stands within ``ANCHOR_SLACK`` lines of one of the cited ranges, and every range
  has an anchor near it. A vLLM or SGLang path is read in the release wheel
  (``RELEASES``); ``path@VERSION:LINES`` names another release of that package.
- a **function cite**: ``path@COMMIT:Name.func() (prose)``, for sources read at a commit
  (TensorRT-LLM): checked by hand.
- a **file cite**: ``path (prose)``, a statement about the whole file (often that it
  has no such code); the file must exist at the release.
- prose: anything else (``vllm PR #53458 (...)``). Prose may not hide a line cite.

Pure: parsing and checking take strings; the test (``tests/test_citations.py``) and
``tools/fetch_sources.py`` read the files.
"""

from __future__ import annotations

import re

from dspark_ckpt.record import record

# how far (in lines) an anchor may stand from the cited lines
ANCHOR_SLACK = 5


@record
class Release:
    """A runtime release whose wheel holds the files its cites name."""

    package: str  # the name on the package index (``pip download package==version``)
    version: str
    prefixes: tuple[str, ...]  # how a cited path starts: stripped to the path in the wheel

    @property
    def name(self) -> str:
        return f"{self.package}-{self.version}"


# the release each package's line cites are read at (a path@VERSION part names another)
RELEASES = {
    "vllm": Release("vllm", "0.33.0", ("vllm/",)),
    # SGLang's repository keeps the package under python/; the wheel at its root
    "sglang": Release("sglang", "0.5.23", ("python/sglang/", "sglang/")),
}

_PATH = r"[A-Za-z0-9_][A-Za-z0-9_./-]*\.py"
_RANGES = r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*"
_PART = re.compile(
    rf"(?P<path>{_PATH})"
    r"(?:@(?P<ref>[0-9A-Za-z.]+))?"
    rf"(?::(?:(?P<lines>{_RANGES})|(?P<func>[A-Za-z_][\w.]*\(\))))?"
    r"(?P<anchors>(?:\s+`[^`]+`)*)"
    r"(?P<rest>(?:\s.*)?)$",
    re.DOTALL,
)
_ANCHOR = re.compile(r"`([^`]+)`")
# a file:line inside prose escapes the check: refused
_HIDDEN_LINE = re.compile(rf"{_PATH}(?:@[0-9A-Za-z.]+)?:\d")
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


@record
class Cite:
    """One part of a ``cites`` value."""

    text: str
    path: str | None = None  # as written; None for prose
    ref: str | None = None  # the @commit or @version written after the path
    lines: tuple[tuple[int, int], ...] = ()  # the cited ranges, first..last inclusive
    func: str | None = None  # Name.func() of a function cite
    anchors: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """``line``, ``function``, ``file`` or ``prose``."""
        if self.path is None:
            return "prose"
        return "line" if self.lines else "function" if self.func else "file"

    @property
    def release(self) -> Release | None:
        """The wheel release that holds the cited file (None: not a vLLM/SGLang file)."""
        if self.path is None:
            return None
        for rel in RELEASES.values():
            if self.path.startswith(rel.prefixes):
                if self.ref is None or self.ref == rel.version:
                    return rel
                return Release(rel.package, self.ref, rel.prefixes)
        return None

    @property
    def wheel_path(self) -> str | None:
        """The cited file's path inside its release wheel."""
        rel = self.release
        if rel is None or self.path is None:
            return None
        prefix = next(p for p in rel.prefixes if self.path.startswith(p))
        return rel.package + "/" + self.path[len(prefix) :]


def split_parts(value: str) -> list[str]:
    """``value`` split at each ``;`` outside parentheses and backticks, parts stripped."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(value):
        if ch == "`":
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth = max(0, depth - 1)
        elif ch == ";" and depth == 0 and not quoted:
            parts.append(value[start:i])
            start = i + 1
    parts.append(value[start:])
    return [p.strip() for p in parts if p.strip()]


def _ranges(lines: str) -> tuple[tuple[int, int], ...]:
    out = []
    for item in lines.split(","):
        first, _, last = item.partition("-")
        out.append((int(first), int(last or first)))
    return tuple(out)


def parse_part(text: str) -> Cite:
    """One part: a line, function or file cite, else prose."""
    m = _PART.match(text)
    if m is None:
        return Cite(text)
    lines = m["lines"]
    return Cite(
        text,
        path=m["path"],
        ref=m["ref"],
        lines=_ranges(lines) if lines else (),
        func=m["func"],
        anchors=tuple(_ANCHOR.findall(m["anchors"])),
    )


def parse_cites(value: str) -> tuple[Cite, ...]:
    """Every part of one ``cites`` value."""
    return tuple(parse_part(p) for p in split_parts(value))


def form_problem(cite: Cite) -> str | None:
    """What is wrong with a part's form, before any file is read (None: nothing)."""
    if cite.kind == "prose":
        if _HIDDEN_LINE.search(cite.text):
            return "a file:line inside prose (write it as its own part: path:LINES `anchor`)"
        return None
    for first, last in cite.lines:
        if first < 1 or last < first:
            return f"line range {first}-{last} is empty"
    if cite.kind == "line" and not cite.anchors:
        return "a file:line without an anchor (path:LINES `anchor`)"
    if cite.kind == "line" and cite.release is None:
        return "a file:line outside a vLLM/SGLang release (name the commit and function)"
    if cite.kind == "function" and not (cite.ref and _COMMIT.fullmatch(cite.ref)):
        return "a function cite without the commit it was read at (path@commit:func())"
    if cite.release is None and cite.path and not (cite.ref and _COMMIT.fullmatch(cite.ref)):
        return "a file that is neither in a vLLM/SGLang release nor at a named commit"
    return None


def anchor_problem(cite: Cite, source: str) -> str | None:
    """What the cited release file (its text ``source``) says against a line cite (None:
    every line exists and every anchor stands within ``ANCHOR_SLACK`` lines of a cited
    range, every range with an anchor near it)."""
    lines = source.splitlines()
    last_cited = max(last for _, last in cite.lines)
    if last_cited > len(lines):
        return f"line {last_cited} is past the end ({len(lines)} lines)"
    near = {}
    for first, last in cite.lines:
        lo, hi = max(1, first - ANCHOR_SLACK), min(len(lines), last + ANCHOR_SLACK)
        window = "\n".join(lines[lo - 1 : hi])
        near[(first, last)] = [a for a in cite.anchors if a in window]
    for anchor in cite.anchors:
        if not any(anchor in found for found in near.values()):
            where = [i + 1 for i, line in enumerate(lines) if anchor in line][:3]
            seen = f" (found at {', '.join(map(str, where))})" if where else " (not in the file)"
            return f"`{anchor}` is not within {ANCHOR_SLACK} lines of the cited lines{seen}"
    for (first, last), found in near.items():
        if not found:
            span = str(first) if first == last else f"{first}-{last}"
            return f"no anchor stands near line {span}"
    return None
