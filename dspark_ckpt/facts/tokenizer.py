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

import re
import sys
from dataclasses import field
from itertools import islice
from pathlib import Path

from dspark_ckpt.errors import CheckpointError
from dspark_ckpt.record import record
from dspark_ckpt.source.base import Source, UnreadableFile
from dspark_ckpt.source.safetensors import decode_json, loads_json

TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.json",
    "merges.txt",
    "special_tokens_map.json",
)
VOCAB_FILES = ("tokenizer.json", "vocab.json")  # without one of these, ids cannot be read
ROLES = ("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")
SHOWN = 5  # differing ids, special-token differences quoted (the rest are counted)
TOKEN_SHOWN = 80  # characters of a token quoted; a longer one loses its middle, counted
MESSAGE_SHOWN = 300  # characters of a reason a tokenizer file is refused for
MAX_FILE = 1 << 30  # a tokenizer file larger than this is not a tokenizer
# parsing one file may take up to PARSE_FACTOR times its size (PARSE_FLOOR for a small
# one): a real tokenizer.json takes 3-8 times (Qwen3's: 5.4), dense JSON such as 1 GiB of
# ``[],`` would take 27; ``parse_cost`` bounds it from the bytes before anything is built
PARSE_FACTOR = 16
PARSE_FLOOR = 64 << 20

SAME, DIFFER, NOT_CHECKED = "same", "differ", "not checked"


@record
class TokenizerSide:
    files: tuple[str, ...]  # the tokenizer files the folder holds
    sha256: dict[str, str] = field(default_factory=dict)  # of each file read


@record
class TokenizerComparison:
    result: str  # SAME, DIFFER or NOT_CHECKED
    reason: str  # how it was decided, or why it was not checked
    drafter: TokenizerSide
    target: TokenizerSide
    compared_ids: int = 0  # ids [0, compared_ids) compared: min(V, Vt)
    differing_ids: int = 0
    # the first SHOWN differing ids: id, drafter's token, target's (``cut``)
    first_differences: tuple[tuple[int, str | None, str | None], ...] = ()
    # the first SHOWN special-token disagreements, then "[... N items ...]" for the rest
    special_differences: tuple[str, ...] = ()
    special_count: int = 0  # all special-token disagreements

    @property
    def vocab_differs(self) -> bool:
        return self.differing_ids > 0


def cut(token: str, most: int = TOKEN_SHOWN) -> str:
    """A token as findings quote it: whole up to ``most`` characters, else its start and
    its end with the middle counted, in the marker the tool's one cap on quoted input
    uses (``rules/findings.py``'s ``bounded``): a token of megabytes makes no finding long."""
    if len(token) <= most:
        return token
    half = most // 2
    return f"{token[:half]}[... {len(token) - 2 * half} characters ...]{token[-half:]}"


def _shown(token: str | None) -> str | None:
    return None if token is None else cut(token)


def _q(token) -> str:
    return repr(cut(token)) if isinstance(token, str) else repr(token)[:TOKEN_SHOWN]


class TokenizerError(Exception):
    """A tokenizer file that cannot be read as one (names the file; the reason bounded)."""

    def __init__(self, path: Path, message: str) -> None:
        message = cut(message, MESSAGE_SHOWN)
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


class _Ids:
    """id -> token for the ids below ``n`` that the files name: ``dense`` holds ids
    ``0..k-1`` (a vocab listed in id order, as the tokenizers library writes it: its
    tokens taken whole at C speed), ``sparse`` the others. One entry per token the files
    hold, never one per declared id: a vocab_size of 2^31 costs nothing more."""

    __slots__ = ("dense", "sparse")

    def __init__(self, dense: list[str] | None = None, sparse: dict[int, str] | None = None):
        self.dense, self.sparse = dense or [], sparse or {}

    def copy(self) -> _Ids:
        return _Ids(list(self.dense), dict(self.sparse))

    def get(self, i: int) -> str | None:
        return self.dense[i] if i < len(self.dense) else self.sparse.get(i)

    def put(self, i: int, token: str) -> None:
        if i < len(self.dense):
            self.dense[i] = token
        else:
            self.sparse[i] = token

    def beyond(self, k: int) -> dict[int, str]:
        """The ids from ``k`` up (``k`` <= len(dense))."""
        if k == len(self.dense):
            return self.sparse
        return {**dict(enumerate(self.dense[k:], k)), **self.sparse}


@record(frozen=False)
class _Parsed:
    tokens: _Ids
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
            reason = e.reason.removeprefix("cannot open: ").removeprefix("cannot read: ")
            why = (
                "is too large to be a tokenizer file"
                if e.too_large
                else f"cannot be read: {reason}"
            )
            raise TokenizerError(e.path, why) from None
        out.paths[name] = path
    return out


