"""Every private name we import from another project is listed in docs/PRIVATE_API.md."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("lightsearch", "spiders", "pipelines", "offline_origins")


def private_imports() -> set[tuple[str, str]]:
    found = set()
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if "sites" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] in ("lightsearch", "tests", "__future__"):
                    continue
                rel = str(path.relative_to(ROOT))
                if any(part.startswith("_") for part in node.module.split(".")):
                    found.add((rel, node.module))
                found.update((rel, a.name) for a in node.names if a.name.startswith("_"))
    return found


def test_every_private_import_is_listed():
    doc = (ROOT / "docs" / "PRIVATE_API.md").read_text("utf-8")
    rows = {line for line in doc.splitlines() if line.startswith("| `")}
    missing = [(where, name) for where, name in sorted(private_imports())
               if not any(f"`{where}`" in row and name in row for row in rows)]
    assert missing == []
