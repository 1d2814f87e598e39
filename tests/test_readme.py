"""The README stays short, its fresh-machine commands stay there and its links resolve
(its examples run in tests/test_docs_examples.py)."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")


def test_the_two_fresh_machine_commands_are_there():
    assert "pip install -e '.[test]' && scrapy search --offline" in README
    assert "python -m pytest -q" in README


def test_the_readme_is_read_in_five_minutes_and_its_links_resolve():
    assert len(README.splitlines()) <= 200
    root = Path(__file__).resolve().parents[1]
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text("utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to a missing {target}"
