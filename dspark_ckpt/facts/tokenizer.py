"""Is the drafter's tokenizer the target's? Compared from the files, never loaded.

A drafter trained with another tokenizer loads and runs everywhere: its token ids
simply mean other strings, so its proposals are garbage and acceptance collapses
(SafeAILab/EAGLE #258). Runtimes use the target's tokenizer only, so the drafter
folder's tokenizer files are the one record of what it was trained with.

Read with ``json`` alone (no ``tokenizers``, no ``transformers``): ``tokenizer.json``
(its ``model.vocab``, a dict for BPE/WordPiece/WordLevel or a list for Unigram, and
``added_tokens``), else ``vocab.json`` (+ ``merges.txt``, which does not change
ids), with ``tokenizer_config.json``'s ``added_tokens_decoder`` and special-token
roles and ``special_tokens_map.json``. Files equal byte for byte are the fast path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from dspark_ckpt.source.base import Source, UnreadableFile

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.json",
    "merges.txt",
    "special_tokens_map.json",
)
VOCAB_FILES = ("tokenizer.json", "vocab.json")  # without one of these, ids cannot be read
ROLES = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")
SHOWN = 5  # differing ids reported
MAX_FILE = 1 << 30  # a tokenizer file larger than this is not a tokenizer

SAME, DIFFER, NOT_CHECKED = "same", "differ", "not checked"


@dataclass(frozen=True)
class TokenizerSide:
    files: tuple[str, ...]  # the tokenizer files the folder holds
    sha256: dict[str, str] = field(default_factory=dict)  # of each file read


@dataclass(frozen=True)
class TokenizerComparison:
    result: str  # SAME, DIFFER or NOT_CHECKED
    reason: str  # how it was decided, or why it was not checked
    drafter: TokenizerSide
    target: TokenizerSide
    compared_ids: int = 0  # ids [0, compared_ids) compared: min(V, Vt)
    differing_ids: int = 0
    first_differences: tuple[tuple[int, str | None, str | None], ...] = ()  # id, drafter, target
    special_differences: tuple[str, ...] = ()  # one line per special-token disagreement

    @property
    def vocab_differs(self) -> bool:
        return self.differing_ids > 0


class TokenizerError(Exception):
    """A tokenizer file that cannot be read as one (names the file)."""

    def __init__(self, path: Path, message: str) -> None:
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


@dataclass
class _Parsed:
    tokens: list  # id -> token (None: no token), the first ``n`` ids
    specials: dict[str, int]  # special token -> its id
    roles: dict[str, str]  # bos_token, ... -> the token


class _Files(dict):
    """A folder's tokenizer files read: name -> bytes, and where each was read from."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: dict[str, Path] = {}

    def path(self, name: str) -> Path:
        return self.paths[name]


def _read(source: Source, names: tuple[str, ...]) -> _Files:
    out = _Files()
    for name in names:
        try:
            path, out[name] = source.read_file(name, MAX_FILE)
        except UnreadableFile as e:
            why = (
                "is too large to be a tokenizer file"
                if e.too_large
                else f"cannot be read: {e.reason}"
            )
            raise TokenizerError(e.path, why) from None
        out.paths[name] = path
    return out


def _json(data: bytes, name: str, files: _Files):
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as e:
        raise TokenizerError(files.path(name), f"is not valid JSON: {e}") from None


_DECODE = json.JSONDecoder().raw_decode
# what is read of a tokenizer.json: its added tokens and its model's type and vocab
TOKENIZER_JSON_SPEC = {"added_tokens": None, "model": {"type": None, "vocab": None}}


def _ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


