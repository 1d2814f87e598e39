"""The house keeps its floors: a lower layer never imports a higher one, and no import cycle.

Imports are read from the source (module level and inside functions alike), so a lazy
import that crosses a floor is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Folder -> package, as pyproject's package-dir maps them.
FOLDERS = {"lightsearch": "lightsearch", "spiders": "lightsearch.spiders", "pipelines": "lightsearch.pipelines",
           "catalog": "lightsearch.catalog", "offline_origins": "lightsearch.offline_origins"}
# Floors from the bottom; a module may import its own floor and those below.
FLOORS = [
    ("lightsearch.errors", "lightsearch.windows", "lightsearch.timestamps", "lightsearch.filters", "lightsearch.schema",
     "lightsearch.settings", "lightsearch.config", "lightsearch.catalog", "lightsearch.clients"),
    ("lightsearch.cache", "lightsearch.documents", "lightsearch.ranking"),
    ("lightsearch.isolation",),
    ("lightsearch.plan",),
    ("lightsearch.crawl", "lightsearch.spiders", "lightsearch.pipelines", "lightsearch.fleet"),
    ("lightsearch.evidence",),
    ("lightsearch.providers",),
    ("lightsearch.evaluation", "lightsearch.surfaces", "lightsearch.serving", "lightsearch.offline_origins"),
]


def modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            if "sites" in path.relative_to(ROOT).parts:
                continue
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


def imports(path: Path, name: str, runtime: bool = False) -> set[str]:
    """The project modules ``path`` imports (lazy imports too); with ``runtime``, not those
    only a type checker reads (``if TYPE_CHECKING:``)."""
    found = set()
    tree = ast.parse(path.read_text("utf-8"))
    skipped: set[int] = set()
    if runtime:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                skipped.update(id(n) for child in node.body for n in ast.walk(child))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.rsplit(".", node.level - (1 if path.name == "__init__.py" else 0))[0]
                found.add(f"{base}.{node.module}" if node.module else base)
            elif node.module:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
    return {m for m in found if m.startswith("lightsearch.")}


def floor(name: str) -> int:
    best = None
    for i, prefixes in enumerate(FLOORS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and (best is None or len(p) > best[1]):
                best = (i, len(p))
    return best[0] if best else len(FLOORS) - 1 if name == "lightsearch" else -1


def test_every_module_has_a_floor():
    unplaced = [m for m in modules() if m != "lightsearch" and floor(m) < 0]
    assert unplaced == []


def test_no_module_imports_a_higher_floor():
    mods = modules()
    wrong = []
    for name, path in mods.items():
        if name == "lightsearch":  # the package's lazy re-exports of the API
            continue
        for target in imports(path, name):
            if target in mods and floor(target) > floor(name):
                wrong.append(f"{name} -> {target}")
    assert wrong == []


def test_no_import_cycle():
    mods = modules()
    graph = {n: {t for t in imports(p, n) if t in mods and t != n} for n, p in mods.items()}
    graph.pop("lightsearch", None)
    for deps in graph.values():
        deps.discard("lightsearch")
    seen, stack, cycles = set(), [], []

    def visit(node: str) -> None:
        if node in stack:
            cycles.append([*stack[stack.index(node):], node])
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        stack.pop()

    for node in sorted(graph):
        visit(node)
    assert cycles == []
