"""Write the MTP tables of docs/mtp.md from the MTP loaders (dspark_ckpt/profiles/mtp.py).

    python tools/mtp_table.py          # rewrite the generated part of the page
    python tools/mtp_table.py --check  # exit 1 if the page is not what it gives

The generated part stands between its markers: per runtime release, each MTP architecture
judged (the targets it is picked for, where its layer count and layers are read, and what
a missing layer or tensor costs), then each one not judged, with why.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dspark_ckpt.profiles.mtp import LOADERS, RUNTIMES, UNJUDGED, MtpLoader

PAGE = Path(__file__).resolve().parent.parent / "docs" / "mtp.md"
BEGIN = "<!-- begin mtp: generated from the MTP loaders by tools/mtp_table.py -->"
END = "<!-- end mtp -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _count(x: MtpLoader) -> str:
    if x.count_fixed is not None:
        out = f"{x.count_fixed} (fixed)"
    else:
        out = " or ".join(f"`{k}`" for k in x.count_keys)
        if x.count_in_text:
            out += " (or its text_config's)"
        out += f", default {x.count_default}" if x.count_default is not None else ", no default"
    if x.count_max is not None:
        out += f"; at most {x.count_max}"
    if x.step_pattern:
        out += f"; x len(`{x.step_pattern}`) layers a step"
    if x.serving:
        out += f"; read per `{x.serving}` (each layer judged, the message says which values work)"
    return out


def _layers(x: MtpLoader) -> str:
    if "{i}" in x.layer:
        where = " or ".join(f"`{p}`" for p in (x.layer, *x.layer_also)) + f", i from {x.first}"
        renamed = [f"`{a}` also as `{b}`" for a, b in x.also if b != f"transformer.{a}"]
        if len(renamed) < len(x.also):
            renamed.append("the decoder also under `transformer.`")
        where += "; " + ", ".join(renamed) if renamed else ""
    else:  # the index sits in each module's path (Ernie's model.mtp_emb_norm.{i})
        paths = [f"`{x.layer}.{p}`" for p, _ in (*x.own, *x.decoder) if "{i}" in p]
        where = ", ".join(dict.fromkeys(p.split("{i}")[0] + "{i}`" for p in paths))
        where += f", i from {x.first}"
    if x.once:
        where += "; once: " + ", ".join(f"`{p}`" for p, _ in x.once)
    return where


def _missing(x: MtpLoader) -> str:
    layer = "refused" if x.layer_check else None
    tensor = {
        "tracked": "refused unquantised, uninitialised quantised",
        "strict": "refused, quantised or not",
    }.get(x.missing, "uninitialised")
    out = f"layer: {layer or tensor}; tensor: {tensor}"
    if x.stacked:
        out += "; a layer past the first overwrites it"
    if x.refused:
        out += "; a name it has no parameter for: refused"
    if x.moe_keys:
        out += f"; a MoE draft layer ({' / '.join(f'`{k}`' for k in x.moe_keys)}): refused"
    return out


def rows() -> list[str]:
    out = []
    for runtime, release in RUNTIMES.items():
        mine = [x for x in LOADERS if x.runtime == runtime]
        out += [
            f"### {release}: {len(mine)} judged",
            "",
            "| architecture | family | picked for | layer count | draft layers | missing |",
            "|---|---|---|---|---|---|",
        ]
        for x in mine:
            targets = ", ".join(f"`{t.partition(':')[2]}`" for t in x.targets)
            cells = (f"`{x.architecture}`", x.family, targets, _count(x), _layers(x), _missing(x))
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        skipped = sorted((a, why) for (r, a), why in UNJUDGED.items() if r == runtime)
        out += ["", f"Not judged under {release} ({len(skipped)}):", ""]
        out += [f"- `{a}`: {_cell(why)}" for a, why in skipped]
        out.append("")
    return out


def page(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + BEGIN + "\n" + "\n".join(rows()) + END + tail


def main(argv: list[str]) -> int:
    text = PAGE.read_text(encoding="utf-8")
    new = page(text)
    if "--check" in argv:
        return 0 if new == text else 1
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