def _pick(text: str, i: int, spec: dict) -> tuple[dict, int]:
    """The members named in ``spec`` of the JSON object at ``text[i]``, decoded (a nested
    spec walks into that member), stopping as soon as all are found: a tokenizer.json's
    ``merges``, after its ``vocab``, are never decoded. Returns them and where it
    stopped. Raises ``ValueError`` for anything that is not such an object."""
    i = _ws(text, i)
    if text[i : i + 1] != "{":
        raise ValueError("expected an object")
    found: dict = {}
    i = _ws(text, i + 1)
    if text[i : i + 1] == "}":
        return found, i + 1
    while True:
        key, i = _DECODE(text, i)
        i = _ws(text, i)
        if not isinstance(key, str) or text[i : i + 1] != ":":
            raise ValueError("expected a key")
        i = _ws(text, i + 1)
        sub = spec.get(key)
        if isinstance(sub, dict):
            found[key], i = _pick(text, i, sub)
            if len(found[key]) < len(sub):  # the object ended without all of them
                i = _ws(text, i)
        else:
            value, i = _DECODE(text, i)
            if key in spec:
                found[key] = value
        if all(k in found for k in spec) and all(
            len(found[k]) == len(v) for k, v in spec.items() if isinstance(v, dict)
        ):
            return found, i
        i = _ws(text, i)
        if text[i : i + 1] == "}":
            return found, i + 1
        if text[i : i + 1] != ",":
            raise ValueError("expected , or }")
        i = _ws(text, i + 1)


def _tokenizer_json(data: bytes, files: _Files) -> dict:
    """The parts of a tokenizer.json that give ids: ``_pick`` reads only what it needs;
    a file it cannot walk is parsed whole (and refused if that fails too)."""
    try:
        return _pick(data.decode("utf-8"), 0, TOKENIZER_JSON_SPEC)[0]
    except (ValueError, IndexError, RecursionError):
        return _json(data, "tokenizer.json", files)


def _content(value) -> str | None:
    """A special token as written: a string, or an AddedToken dict's ``content``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def _by_id(vocab: dict, n: int) -> list:
    """id -> token for ids below ``n`` of a token -> id map. Tokenizer files list their
    vocab in id order from 0 (the tokenizers library writes it so): then the keys are
    the answer, taken at C speed; any other map is inverted entry by entry."""
    ids = list(vocab.values())
    if ids == list(range(len(ids))):
        tokens = list(vocab)[:n]
        return tokens + [None] * (n - len(tokens))
    tokens: list = [None] * n
    for token, i in vocab.items():
        if type(i) is int and 0 <= i < n:
            tokens[i] = token
    return tokens


def _base(files: _Files, n: int) -> tuple[list, list]:
    """The vocab file's id -> token list (ids below ``n``) and its added tokens."""
    added: list[tuple[int, str, bool]] = []
    if "tokenizer.json" not in files:
        vocab = _json(files["vocab.json"], "vocab.json", files)
        if not isinstance(vocab, dict):
            raise TokenizerError(files.path("vocab.json"), "is not a token -> id object")
        return _by_id(vocab, n), added
    doc = _tokenizer_json(files["tokenizer.json"], files)
    model = doc.get("model") if isinstance(doc, dict) else None
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if isinstance(vocab, dict):
        tokens = _by_id(vocab, n)
    elif isinstance(vocab, list):  # Unigram: [[token, score], ...], id = position
        tokens = [
            e[0] if isinstance(e, list) and e and isinstance(e[0], str) else None for e in vocab[:n]
        ]
        tokens += [None] * (n - len(tokens))
    else:
        raise TokenizerError(files.path("tokenizer.json"), "has no model.vocab")
    for tok in doc.get("added_tokens") or []:
        if isinstance(tok, dict):
            added.append((tok.get("id"), tok.get("content"), tok.get("special") is True))
    return tokens, added


def _parse(files: _Files, n: int, base=None) -> _Parsed:
    """id -> token for ids below ``n``, the special tokens and their roles. ``base``:
    ``_base`` of these files, when already read (the other side has the same vocab file)."""
    tokens, added = base or _base(files, n)
    tokens, added = list(tokens), list(added)  # a shared base is not modified
    specials: dict[str, int] = {}

    def put(token, i) -> None:
        if type(i) is int and 0 <= i < n and isinstance(token, str):
            tokens[i] = token

    roles: dict[str, str] = {}
    for name in ("special_tokens_map.json", "tokenizer_config.json"):  # the config wins
        if name not in files:
            continue
        doc = _json(files[name], name, files)
        if not isinstance(doc, dict):
            continue
        decoder = doc.get("added_tokens_decoder")
        if isinstance(decoder, dict):
            for key, tok in decoder.items():
                if isinstance(tok, dict) and key.isdigit():
                    added.append((int(key), tok.get("content"), tok.get("special") is True))
        for role in ROLES:
            if (token := _content(doc.get(role))) is not None:
                roles[role] = token
    for i, token, special in added:
        put(token, i)
        if special and isinstance(token, str) and type(i) is int:
            specials[token] = i
    return _Parsed(tokens, specials, roles)


