"""Comments and docstrings explain in place: none cites an issue, a seed document or a design
file outside the repository (a reader of the code has none of them)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"\b[Ii]ssue #?\d+|\b[Ss]eeds? 00\d|\bDESIGN\.md\b")


def test_no_comment_cites_an_issue_a_seed_or_design_md():
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True,
                           check=True, timeout=60).stdout.split()
    found = [f"{name}:{i}: {line.strip()}" for name in files if (ROOT / name).is_file()
             for i, line in enumerate((ROOT / name).read_text("utf-8").splitlines(), 1)
             if CITATION.search(line) and name != "tests/test_comments.py"]
    assert found == []
