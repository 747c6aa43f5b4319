"""``check``'s configuration: ``dspark-ckpt.toml`` (top-level keys) or ``[tool.dspark-ckpt]``
in ``pyproject.toml``, read and validated into a ``CheckConfig``: the drafter/target
pairs, each with its profiles, its ``Policy`` (warnings as errors, reasoned ignores, and
whether a partial verdict passes: ``allow-partial = "reason"``) and whether it runs
``verify``.

Any problem with the configuration is a ``ConfigError`` naming the file, the exact key
and the reason (exit 2), raised before a checkpoint is read where it can be.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from dspark_ckpt.commands.runs import Policy
from dspark_ckpt.errors import CheckpointError, UsageError
from dspark_ckpt.facts.config import MAX_VOCAB, torch_install_hint
from dspark_ckpt.profiles.registry import (
    PROFILES,
    RUNTIME_NAMES,
    get_profile,
    newest_release,
    resolve_profile,
    runtime_spec,
)
from dspark_ckpt.record import record
from dspark_ckpt.rules.codes import CODES
from dspark_ckpt.rules.findings import WARNING
from dspark_ckpt.source.base import HUB_PREFIX
from dspark_ckpt.source.safetensors import read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

CONFIG_FILE = "dspark-ckpt.toml"
PYPROJECT = "pyproject.toml"
TOOL_TABLE = "tool.dspark-ckpt"
UNIGNORABLE = frozenset({"DSC001"})  # an unreadable checkpoint can never pass


class ConfigError(UsageError):
    """A bad ``check`` configuration: the file, the exact key and the reason."""

    def __init__(self, path: str | Path, key: str, reason: str) -> None:
        self.path, self.key, self.reason = str(path), key, reason
        super().__init__(f"{path}: {key}: {reason}")


@record
class Pair:
    """One drafter and its target, as configured: the profiles it must pass, its policy."""

    key: str  # where it is configured: "pairs[0]"
    name: str
    drafter: str  # resolved against the config file's folder
    target: str | None
    target_vocab_size: int | None
    profiles: tuple[str | None, ...]  # None: the drafter family's default profile
    policy: Policy
    verify: bool


@record
class CheckConfig:
    """A validated configuration: where it was read from and its pairs."""

    path: Path
    table: str  # "" for dspark-ckpt.toml, "tool.dspark-ckpt." for pyproject.toml
    pairs: tuple[Pair, ...]


GLOBAL_KEYS = {
    "pairs",
    "profiles",
    "runtimes",
    "warnings-as-errors",
    "ignore",
    "verify",
    "allow-partial",
}
PAIR_KEYS = {
    "allow-partial",
    "name",
    "drafter",
    "target",
    "target-vocab-size",
    "profiles",
    "runtimes",
    "warnings-as-errors",
    "ignore",
    "verify",
}


def find_config(start: Path) -> tuple[Path, dict[str, Any], str]:
    """The configuration table in ``start``: ``dspark-ckpt.toml`` first, then pyproject."""
    own = start / CONFIG_FILE
    if own.is_file():
        return own, _read_toml(own), ""
    pyproject = start / PYPROJECT
    if pyproject.is_file():
        table = _tool_table(pyproject, _read_toml(pyproject), required=False)
        if table is not None:
            return pyproject, table, TOOL_TABLE + "."
    raise UsageError(f"no {CONFIG_FILE} and no [{TOOL_TABLE}] in {PYPROJECT} in {start}")


def read_config(path: Path) -> tuple[dict[str, Any], str]:
    """The table of an explicitly named configuration file."""
    if path.is_dir():
        raise UsageError(f"{path}: is a directory; --config takes a {CONFIG_FILE} or {PYPROJECT}")
    if not path.exists():
        raise UsageError(f"{path}: no such configuration file")
    if not path.is_file():
        raise UsageError(f"{path}: not a regular file")
    data = _read_toml(path)
    if path.name == PYPROJECT:
        return _tool_table(path, data, required=True), TOOL_TABLE + "."
    return data, ""


def _tool_table(path: Path, data: dict[str, Any], required: bool) -> dict[str, Any] | None:
    """``[tool.dspark-ckpt]`` of a pyproject (None where it has none and none is required)."""
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(path, "tool", f"must be a table, got {_shown(tool)}")
    table = tool.get("dspark-ckpt")
    if table is None and not required:
        return None
    if table is None:
        raise ConfigError(path, TOOL_TABLE, "missing")
    if not isinstance(table, dict):
        raise ConfigError(path, TOOL_TABLE, f"must be a table, got {_shown(table)}")
    return table


def _shown(value: Any) -> str:
    """A TOML value in a message: scalars as written (cut short), arrays and tables by kind."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (str, int, float)):
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"a {type(value).__name__} ({value})"  # TOML dates and times