_ESCAPE = r"\\u[0-9a-fA-F]{4}"  # a \uXXXX escape
_SURROGATE_ESCAPE = r"\\u[dD][89a-fA-F]"  # half of a character past U+FFFF
_ASCII_STR = sys.getsizeof("a" * 1000) - 1000  # CPython's header of an ASCII str
_NOT_COUNTED = bytes(sorted(set(range(256)) - set(b'[{:",')))


def _kind(text: str) -> int:
    """Bytes per character of ``text`` as CPython holds it (1, 2 or 4), in O(1)."""
    if text.isascii() or not text:
        return 1
    return max(1, round((sys.getsizeof(text) - _ASCII_STR) / len(text)))


def parse_cost(data: bytes, text: str) -> int:
    """An upper bound on the memory that parsing ``data`` (decoded: ``text``) strictly
    takes, from counts taken at C speed, before anything is built: the bytes and the text,
    every string's characters at the widest kind they can take, the strict parse's
    surrogate check, and per bracket, colon, quote and comma the most an object, member,
    string or value costs (measured on CPython 3.11: a list or dict 72-88 bytes, a
    member ~100, a string 49-80 and its slot 8; ``tests/facts/test_tokenizer_compare.py``
    holds it against the parse of the densest shapes)."""
    n, kind = len(data), _kind(text)
    wide = kind  # the widest kind a string can have: escapes may widen it
    surrogates = False
    if "\\u" in text and re.search(_ESCAPE, text):
        surrogates = re.search(_SURROGATE_ESCAPE, text) is not None
        wide = 4 if surrogates else max(kind, 2)
    c = data.translate(None, _NOT_COUNTED).count  # one pass, then counts over a fifth
    return (
        n * (1 + kind + wide + ((wide + 1) if surrogates else 0))
        + 96 * (c(b"[") + c(b"{"))
        + 104 * c(b":")
        + 40 * (c(b'"') + c(b","))
    )


def _json(data: bytes, name: str, files: _Files):
    """A tokenizer file parsed whole, in C, as strictly as a config (no NaN or Infinity,
    no duplicate key, no lone surrogate, bounded nesting and integers), once
    ``parse_cost`` says it fits in ``PARSE_FACTOR`` times its size (``PARSE_FLOOR`` for a
    small file): every member is read, in whatever order the keys come."""
    path = files.path(name)
    try:
        text = decode_json(data, path, "")
        need = parse_cost(data, text)
        if need > max(PARSE_FACTOR * len(data), PARSE_FLOOR):
            raise TokenizerError(
                path,
                f"would take about {need >> 20} MiB to parse, more than {PARSE_FACTOR} times "
                f"its {len(data)} bytes: not a tokenizer",
            )
        try:
            return loads_json(text, path, "")
        except MemoryError:
            pass  # out of the except block, so that the parse's objects can go
        raise TokenizerError(path, f"not enough memory to read it (about {need >> 20} MiB needed)")
    except CheckpointError as e:
        raise TokenizerError(path, e.message.strip()) from None


def _content(value) -> str | None:
    """A special token as written: a string, or an AddedToken dict's ``content``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value["content"]
    return None


def _by_id(vocab, n: int, path: Path, what: str) -> _Ids:
    """id -> token for the ids below ``n`` of a vocab: a token -> id object, or Unigram's
    ``[[token, score], ...]`` (id = position). What the file holds, never ``n`` entries:
    a declared vocab of 2^31 ids costs nothing more. Tokenizer files list a token -> id
    object in id order from 0 (the tokenizers library writes it so): then its keys are
    the answer, taken at C speed; ids 0..k-1 in another order are sorted into place,
    at C speed too; only a vocab with gaps or repeated ids is read entry by entry."""
    if isinstance(vocab, dict):
        ids = list(vocab.values())
        every = list(range(len(ids)))
        if ids == every:
            return _Ids(list(islice(vocab, n)))
        if set(map(type, ids)) <= {int} and (not ids or min(ids) >= 0):
            order = sorted(every, key=ids.__getitem__)
            if list(map(ids.__getitem__, order)) == every:  # each of 0..k-1 once
                return _Ids(list(islice(map(list(vocab).__getitem__, order), n)))
        tokens: dict[int, str] = {}
        for token, i in vocab.items():
            if type(i) is not int or i < 0:
                raise TokenizerError(
                    path, f"{what} gives {_q(token)} the id {_q(i)}: not a token id"
                )
            if i < n:
                tokens[i] = token
        return _Ids(sparse=tokens)
    if isinstance(vocab, list):
        for i, e in enumerate(vocab):
            if not (type(e) is list and e and isinstance(e[0], str)):
                raise TokenizerError(path, f"{what}[{i}] is not a [token, score] pair")
        return _Ids([e[0] for e in islice(vocab, n)])
    raise TokenizerError(path, f"{what} is not a token -> id object nor a Unigram list")


def _base(files: _Files, n: int) -> tuple[_Ids, list]:
    """The vocab file's id -> token map (ids below ``n``) and its added tokens."""
    added: list[tuple[int, str, bool]] = []
    if "tokenizer.json" not in files:
        vocab = _json(files["vocab.json"], "vocab.json", files)
        return _by_id(vocab, n, files.path("vocab.json"), "vocab.json"), added
    path = files.path("tokenizer.json")
    doc = _json(files["tokenizer.json"], "tokenizer.json", files)
    model = doc.get("model") if isinstance(doc, dict) else None
    if not isinstance(model, dict) or "vocab" not in model:
        raise TokenizerError(path, "has no model.vocab")
    tokens = _by_id(model["vocab"], n, path, "model.vocab")
    listed = doc.get("added_tokens")
    if listed is not None and not isinstance(listed, list):
        raise TokenizerError(path, f"added_tokens is not a list ({type(listed).__name__})")
    for k, tok in enumerate(listed or ()):
        i = tok.get("id") if isinstance(tok, dict) else None
        if not (type(i) is int and i >= 0 and isinstance(tok.get("content"), str)):
            raise TokenizerError(
                path,
                f"added_tokens[{k}] is not a token (an object with an integer id and a "
                "string content)",
            )
        added.append((i, tok["content"], tok.get("special") is True))
    return tokens, added


