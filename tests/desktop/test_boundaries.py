"""The import direction is law: the engine never imports Qt or the desktop app."""

from __future__ import annotations

import subprocess
import sys


def test_engine_imports_neither_qt_nor_desktop() -> None:
    code = (
        "import engine, engine.memory, engine.cli, sys; "
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'desktop'))]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_launcher_does_not_import_qt_for_cli_commands() -> None:
    code = "import desktop.launcher, sys; assert not [m for m in sys.modules if m.startswith('PySide6')]"
    subprocess.run([sys.executable, "-c", code], check=True)


def _engine_imports() -> list[tuple[str, int, str, list[str]]]:
    """Every ``from engine… import …`` / ``import engine…`` in desktop/: (file, line, module, names)."""
    import ast
    from pathlib import Path

    found = []
    for path in sorted(Path(__file__).resolve().parents[2].joinpath("desktop").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "engine":
                found.append((path.name, node.lineno, node.module, [a.name for a in node.names]))
            elif isinstance(node, ast.Import):
                found += [
                    (path.name, node.lineno, a.name, []) for a in node.names if a.name.startswith("engine")
                ]
    return found


def test_the_desktop_uses_only_the_engines_public_faces() -> None:
    """desktop/ imports ``engine``'s public names, a subpackage's ``__init__`` names, and the error tree."""
    import importlib
    from pathlib import Path

    import engine

    root = Path(engine.__file__).parent
    wrong = []
    for where, line, module, names in _engine_imports():
        parts = module.split(".")
        if module == "engine":
            bad = [n for n in names if n not in engine.__all__]
        elif module == "engine.errors":  # the error tree, engine.errors in engine.__all__
            bad = []
        elif len(parts) == 2 and (root / parts[1] / "__init__.py").exists():
            public = getattr(importlib.import_module(module), "__all__", None)
            bad = [n for n in names if public is None or n not in public]
        else:
            bad = names or [module]
        if bad:
            wrong.append(f"{where}:{line}: from {module} import {', '.join(bad)}")
    assert not wrong, "desktop/ reaches past the engine's public faces:\n" + "\n".join(wrong)


def _desktop_imports() -> dict[str, set[str]]:
    """Which desktop modules each desktop module imports: every import, those inside functions and under
    ``if TYPE_CHECKING:`` too (a type named from a module is a dependency on it all the same)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    modules = {}
    for path in sorted(root.joinpath("desktop").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            graph.setdefault(module, set()).update(t for t in targets if t in modules and t != module)
    return graph


def test_the_desktop_imports_no_cycle() -> None:
    from tests.engine.test_layers import _cycles

    graph = _desktop_imports()
    assert len(graph) > 40 and "desktop.backlog" in graph["desktop.state"]  # the reader really read
    assert "desktop.state" in graph["desktop.status"]  # a TYPE_CHECKING import counts
    cycles = _cycles(graph)
    assert not cycles, "desktop modules that import each other:\n" + "\n".join(map(", ".join, cycles))