def _special_differences(d: _Parsed, t: _Parsed) -> list[str]:
    out = []
    for role in ROLES:
        if role in d.roles and role in t.roles and d.roles[role] != t.roles[role]:
            out.append(f"{role}: drafter {d.roles[role]!r}, target {t.roles[role]!r}")
    for token in sorted(d.specials.keys() & t.specials.keys()):
        if d.specials[token] != t.specials[token]:
            out.append(
                f"special token {token!r}: drafter id {d.specials[token]}, "
                f"target id {t.specials[token]}"
            )
    return out


def _differing(a: list, b: list, chunk: int = 4096) -> list[int]:
    """The ids where two equally long id -> token lists differ: whole chunks compared
    at C speed, only differing chunks entry by entry."""
    out: list[int] = []
    for start in range(0, len(a), chunk):
        if a[start : start + chunk] != b[start : start + chunk]:
            part = zip(a[start : start + chunk], b[start : start + chunk], strict=True)
            out += [start + k for k, (x, y) in enumerate(part) if x != y]
    return out


def tokenizer_files(source: Source) -> tuple[str, ...]:
    """The tokenizer files a folder holds, in ``TOKENIZER_FILES`` order."""
    names = source.file_names()
    return tuple(f for f in TOKENIZER_FILES if f in names)


def compare_tokenizers(drafter: Source, target: Source, n: int) -> TokenizerComparison:
    """Compare the tokenizer files of the drafter's and the target's folders over ids
    ``[0, n)`` (``n`` = min(V, Vt)). Raises ``TokenizerError`` for an unreadable file."""
    d_files, t_files = tokenizer_files(drafter), tokenizer_files(target)
    d_vocab = any(f in d_files for f in VOCAB_FILES)
    t_vocab = any(f in t_files for f in VOCAB_FILES)
    if not (d_vocab and t_vocab):
        missing = [w for w, ok in (("drafter", d_vocab), ("target", t_vocab)) if not ok]
        return TokenizerComparison(
            NOT_CHECKED,
            f"the {' and '.join(missing)} folder{'s hold' if len(missing) > 1 else ' holds'} "
            "no tokenizer.json or vocab.json",
            TokenizerSide(d_files),
            TokenizerSide(t_files),
        )
    import hashlib  # only where both folders hold a vocab (a start-up cost otherwise)

    d_bytes, t_bytes = _read(drafter, d_files), _read(target, t_files)
    d_side = TokenizerSide(d_files, {k: hashlib.sha256(v).hexdigest() for k, v in d_bytes.items()})
    t_side = TokenizerSide(t_files, {k: hashlib.sha256(v).hexdigest() for k, v in t_bytes.items()})
    if d_side.sha256 == t_side.sha256:
        return TokenizerComparison(SAME, "identical files (sha256)", d_side, t_side, n)
    vocab_file = next(f for f in VOCAB_FILES if f in d_bytes)
    d_base = _base(d_bytes, n)
    same_vocab = vocab_file in t_bytes and d_bytes[vocab_file] == t_bytes[vocab_file]
    d = _parse(d_bytes, n, d_base)  # an identical vocab file is read once
    t = _parse(t_bytes, n, d_base if same_vocab else None)
    diff_ids = _differing(d.tokens, t.tokens)
    specials = _special_differences(d, t)
    result = DIFFER if diff_ids or specials else SAME
    reason = (f"{len(diff_ids)} of {n} ids differ" if diff_ids else f"the same {n} ids") + (
        f"; {len(specials)} special-token difference(s)" if specials else ""
    )
    return TokenizerComparison(
        result,
        reason,
        d_side,
        t_side,
        n,
        len(diff_ids),
        tuple((i, d.tokens[i], t.tokens[i]) for i in diff_ids[:SHOWN]),
        tuple(specials),
    )