MAX_CONFIG_BYTES = 1 << 20  # a configuration (or a pyproject.toml) larger is refused unread
# tomllib takes time and memory quadratic in the parts of a dotted key or table name (a key
# of 100k parts: minutes and tens of GB): a key of more parts is refused before it runs.
# A part is a bare key or a quoted one. Spaces around dots squeezed out first, no match
# starts inside a run or after a dot, and a part once matched is never backtracked into
# (a lookahead and a backreference: an atomic group before Python 3.11): a linear search.
MAX_KEY_PARTS = 128
_DOT_SPACES = re.compile(r"[ \t]+\.[ \t]*|\.[ \t]+")
_PART = r"""(?=(?P<p>[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'))(?P=p)"""
_DEEP_KEY = re.compile(rf"(?<![\w\"'.\\-])(?:{_PART}\.){{{MAX_KEY_PARTS}}}")


def _read_toml(path: Path) -> dict[str, Any]:
    """A TOML file through the tool's one reader of local files (non-blocking, regular
    files only, at most ``MAX_CONFIG_BYTES``); anything it or tomllib refuses is one line
    naming the file (exit 2), never a traceback."""
    try:
        text = read_regular(path, MAX_CONFIG_BYTES, "configuration").decode("utf-8")
    except CheckpointError as e:  # a FIFO, a device, too large, unreadable
        raise UsageError(f"{path}: {e.message}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: cannot read: {e}") from None
    if _DEEP_KEY.search(_DOT_SPACES.sub(".", text)) is not None:
        raise UsageError(
            f"{path}: invalid TOML: a key or table name of more than {MAX_KEY_PARTS} dotted parts"
        )
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise UsageError(f"{path}: invalid TOML: nested too deeply") from None
    except ValueError as e:  # TOMLDecodeError; int() of a number past 4300 digits
        raise UsageError(f"{path}: invalid TOML: {_cut(str(e))}") from None


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Keys:
    """Validates values and raises ``ConfigError`` naming the exact key."""

    def __init__(self, path: Path, prefix: str) -> None:
        self.path, self.prefix = path, prefix

    def fail(self, key: str, reason: str) -> ConfigError:
        return ConfigError(self.path, self.prefix + key, reason)

    def unknown(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        for k in table:
            if k not in allowed:
                raise self.fail(
                    where + k, f"unknown key; expected one of {', '.join(sorted(allowed))}"
                )

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {_shown(value)}")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string, got {_shown(value)}")
        if not value.strip():
            raise self.fail(key, f"must be a non-empty string, got {_shown(value)}")
        return value

    def location(self, value: Any, base: Path, key: str) -> str:
        """A drafter or target: ``hf://org/name[@rev]`` as written, else a path taken from
        the configuration's folder, which must exist."""
        text = self.string(value, key)
        if text.startswith(HUB_PREFIX):
            return text
        self.existing(base / text, key)
        return str(base / text)

    def existing(self, path: Path, key: str) -> None:
        try:
            found = path.exists()
        except (OSError, ValueError) as e:  # a name too long, a NUL byte
            raise self.fail(
                key, f"{path}: cannot access: {getattr(e, 'strerror', None) or e}"
            ) from None
        if not found:
            raise self.fail(key, f"{path}: no such file or directory")

    def code(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string (a finding code), got {_shown(value)}")
        if value not in CODES:
            raise self.fail(key, f"unknown finding code {_shown(value)}")
        return value

    def profiles(self, value: Any, key: str) -> tuple[str, ...]:
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names:
            raise self.fail(
                key, f"must be a profile name or a non-empty list of them, got {_shown(value)}"
            )
        names = list(names)
        for i, name in enumerate(names):
            if not isinstance(name, str):
                raise self.fail(f"{key}[{i}]", f"expected a string, got {_shown(name)}")
            if name == "all":
                continue
            try:  # a profile's name, its release-qualified name, LINE@VERSION
                names[i] = get_profile(name).name
            except UsageError as err:
                why = str(err)
                if why.startswith("unknown profile"):
                    why = (
                        f"unknown profile {_shown(name)}; choose from {', '.join(PROFILES)} or all"
                    )
                raise self.fail(f"{key}[{i}]", why) from None
        # 'all': every family's profiles (a variant architecture's judges only when named)
        every = [n for n, p in PROFILES.items() if not p.variant]
        expanded = [p for name in names for p in (every if name == "all" else [name])]
        return tuple(dict.fromkeys(expanded))

    def runtimes(self, value: Any, key: str) -> tuple[str, ...]:
        """``runtimes = ["vllm==0.32.1", "sglang"]``: each as ``RUNTIME==VERSION`` (a runtime
        alone: its newest release), resolved per drafter to its family's profile."""
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names:
            raise self.fail(
                key, f"must be RUNTIME==VERSION or a non-empty list of them, got {_shown(value)}"
            )
        out = []
        for i, name in enumerate(names):
            if not isinstance(name, str):
                raise self.fail(f"{key}[{i}]", f"expected a string, got {_shown(name)}")
            runtime = RUNTIME_NAMES.get(name.strip().lower())
            spec = f"{name.strip()}=={newest_release(runtime)}" if runtime else name.strip()
            try:
                if runtime_spec(spec) is None:
                    raise UsageError(f"{_shown(name)} is not RUNTIME==VERSION (vllm==0.33.0)")
                resolve_profile(spec)  # a release no profile covers: refused now
            except UsageError as err:
                raise self.fail(f"{key}[{i}]", str(err)) from None
            out.append(spec)
        return tuple(dict.fromkeys(out))

    def warnings_as_errors(self, value: Any, key: str) -> bool | frozenset[str]:
        if isinstance(value, bool):
            return value
        if not isinstance(value, list):
            raise self.fail(
                key, f"must be true, false or a list of finding codes, got {_shown(value)}"
            )
        codes = [self.code(c, f"{key}[{i}]") for i, c in enumerate(value)]
        for i, c in enumerate(codes):
            if CODES[c].severity != WARNING:
                raise self.fail(f"{key}[{i}]", f"{c} is not a warning ({CODES[c].severity})")
        return frozenset(codes)

    def ignore(self, value: Any, key: str) -> dict[str, str]:
        if isinstance(value, list):
            raise self.fail(
                key, 'ignoring a code needs a written reason: use a table, DSC401 = "why"'
            )
        if not isinstance(value, dict):
            raise self.fail(key, f'must be a table of code = "reason", got {_shown(value)}')
        out = {}
        for code, reason in value.items():
            self.code(code, f"{key}.{code}")
            if code in UNIGNORABLE:
                raise self.fail(f"{key}.{code}", f"{code} ({CODES[code].title}) cannot be ignored")
            if not isinstance(reason, str):
                raise self.fail(
                    f"{key}.{code}", f"expected a string (the reason), got {_shown(reason)}"
                )
            if not reason.strip():
                raise self.fail(f"{key}.{code}", "ignoring a code needs a written reason")
            out[code] = reason.strip()
        return out

    def allow_partial(self, value: Any, key: str) -> str:
        """``allow-partial``: the written reason a partial verdict passes the gate."""
        need = 'a partial verdict passes only with a written reason: allow-partial = "why"'
        if isinstance(value, bool):
            raise self.fail(key, f"{need}, got {_shown(value)}")
        if not isinstance(value, str):
            raise self.fail(key, f"expected a string (the reason), got {_shown(value)}")
        if not value.strip():
            raise self.fail(key, need)
        return value.strip()


def parse_config(table: dict[str, Any], path: Path, prefix: str = "") -> CheckConfig:
    """Validate a configuration table; relative paths are taken from ``path``'s folder."""
    keys = _Keys(path, prefix)
    if not prefix and isinstance(table.get("tool"), dict) and "dspark-ckpt" in table["tool"]:
        raise keys.fail(
            "tool",
            f"unknown key; {path.name} takes the keys at top level (without the "
            f"[{TOOL_TABLE}] table, which is for {PYPROJECT})",
        )
    keys.unknown(table, GLOBAL_KEYS, "")
    # no profiles: each drafter's family default, as for inspect and fix
    profiles = _profiles(keys, table, "", (None,))
    wae = keys.warnings_as_errors(table.get("warnings-as-errors", False), "warnings-as-errors")
    ignore = keys.ignore(table.get("ignore", {}), "ignore")
    verify = keys.boolean(table.get("verify", False), "verify")
    allow_partial = (
        keys.allow_partial(table["allow-partial"], "allow-partial")
        if "allow-partial" in table
        else None
    )
    if "pairs" not in table:
        raise keys.fail("pairs", "missing: add a [[pairs]] table per drafter")
    raw_pairs = table["pairs"]
    if not isinstance(raw_pairs, list) or not raw_pairs:
        raise keys.fail(
            "pairs",
            "must be a non-empty array of tables ([[pairs]]), got "
            + ("an empty array" if raw_pairs == [] else _shown(raw_pairs)),
        )
    base = path.parent
    pairs, names = [], {}
    for i, raw in enumerate(raw_pairs):
        at = f"pairs[{i}]"
        if not isinstance(raw, dict):
            raise keys.fail(at, f"must be a table with drafter and target, got {_shown(raw)}")
        keys.unknown(raw, PAIR_KEYS, at + ".")
        if "drafter" not in raw:
            raise keys.fail(at + ".drafter", "missing")
        drafter = keys.string(raw["drafter"], at + ".drafter")
        drafter_at = keys.location(drafter, base, at + ".drafter")
        target = vocab = None
        if ("target" in raw) == ("target-vocab-size" in raw):
            raise keys.fail(at + ".target", "give exactly one of target and target-vocab-size")
        if "target" in raw:
            target = keys.location(raw["target"], base, at + ".target")
        else:
            vocab = raw["target-vocab-size"]
            if not isinstance(vocab, int) or isinstance(vocab, bool) or not 1 <= vocab <= MAX_VOCAB:
                raise keys.fail(
                    at + ".target-vocab-size",
                    f"must be an integer in [1, {MAX_VOCAB}], got {_shown(vocab)}",
                )
        name = keys.string(raw.get("name", drafter), at + ".name")
        if name in names:
            raise keys.fail(
                at + ".name", f"duplicate pair name {_shown(name)} (also {names[name]})"
            )
        names[name] = at
        pair_wae = (
            keys.warnings_as_errors(raw["warnings-as-errors"], at + ".warnings-as-errors")
            if "warnings-as-errors" in raw
            else wae
        )
        pair_ignore = {**ignore, **keys.ignore(raw.get("ignore", {}), at + ".ignore")}
        pair_verify = keys.boolean(raw.get("verify", verify), at + ".verify")
        pair_partial = (
            keys.allow_partial(raw["allow-partial"], at + ".allow-partial")
            if "allow-partial" in raw
            else allow_partial
        )
        if pair_verify and not verify_available():
            raise keys.fail(
                at + ".verify" if "verify" in raw else "verify",
                f"{torch_install_hint()}; or set verify = false",
            )
        pairs.append(
            Pair(
                at,
                name,
                drafter_at,
                target,
                vocab,
                _profiles(keys, raw, at + ".", profiles),
                Policy(pair_wae, pair_ignore, pair_partial),
                pair_verify,
            )
        )
    return CheckConfig(path, prefix, tuple(pairs))


def _profiles(keys: _Keys, table: dict, at: str, default: tuple) -> tuple:
    """A table's ``profiles`` and ``runtimes`` (RUNTIME==VERSION, resolved per drafter),
    together; ``default`` where it has neither."""
    if "profiles" not in table and "runtimes" not in table:
        return default
    named = keys.profiles(table["profiles"], at + "profiles") if "profiles" in table else ()
    runtimes = keys.runtimes(table["runtimes"], at + "runtimes") if "runtimes" in table else ()
    return (*named, *runtimes)


def load_config(config: Path | None = None, cwd: Path | None = None) -> CheckConfig:
    """The configuration named by ``--config``, else the one found in ``cwd``."""
    if config is not None:
        table, prefix = read_config(config)
        return parse_config(table, config, prefix)
    path, table, prefix = find_config(cwd or Path("."))
    return parse_config(table, path, prefix)


def verify_available() -> bool:
    """``verify`` needs torch, an optional extra."""
    return importlib.util.find_spec("torch") is not None
