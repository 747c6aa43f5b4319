"""What inspect's concise output and the boxed tables share, without Rich: laying parts
out in a width (``flow``), the target's line, why the profiles that do not decide fail,
and the marks of a finding (its severity's style, what ``fix`` does about it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dspark_ckpt.output.styled import Styled
from dspark_ckpt.output.text import one_line
from dspark_ckpt.rules.findings import ERROR, INFO, WARNING

if TYPE_CHECKING:
    from dspark_ckpt.commands.inspect import Report

SEVERITY_STYLE = {ERROR: "bold red", WARNING: "yellow", INFO: "cyan"}
# beside a code: what `fix` does about it (safe: by default; unsafe: with --unsafe-fixes;
# asks: with a value the user gives, --set)
REPAIR_MARK = {"safe": " *", "unsafe": " !", "asks": " ?"}


def flow(parts: list, width: int, text: type = Styled):
    """``parts`` joined by spaces and wrapped to ``width``, never inside a part (a label
    and its value: ``Vt 100``, ``vllm: PASS``) but where one is wider than the line: a
    path breaks after a ``/``, anything else anywhere. ``text``: the class of the parts
    that are not strings and of the result (``Styled``; Rich's ``Text`` for the tables)."""
    width = max(width, 1)
    items, used = [], 0  # joined once at the end: appended one by one, a line of
    for part in parts:  # megabytes (a config's class name) was copied at every break
        part = text(one_line(part)) if isinstance(part, str) else part  # Text drops BEL
        if used and used + 1 + len(part) > width:
            items.append(text("\n"))
            used = 0
        elif used:
            items.append(text(" "))
            used += 1
        for piece in _path_pieces(part):
            if used and used + len(piece) > width:
                items.append(text("\n"))
                used = 0
            cuts = range(width - used, len(piece), width) if len(piece) > width else ()
            *whole, piece = piece.divide(list(cuts)) if cuts else [piece]
            for line in whole:  # cut from the piece at once, not from its rest each time
                items += [line, text("\n")]
                used = 0
            items.append(piece)
            used += len(piece)
    return text().join(items)


def _path_pieces(text):
    """``text`` cut after each ``/``: where a long path may break."""
    pieces, start = [], 0
    for i, c in enumerate(text.plain):
        if c == "/":
            pieces.append(text[start : i + 1])
            start = i + 1
    return [*pieces, text[start:]] if start < len(text) else pieces or [text]


def target_line(r: Report) -> str | None:
    """The target model's facts and the tokenizer verdict, in one short line; None when
    there is nothing beyond its vocab (no hidden size, no layers, no tokenizer files)."""
    m, tf = r.target.model if r.target else None, r.facts
    tok = tf.tokenizer if tf else None
    if tok is not None and not (tok.drafter.files or tok.target.files):
        tok = None
    if m is None or (m.hidden_size is None and m.num_hidden_layers is None and tok is None):
        return None
    parts = [f"Ht {m.hidden_size}" if m.hidden_size else "Ht ?"]
    parts.append(f"{m.num_hidden_layers} layers" if m.num_hidden_layers else "layers ?")
    parts += [", ".join(m.architectures)] if m.architectures else []
    parts += [m.dtype] if m.dtype else []
    parts += [f"quantized ({m.quantization})"] if m.quantization else []
    if tok is not None:
        parts.append(f"tokenizer {tok.result}")
    return ", ".join(parts)


def failing_elsewhere(r: Report) -> dict[str, list[str]]:
    """Why the profiles that fail but do not decide the exit code fail, each reason once
    with the profiles it fails; left out where a profile fails on nothing the deciding
    profiles do not fail on too (an unreadable checkpoint: DSC001 under every one)."""
    deciding = {(f.code, f.tensor or f.file) for f in r.errors}
    reasons: dict[str, list[str]] = {}
    for name, found in r.failing_elsewhere.items():
        if {(f.code, f.tensor or f.file) for f in found} <= deciding:
            continue
        why = "; ".join(dict.fromkeys(f"{f.code} {f.title}" for f in found))
        reasons.setdefault(why, []).append(name)
    return reasons
