"""A file's name says its one job: two modules share a file name only when they are the same
role in parallel packages, and a test module is named for the module it tests.

The parallel roles are the table below, each with its reason (docs/ARCHITECTURE.md, "Same
names, parallel roles"). Any other shared name fails, and so does a row of the table that no
longer matches the tree, so the table stays as small as the truth.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
# Folders of the code, as pyproject's package-dir maps them into ``lightsearch``.
FOLDERS = ("lightsearch", "spiders", "pipelines", "catalog", "offline_origins")

# file name -> the modules that share it, and why that is one role in parallel places
PARALLEL = {
    "records.py": ({"lightsearch/cache/records.py", "lightsearch/fleet/records.py"},
                   "the record cache in process memory and on the fleet's Redis: one interface"),
    "robots.py": ({"lightsearch/cache/robots.py", "lightsearch/fleet/robots.py"},
                  "the robots cache in process memory and on the fleet's Redis: one interface"),
    "searches.py": ({"lightsearch/cache/searches.py", "lightsearch/fleet/searches.py"},
                    "the search-answer cache in process memory and on the fleet's Redis"),
    "suspension.py": ({"lightsearch/cache/suspension.py", "lightsearch/fleet/suspension.py"},
                      "engine suspensions in process memory and on the fleet's Redis"),
    "describe.py": ({"spiders/describe.py", "lightsearch/providers/describe.py"},
                    "`sources describe`: its spider (one crawl per source) and the job that runs it"),
    "fetch.py": ({"spiders/fetch.py", "lightsearch/providers/fetch.py"},
                 "web_fetch: its spider (the one-page crawl) and the provider that answers the call"),
    "news.py": ({"lightsearch/surfaces/commands/news.py", "lightsearch/providers/news.py"},
                "web_news: the `scrapy news` command (a command module takes its command's name) "
                "and the provider that answers it"),
}

def modules() -> list[str]:
    """Every module file of the package, as a path from the repository's root."""
    found = []
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if path.name == "__init__.py" or "sites" in rel.parts:
                continue
            found.append(rel.as_posix())
    return found


def by_name(paths: list[str]) -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for path in paths:
        names.setdefault(path.rsplit("/", 1)[-1], set()).add(path)
    return {name: held for name, held in names.items() if len(held) > 1}


def test_modules_share_a_name_only_in_parallel_roles():
    shared = by_name(modules())
    wrong = {}
    for name, held in shared.items():
        allowed = PARALLEL.get(name, (set(), ""))[0]
        if held - allowed:
            wrong[name] = sorted(held)
    assert wrong == {}


def test_the_table_matches_the_tree():
    shared = by_name(modules())
    stale = [f"{name}: {sorted(paths)}" for name, (paths, _why) in PARALLEL.items()
             if shared.get(name, set()) & paths != paths]
    assert stale == []


def test_a_command_module_takes_its_commands_name():
    """The one place a module is named for what a user types: ``scrapy NAME`` runs
    surfaces/commands/NAME.py."""
    points = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["entry-points"]["scrapy.commands"]
    assert points
    for name, target in points.items():
        assert target == f"lightsearch.surfaces.commands.{name}:Command"


def test_a_spider_module_is_named_for_its_spider():
    for path in (ROOT / "spiders").glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        names = [node.value.value for cls in tree.body if isinstance(cls, ast.ClassDef)
                 for node in cls.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and any(isinstance(t, ast.Name) and t.id == "name" for t in node.targets)]
        for name in names:
            assert name.removeprefix("light_") == path.stem, (path.name, name)


def test_test_modules_follow_their_modules():
    """tests/ mirrors the package, so two test files share a name only when each tests a
    module of that name at the same place (tests/cache/test_records.py,
    tests/fleet/test_records.py)."""
    mirror = {"spiders": "spiders", "pipelines": "pipelines", "catalog": "catalog",
              "offline_origins": "offline_origins"}
    tests = [p.relative_to(ROOT / "tests") for p in (ROOT / "tests").rglob("test_*.py")]
    names: dict[str, list[Path]] = {}
    for rel in tests:
        names.setdefault(rel.name, []).append(rel)
    wrong = []
    for name, held in names.items():
        if len(held) < 2:
            continue
        for rel in held:
            top = rel.parts[0] if len(rel.parts) > 1 else ""
            base = ROOT / mirror[top] / Path(*rel.parts[1:-1]) if top in mirror else ROOT / "lightsearch" / Path(*rel.parts[:-1])
            if not (base / name.removeprefix("test_")).is_file():
                wrong.append(str(rel))
    assert wrong == []


def _mirror(module: str) -> Path:
    """Where a module's own test module lives (tests/ mirrors the package)."""
    rel = Path(module)
    if rel.parts[0] == "lightsearch":
        rel = Path(*rel.parts[1:])
    return ROOT / "tests" / rel.parent / f"test_{rel.stem}.py"


def test_every_module_has_its_test_module_or_says_which_tests_cover_it():
    """A module without a test module of its own has a row in docs/ARCHITECTURE.md naming
    the tests that cover it, and every test named there exists."""
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = doc.split("### Modules without a test module of their own", 1)[1].split("\n\n", 2)[2]
    rows = {}
    for line in section.splitlines()[2:]:  # the rows, after the head and its rule
        if not line.startswith("| `"):
            break
        cells = line.split("|")
        rows[cells[1].strip().strip("`")] = [t.strip().strip("`") for t in cells[2].split(",")]
    code = [m for m in modules() if m.split("/", 1)[0] != "catalog"]
    uncovered = sorted(m for m in code if not _mirror(m).is_file() and m not in rows)
    assert uncovered == []
    missing_tests = sorted(t for tests in rows.values() for t in tests if not (ROOT / t).is_file())
    assert missing_tests == []
    stale = sorted(m for m in rows if not (ROOT / m).is_file())
    assert stale == []
