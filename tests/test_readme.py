"""The README's commands and its Python example stay true."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


def test_python_example_runs_offline_and_exits():
    block = next(b for b in re.findall(r"```python\n(.*?)```", README, re.S) if "OfflineOrigins" in b)
    done = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any("wikipedia.org/wiki/Photosynthesis" in line for line in lines)
    assert lines[-1].startswith("NASA")


def test_the_two_fresh_machine_commands_are_there():
    assert "pip install -e '.[test]' && scrapy search --offline" in README
    assert "python -m pytest -q" in README


def test_the_readme_is_read_in_five_minutes_and_its_links_resolve():
    assert len(README.splitlines()) <= 200
    root = Path(__file__).resolve().parents[1]
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text("utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to a missing {target}"
