"""The packed-package probe: the wheel, not the work tree.

The wheel is built from this checkout and installed with pip into a fresh virtual
environment; its dependencies are borrowed from the test environment through a path
file (not its site directory, so this checkout's editable install stays out), and an
offline search runs there, from a directory that holds a ``pipelines.py`` and a
``spiders/`` package of its own, with empty caches (a new process).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed():
    """``packages`` is an explicit list (find() cannot see the mapped folders): keep it whole."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    listed = set(conf["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lightsearch").rglob("__init__.py")}
    mapped = {name for name in conf["package-dir"]}
    assert found | mapped == listed
    for name, folder in conf["package-dir"].items():
        assert (ROOT / folder / "__init__.py").exists(), name


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # From a copy of the files git sees: setuptools reuses ./build, whose stale modules
    # would end up in the wheel.
    src = tmp_path_factory.mktemp("src")
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True, timeout=300).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(src)], check=True, capture_output=True, timeout=300)
    (path,) = out.glob("lightsearch-*.whl")
    return path


def test_wheel_installs_one_namespace(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    top = {n.split("/", 1)[0] for n in names if ".dist-info/" not in n}
    assert top == {"lightsearch"}
    assert "lightsearch/catalog/sources.json" in names
    assert any(n.startswith("lightsearch/offline_origins/sites/") for n in names)
    assert "lightsearch/spiders/discovery.py" in names


def test_wheel_search_from_a_hostile_directory(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True, timeout=300).stdout.strip())
    (site / "borrowed-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-compile",
                    "--no-index", str(wheel)], check=True, capture_output=True, timeout=300)
    work = tmp_path / "work"
    (work / "spiders").mkdir(parents=True)
    (work / "spiders" / "__init__.py").write_text("raise ImportError('the user spiders package')\n")
    (work / "pipelines.py").write_text("raise ImportError('the user pipelines module')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BRAVE_", "LIGHT_", "PYTHONPATH"))}
    done = subprocess.run([str(python), "-m", "scrapy", "search", "--offline", "-o", "json",
                           "photosynthesis calvin cycle"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    urls = [hit["url"] for hit in result["hits"]]
    assert "https://en.wikipedia.org/wiki/Photosynthesis" in urls
    catalog = (ROOT / "catalog" / "sources.json").read_text("utf-8")
    assert "Photosynthesis" not in catalog  # discovered by the crawl, not listed
    where = subprocess.run([str(python), "-c", "import lightsearch; print(lightsearch.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True, timeout=300).stdout
    assert where.startswith(str(site))


def test_every_package_imported_directly_is_declared():
    """A top-level module our code imports comes from a distribution pyproject.toml names
    (as a dependency, or in the extra of the feature that uses it)."""
    import ast
    import importlib.metadata
    import re
    import sys

    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    declared = {re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].lower().replace("_", "-")
                for req in [*project["dependencies"],
                            *(r for extra in project["optional-dependencies"].values() for r in extra)]}
    provided = importlib.metadata.packages_distributions()
    ours = {"lightsearch", "tests", "spiders", "pipelines", "catalog", "offline_origins"}
    missing = {}
    for folder in ("lightsearch", "spiders", "pipelines", "offline_origins"):
        for path in (ROOT / folder).rglob("*.py"):
            if "sites" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top in ours or top in sys.stdlib_module_names or top == "typing_extensions":
                        continue
                    dists = {d.lower().replace("_", "-") for d in provided.get(top, [top])}
                    if not dists & declared:
                        missing[top] = str(path.relative_to(ROOT))
    assert missing == {}
