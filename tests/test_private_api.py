"""Every private name of another project that our code imports, reads or writes is listed
in docs/PRIVATE_API.md, with why and the version it was checked against.

Three kinds of use are found:

- an import of a private module or name (``from twisted.internet._sslverify import ...``);
- an attribute or ``getattr``/``setattr`` name starting with ``_`` that our code defines
  nowhere (``self._pool._factory``, ``reactor._stopThreadPool()``);
- in a class of ours that extends another project's class, a ``self._name`` or a method
  ``_name`` that one of that project's classes in its MRO uses too (``self._contextFactory``
  of Scrapy's handler, an overridden ``_getEndpoint``): a base class's private state or hook.

Public names Scrapy documents as not yet stable (``Downloader.active`` and ``slots``,
``Scraper.slot``) carry no underscore to find; they are listed in the same table by hand.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("lightsearch", "spiders", "pipelines", "offline_origins")
# namedtuple's documented API spells its methods with an underscore
PUBLIC_UNDERSCORED = {"_replace", "_asdict", "_fields", "_make"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) \
        and name not in PUBLIC_UNDERSCORED


def _modules() -> dict[Path, list[ast.AST]]:
    """Each module's nodes, walked once (the scans below read them several times)."""
    out = {}
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if "sites" not in path.parts:
                out[path] = list(ast.walk(ast.parse(path.read_text("utf-8"))))
    return out


def _foreign_import(node: ast.ImportFrom) -> bool:
    return not node.level and bool(node.module) and \
        node.module.split(".")[0] not in ("lightsearch", "tests", "__future__")


def _imported_names(nodes: list[ast.AST]) -> dict[str, str]:
    """Local name -> the foreign module it was imported from."""
    names = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and _foreign_import(node):
            for alias in node.names:
                names[alias.asname or alias.name] = node.module
    return names


def _defined_by_us(modules: dict[Path, list[ast.AST]]) -> set[str]:
    """Names our code defines: functions, classes, arguments, module names and attributes it
    sets on ``self`` (one a foreign base class uses as well is found by :func:`_base_uses`)."""
    ours: set[str] = set()
    for nodes in modules.values():
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                ours.add(node.name)
            elif isinstance(node, ast.arg):
                ours.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                ours.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                ours.add(node.attr)
    return ours


@cache
def _source_of(cls: type) -> str:
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):
        return ""


def _base_uses(imported: dict[str, str], cls: ast.ClassDef, name: str) -> bool:
    """Whether a foreign class in ``cls``'s MRO uses the attribute ``name`` itself
    (``imported``: the module's :func:`_imported_names`)."""
    for base in cls.bases:
        if not (isinstance(base, ast.Name) and base.id in imported):
            continue
        obj = getattr(importlib.import_module(imported[base.id]), base.id, None)
        for klass in inspect.getmro(obj) if inspect.isclass(obj) else ():
            if not klass.__module__.startswith("lightsearch") and f".{name}" in _source_of(klass):
                return True
    return False


@cache
def private_uses() -> frozenset[tuple[str, str]]:
    """Every private name of another project our code uses (scanned once per process)."""
    modules = _modules()
    ours = _defined_by_us(modules)
    found: set[tuple[str, str]] = set()
    for path, nodes in modules.items():
        rel = str(path.relative_to(ROOT))
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and _foreign_import(node):
                if any(part.startswith("_") for part in node.module.split(".")):
                    found.add((rel, node.module))
                found.update((rel, a.name) for a in node.names if _private(a.name))
            name = None
            if isinstance(node, ast.Attribute) and _private(node.attr):
                name = node.attr
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) > 1 \
                    and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) \
                    and _private(node.args[1].value):
                name = node.args[1].value
            if name is not None and name not in ours:
                found.add((rel, name))
        imported = _imported_names(nodes)
        for cls in (n for n in nodes if isinstance(n, ast.ClassDef)):
            for node in ast.walk(cls):
                if isinstance(node, ast.Attribute) and _private(node.attr) \
                        and isinstance(node.value, ast.Name) and node.value.id == "self" \
                        and _base_uses(imported, cls, node.attr):
                    found.add((rel, node.attr))
            for node in cls.body:  # a private method of the base, overridden
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name) \
                        and _base_uses(imported, cls, node.name):
                    found.add((rel, node.name))
    return frozenset(found)


def test_every_private_name_we_use_is_listed():
    doc = (ROOT / "docs" / "PRIVATE_API.md").read_text("utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    missing = sorted((where, name) for where, name in private_uses()
                     if not any(f"`{where}`" in row and name in row for row in rows))
    assert missing == []


def test_the_scan_finds_a_private_attribute_read():
    """The scan itself: a read of another project's private attribute is found."""
    uses = private_uses()
    assert ("lightsearch/crawl/runtime.py", "_stopThreadPool") in uses
    assert ("lightsearch/crawl/transport.py", "_contextFactory") in uses
