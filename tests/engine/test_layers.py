"""The engine's layers: no module imports from a layer above its own, and engine modules import no cycle.

Every module under ``engine/`` is parsed with :mod:`ast` (nothing is imported), and each of its imports
of an engine module becomes an edge: module-level imports, imports inside functions, and imports under
``if TYPE_CHECKING:``. The layers, lowest first, are in :data:`LAYERS`; a module may import its own layer
and the ones below it.

Which imports count:

- for the layers, every import, ``TYPE_CHECKING`` ones too: a type that names a higher layer is a
  dependency on it all the same;
- for the cycles, the imports that run: module-level and function-level ones, not ``TYPE_CHECKING``
  ones (they never execute, so they cannot make an import cycle). An import inside a function is
  counted too (it hides a cycle from the interpreter, not from the design), except the deliberately
  lazy ones listed in :data:`LAZY`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"

LAYERS: tuple[tuple[str, ...], ...] = (
    # the kernel
    (
        "engine.errors",
        "engine.clock",
        "engine.paths",
        "engine.messages",
        "engine.imported",
        "engine.settings",
        "engine.logs",
        "engine.cjk",
    ),
    ("engine.storage",),
    ("engine.sessions", "engine.semantic", "engine.llm", "engine.embedders", "engine.importers"),
    ("engine.search",),
    ("engine.summary", "engine.errormemory"),
    # engine.database imports every part's migrations; repair rebuilds the whole database through it.
    ("engine.database",),
    ("engine.repair",),
    ("engine.memory", "engine.jobs", "engine"),
    ("engine.cli", "engine.mcpserver", "engine.chat", "engine.tools"),
    ("desktop", "PySide6"),
)
"""Module name prefixes of each layer, lowest first; a module belongs to the layer of its longest prefix
(``engine`` itself names only the package's ``__init__``)."""

KNOWN_UPWARD: frozenset[tuple[str, str]] = frozenset()
"""Upward imports in code that other changes own today. Each is listed instead of failing the test until
it is fixed; :func:`test_known_upward_and_lazy_imports_still_exist` says when one can go. The goal is an empty set."""

LAZY: frozenset[tuple[str, str]] = frozenset(
    {
        # The format registry loads the readers when asked; they import the package's shared types.
        ("engine.importers", "engine.importers.agenvoy"),
        ("engine.importers", "engine.importers.chatgpt"),
        ("engine.importers", "engine.importers.claude"),
        ("engine.importers", "engine.importers.claude_code"),
        ("engine.importers", "engine.importers.codex"),
        ("engine.importers", "engine.importers.jsonl"),
    }
)
"""Imports inside a function that close a cycle on purpose; the cycle check leaves them out."""


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    runs: bool  # False for an import under ``if TYPE_CHECKING:``
    deferred: bool  # inside a function: runs when the function is first called

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} ({_path(self.source)}:{self.line})"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _path(module: str) -> str:
    base = ROOT.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return str(path.relative_to(ROOT))


MODULES = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement loads (for ``from a import b``: ``a.b`` when that is a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if MODULES[module].name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    found = []
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        found.append(candidate if candidate in MODULES else base)
    return found


def _edges(module: str) -> list[Edge]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    edges: list[Edge] = []

    def visit(node: ast.AST, runs: bool, deferred: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, False, deferred)
            for child in node.orelse:
                visit(child, runs, deferred)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            edges.extend(
                Edge(module, target, node.lineno, runs, deferred) for target in _targets(module, node)
            )
            return
        inside = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for sub in ast.iter_child_nodes(node):
            visit(sub, runs, inside)

    visit(tree, True, False)
    return edges


EDGES = sorted({edge for module in MODULES for edge in _edges(module)}, key=str)


def _layer(module: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix == "engine" and module != "engine":
                continue
            if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > best[0]
            ):
                best = (len(prefix), index)
    return None if best is None else best[1]


def test_every_engine_module_has_a_layer() -> None:
    missing = [module for module in MODULES if _layer(module) is None]
    assert not missing, f"add these modules to LAYERS: {missing}"


def test_no_module_imports_a_higher_layer() -> None:
    upward = []
    for edge in EDGES:
        source, target = _layer(edge.source), _layer(edge.target)
        if target is None or source is None or target <= source:
            continue
        if (edge.source, edge.target) not in KNOWN_UPWARD:
            upward.append(str(edge))
    assert not upward, "imports from a higher layer:\n" + "\n".join(upward)


def test_known_upward_and_lazy_imports_still_exist() -> None:
    present = {(edge.source, edge.target) for edge in EDGES}
    stale = sorted(KNOWN_UPWARD - present)
    assert not stale, f"these KNOWN_UPWARD edges are gone; remove them from the list: {stale}"
    deferred = {(edge.source, edge.target) for edge in EDGES if edge.deferred and edge.runs}
    not_lazy = sorted(LAZY - deferred)
    assert not not_lazy, f"these LAZY edges are not imports inside a function (any more): {not_lazy}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_engine_modules_import_no_cycle() -> None:
    running = [
        edge
        for edge in EDGES
        if edge.runs
        and edge.target in MODULES
        and edge.target != edge.source
        and not (edge.deferred and (edge.source, edge.target) in LAZY)
    ]
    graph: dict[str, set[str]] = {}
    for edge in running:
        graph.setdefault(edge.source, set()).add(edge.target)
    cycles = _cycles(graph)
    described = []
    for members in cycles:
        inside = [str(e) for e in running if e.source in members and e.target in members]
        described.append("cycle: " + ", ".join(members) + "\n  " + "\n  ".join(inside))
    assert not cycles, "\n".join(described)


def test_the_checks_can_fail() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _layer("engine.cjk") == 0 and _layer("engine.storage.store") == 1
    assert _layer("engine.sessions.archive") == 2 and _layer("engine.repair.rebuild") == 6
    assert _layer("engine.database") == 5 and _layer("engine.memory") == 7
    assert _layer("engine") == 7 and _layer("engine.new_module") is None and _layer("desktop.app") == 9
    relative = ast.parse("from . import fts\nfrom .fts import ensure").body
    assert [_targets("engine.storage.store", node) for node in relative] == [  # type: ignore[arg-type]
        ["engine.storage.fts"],
        ["engine.storage.fts"],
    ]
