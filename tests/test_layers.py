"""The import contract: the package is its pipeline, and nothing imports upward.

    errors < source < facts < profiles < loader < rules < commands < output < cli

``source`` is the only layer that touches disk or network; ``facts`` turns what it read
into numbers; ``profiles`` are data; ``loader`` models what each release's loader builds
from them; ``rules`` are pure functions of facts under a profile; ``commands`` run that pipeline and return results; ``output`` renders results;
``cli`` parses arguments and maps errors to exit codes. Every import counts, the ones
inside functions and under ``if TYPE_CHECKING:`` too: a lazy import is still a
dependency. Modules may import others of their own layer, but no two modules may import
each other, directly or through others.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "dspark_ckpt"
LAYERS = ("errors", "source", "facts", "profiles", "loader", "rules", "commands", "output", "cli")
# modules outside the layer folders: the package root (its version) sits below everything
FLOOR = {
    "dspark_ckpt": -1,
    "dspark_ckpt.record": -1,
    "dspark_ckpt.errors": 0,
    "dspark_ckpt.__main__": len(LAYERS),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    if module in FLOOR:
        return FLOOR[module]
    return LAYERS.index(module.split(".")[1])


def imports(module: str) -> set[str]:
    """The package's modules that ``module`` imports, anywhere in its body."""
    tree = ast.parse(MODULES[module].read_text(), str(MODULES[module]))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # ``from pkg import mod`` imports the module ``pkg.mod`` where there is one
            names = [
                f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                for a in node.names
            ]
        else:
            continue
        found.update(n for n in names if n.split(".")[0] == "dspark_ckpt")
    return found - {module}


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_sits_in_a_layer():
    for module in MODULES:
        assert module in FLOOR or module.split(".")[1] in LAYERS, module


@pytest.mark.parametrize("module", sorted(MODULES))
def test_nothing_imports_upward(module):
    upward = sorted(m for m in GRAPH[module] if layer(m) > layer(module))
    assert not upward, f"{module} (layer {layer(module)}) imports {upward} from above it"


def test_no_import_cycles():
    order: list[str] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> None:
        if state.get(m) == 2:
            return
        assert state.get(m) != 1, "import cycle: " + " -> ".join([*path, m])
        state[m] = 1
        for n in sorted(GRAPH.get(m, ())):
            visit(n, [*path, m])
        state[m] = 2
        order.append(m)

    for m in sorted(GRAPH):
        visit(m, [])
    assert len(order) == len(GRAPH)


def test_the_contract_can_fail():
    """The checker itself: an upward import and a cycle are found."""
    assert layer("dspark_ckpt.source.hub") < layer("dspark_ckpt.facts.config")
    assert layer("dspark_ckpt.rules.engine") < layer("dspark_ckpt.output.json")
    assert layer("dspark_ckpt") < layer("dspark_ckpt.errors") < layer("dspark_ckpt.cli.root")
