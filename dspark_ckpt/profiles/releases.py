"""Release ranges: how a ``Profile.releases`` range is written and read (its first and
last release, whether it covers a version, how entries of a line sort), and how a
release-qualified name writes each runtime."""

# how a release-qualified name and --runtime write each runtime
RUNTIME_KEYS = {"vLLM": "vllm", "SGLang": "sglang", "TensorRT-LLM": "trtllm"}


def runtime_key(runtime: str) -> str:
    """``vllm`` for vLLM: the runtime as a qualified name and ``--runtime`` write it."""
    return RUNTIME_KEYS[runtime]


def _main(clause: str) -> bool:
    """``main`` (the branch's newest commit read) or ``main@COMMIT`` (an earlier one)."""
    return clause == "main" or clause.startswith("main@")


def first_release(releases: str) -> str:
    """The first release a ``Profile.releases`` range covers: its ``>=`` or ``==`` bound
    (``main`` for the branch, ``main@COMMIT`` for an earlier commit of it); a ``ValueError``
    for a range with no lower bound."""
    for clause in releases.split(","):
        clause = clause.strip()
        if _main(clause):
            return clause
        if clause.startswith((">=", "==")):
            return clause[2:].strip()
    raise ValueError(f"release range {releases!r} has no first release (>=A or ==A)")


def last_release(releases: str) -> str:
    """The last release a ``Profile.releases`` range names: its ``<=`` or ``==`` bound
    (``main`` for the branch); a ``ValueError`` for a range with none (``<B`` names no
    release it covers)."""
    for clause in reversed(releases.split(",")):
        clause = clause.strip()
        if _main(clause):
            return clause
        if clause.startswith(("<=", "==")):
            return clause[2:].strip()
    raise ValueError(f"release range {releases!r} names no last release (<=B or ==A)")


def parse_version(text: str) -> tuple[int, ...]:
    """``0.32.1`` as ``(0, 32, 1)``; a ``ValueError`` for anything else."""
    parts = text.strip().split(".")
    if not all(p.isdigit() for p in parts):  # split gives at least one part
        raise ValueError(f"not a release version: {text!r}")
    return tuple(int(p) for p in parts)


def history(releases: str) -> tuple:
    """Sorts the entries of a line oldest first: release versions, then earlier commits of
    a branch (``main@COMMIT``), then the newest one read (``main``)."""
    first = first_release(releases)
    branch = _main(first)
    return (branch, first == "main", () if branch else parse_version(first))


def covers(releases: str, version: str) -> bool:
    """Whether ``releases`` (``Profile.releases``) covers ``version``: ``main`` matches
    ``main`` only (an earlier ``main@COMMIT`` only itself); a release version must meet
    every clause (missing trailing parts are zeros: 0.30 is 0.30.0)."""
    if _main(releases) or _main(version):
        return releases == version
    if not releases:
        return False
    v = parse_version(version)
    for clause in releases.split(","):
        clause = clause.strip()
        op = next(o for o in (">=", "<=", "==", "<", ">") if clause.startswith(o))
        bound = parse_version(clause[len(op) :])
        a, b = v + (0,) * (len(bound) - len(v)), bound + (0,) * (len(v) - len(bound))
        if not {">=": a >= b, "<=": a <= b, "==": a == b, "<": a < b, ">": a > b}[op]:
            return False
    return True
