"""Write the profile tables of docs/profiles.md from the profile registry.

    python tools/profiles_table.py          # rewrite the generated parts of the page
    python tools/profiles_table.py --check  # exit 1 if the page is not what it gives

Three parts of the page are generated, each between its markers: the list of profiles
(names, family, the release each mirrors, the releases ``--runtime`` resolves to it, its
source files), every draft architecture vLLM and SGLang register with the profile that
judges it or why none does (``profiles/architectures.py``, with the counts per runtime and
family), and every profile's rule fields: for each runtime and family (a line,
``vllm-dspark``) the newest release's value and cite of every field, then what each
older release differs in, with its own cite. Edit an entry (dspark_ckpt/profiles/vllm.py,
sglang.py, trtllm.py, eagle1.py, architectures.py), then run this.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dspark_ckpt.profiles.architectures import ARCHITECTURES, RELEASE
from dspark_ckpt.profiles.registry import PROFILES, names, newest
from dspark_ckpt.profiles.releases import history, runtime_key
from dspark_ckpt.profiles.schema import RULE_FIELDS, Profile

PAGE = Path(__file__).resolve().parent.parent / "docs" / "profiles.md"
BEGIN = "<!-- begin profiles: generated from the profile registry by tools/profiles_table.py -->"
END = "<!-- end profiles -->"
FIELDS_BEGIN = (
    "<!-- begin fields: generated from the profile registry by tools/profiles_table.py -->"
)
FIELDS_END = "<!-- end fields -->"
ARCH_BEGIN = (
    "<!-- begin architectures: generated from profiles/architectures.py by "
    "tools/profiles_table.py -->"
)
ARCH_END = "<!-- end architectures -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def value(v: object) -> str:
    """A rule value as a table cell: words and names in backticks, ``-`` for none."""
    if isinstance(v, tuple):
        return ", ".join(value(x) for x in v) if v else "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v == "":
        return "-"
    return f"`{_cell(str(v))}`"


def _history(p: Profile) -> tuple:
    """Sorts a line's entries oldest first (``main`` after every release)."""
    return history(p.releases)


def lines(profiles: dict[str, Profile]) -> dict[str, list[Profile]]:
    """Each line's entries, newest first, in the order the registry lists the lines."""
    out: dict[str, list[Profile]] = {}
    for p in profiles.values():
        out.setdefault(p.line, []).append(p)
    return {k: sorted(v, key=_history, reverse=True) for k, v in out.items()}


def generated(profiles: dict[str, Profile] | None = None) -> str:
    """The list of profiles, markers included."""
    profiles = PROFILES if profiles is None else profiles
    rows = [
        BEGIN,
        "",
        "| profile | also named | family | release it mirrors | `--runtime` releases "
        "| source files |",
        "|---|---|---|---|---|---|",
    ]
    for p in profiles.values():
        others = ", ".join(f"`{n}`" for n in names(p, profiles)[1:])
        key = runtime_key(p.runtime)
        if p.releases.startswith("main@"):  # an earlier commit: no --runtime takes it
            covered = "-"
        elif p.releases == "main":
            covered = f"`{key}=={p.releases}`"
        else:
            covered = f"`{key}{p.releases}`"
        sources = ", ".join(f"`{_cell(s)}`" for s in p.sources)
        rows.append(
            f"| `{p.name}` | {others} | {p.family} | {_cell(p.release)} | {covered} | {sources} |"
        )
    return "\n".join([*rows, "", END])


def generated_fields(profiles: dict[str, Profile] | None = None) -> str:
    """Every line's fields (the newest release's), then each older release's changes."""
    profiles = PROFILES if profiles is None else profiles
    out = [FIELDS_BEGIN]
    for line, entries in lines(profiles).items():
        top = newest(profiles, line)
        assert top is entries[0]
        out += [
            "",
            f"### {line}",
            "",
            f"`{top.name}` ({top.qualified_name}, releases `{top.releases}`): "
            f"{_cell(top.release)}.",
            "",
            "| field | value | read from |",
            "|---|---|---|",
        ]
        out += [
            f"| `{f}` | {value(getattr(top, f))} | {_cell(top.cites[f])} |" for f in RULE_FIELDS
        ]
        for newer, older in zip(entries, entries[1:], strict=False):
            changed = [f for f in RULE_FIELDS if getattr(older, f) != getattr(newer, f)]
            recited = [
                f for f in RULE_FIELDS if f not in changed and older.cites[f] != newer.cites[f]
            ]
            out += [
                "",
                f"`{older.name}` ({older.qualified_name}, releases `{older.releases}`): "
                f"{_cell(older.release)}. It differs from `{newer.name}` in "
                + (", ".join(f"`{f}`" for f in changed) or "no rule field")
                + (
                    "; its cites differ for " + ", ".join(f"`{f}`" for f in recited)
                    if recited
                    else ""
                )
                + ":",
                "",
                f"| field | `{older.name}` | `{newer.name}` | read from (`{older.name}`) |",
                "|---|---|---|---|",
            ]
            out += [
                f"| `{f}` | {value(getattr(older, f))} | {value(getattr(newer, f))} "
                f"| {_cell(older.cites[f])} |"
                for f in (*changed, *recited)
            ]
    return "\n".join([*out, "", FIELDS_END])


def _answer(judged: str) -> str:
    """A table's answer as the profile that prints the verdict (a line names its newest)."""
    found = PROFILES.get(judged) or newest(PROFILES, judged)
    return f"`{found.name}`" if found else f"`{judged}`"


def generated_architectures(profiles: dict[str, Profile] | None = None) -> str:
    """The counts per runtime and family (judged / not), then every architecture's row."""
    del profiles  # the table is the architectures', whatever the registry
    counts: dict[tuple[str, str], list[int]] = {}
    for a in ARCHITECTURES:
        for key in ((a.runtime, a.family or "other"), (a.runtime, "all")):
            counts.setdefault(key, [0, 0])[0 if a.judged_by else 1] += 1
    out = [
        ARCH_BEGIN,
        "",
        "| runtime | family | judged | not judged |",
        "|---|---|---|---|",
    ]
    out += [
        f"| {RELEASE[runtime]} | {family} | {judged} | {other} |"
        for (runtime, family), (judged, other) in sorted(counts.items())
    ]
    out += [
        "",
        "| architecture | runtime | builds | family | judged by, or why not | registered at |",
        "|---|---|---|---|---|---|",
    ]
    out += [
        f"| `{a.name}` | {RELEASE[a.runtime]} | `{a.builds}` | {a.family or '-'} | "
        f"{_answer(a.judged_by) if a.judged_by else _cell(a.why)} | {_cell(a.cite)} |"
        for a in ARCHITECTURES
    ]
    return "\n".join([*out, "", ARCH_END])


def page(text: str, profiles: dict[str, Profile] | None = None) -> str:
    """``text`` (the page) with the generated parts as the registry gives them."""
    for begin, end, make in (
        (BEGIN, END, generated),
        (ARCH_BEGIN, ARCH_END, generated_architectures),
        (FIELDS_BEGIN, FIELDS_END, generated_fields),
    ):
        head, found_begin, rest = text.partition(begin)
        _, found_end, tail = rest.partition(end)
        if not (found_begin and found_end):
            raise SystemExit(f"{PAGE}: no {begin!r} ... {end!r} markers")
        text = head + make(profiles) + tail
    return text


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    want = page(text)
    if "--check" in argv:
        if want != text:
            print(f"{PAGE} differs from the profile registry: run python tools/profiles_table.py")
            return 1
        return 0
    PAGE.write_text(want, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