_ID = r"[0-9]{1,20}"  # an id as a key: ASCII digits ("²".isdigit() too)


def _parse(files: _Files, n: int, base=None) -> _Parsed:
    """id -> token for ids below ``n``, the special tokens and their roles. ``base``:
    ``_base`` of these files, when already read (the other side has the same vocab file)."""
    tokens, added = base or _base(files, n)
    tokens, added = tokens.copy(), list(added)  # a shared base is not modified
    specials: dict[str, int] = {}
    roles: dict[str, str] = {}
    for name in ("special_tokens_map.json", "tokenizer_config.json"):  # the config wins
        if name not in files:
            continue
        doc = _json(files[name], name, files)
        if not isinstance(doc, dict):
            continue
        decoder = doc.get("added_tokens_decoder")
        if isinstance(decoder, dict):
            is_id = re.compile(_ID).fullmatch  # compiled once (re's cache)
            for key, tok in decoder.items():
                if is_id(key) is None:
                    raise TokenizerError(
                        files.path(name), f"added_tokens_decoder key {_q(key)} is not a token id"
                    )
                if isinstance(tok, dict):
                    added.append((int(key), tok.get("content"), tok.get("special") is True))
        for role in ROLES:
            if (token := _content(doc.get(role))) is not None:
                roles[role] = token
    for i, token, special in added:
        if isinstance(token, str):
            if i < n:
                tokens.put(i, token)
            if special:
                specials[token] = i
    return _Parsed(tokens, specials, roles)


def _special_differences(d: _Parsed, t: _Parsed) -> tuple[list[str], int]:
    """The first ``SHOWN`` special-token disagreements, tokens cut, then ``[... N items
    ...]`` for the rest (the marker of the tool's one cap on quoted lists), and how many
    there are."""
    out: list[str] = []
    count = 0
    for role in ROLES:
        if role in d.roles and role in t.roles and d.roles[role] != t.roles[role]:
            count += 1
            if len(out) < SHOWN:
                out.append(f"{role}: drafter {_q(d.roles[role])}, target {_q(t.roles[role])}")
    for token in sorted(d.specials.keys() & t.specials.keys()):
        if d.specials[token] != t.specials[token]:
            count += 1
            if len(out) < SHOWN:
                out.append(
                    f"special token {_q(token)}: drafter id {d.specials[token]}, "
                    f"target id {t.specials[token]}"
                )
    if count > len(out):
        out.append(f"[... {count - len(out)} items ...]")
    return out, count


def _differing(a: _Ids, b: _Ids, chunk: int = 4096) -> list[int]:
    """The ids, in order, that name another token (or none) on one side: the ids both
    hold densely in whole chunks at C speed (only differing chunks entry by entry), the
    rest id by id."""
    out: list[int] = []
    k = min(len(a.dense), len(b.dense))
    for start in range(0, k, chunk):
        end = min(start + chunk, k)
        x, y = a.dense[start:end], b.dense[start:end]
        if x != y:
            out += [start + j for j, (p, q) in enumerate(zip(x, y, strict=True)) if p != q]
    ra, rb = a.beyond(k), b.beyond(k)
    if ra != rb:
        rest = [i for i, token in ra.items() if rb.get(i) != token]
        rest += [i for i in rb.keys() - ra.keys()]
        out += sorted(rest)
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
    specials, special_count = _special_differences(d, t)
    result = DIFFER if diff_ids or special_count else SAME
    reason = (f"{len(diff_ids)} of {n} ids differ" if diff_ids else f"the same {n} ids") + (
        f"; {special_count} special-token difference(s)" if special_count else ""
    )
    shown = tuple((i, _shown(d.tokens.get(i)), _shown(t.tokens.get(i))) for i in diff_ids[:SHOWN])
    return TokenizerComparison(
        result,
        reason,
        d_side,
        t_side,
        n,
        len(diff_ids),
        shown,
        tuple(specials),
        special_count,
    )
