"""Comments and docstrings explain in place, as the code is now: none cites an issue, a seed
document or a design file outside the repository (a reader of the code has none of them),
none narrates history ("used to", "no longer", "before this change"), and none carries
measured figures (before/after pairs such as "66 -> 6 ms", ranges such as "1915-1999 ms",
a metric with its value such as "nDCG@10 0.271"): figures live in docs/ (EVALUATION.md
and the page of the area), where they can be dated and re-measured. Benchmarks are where
figures come from, so their docstrings may name what they measure and their targets.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import subprocess
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITATION = re.compile(r"\b[Ii]ssue #?\d+|\b[Ss]eeds? 00\d|\bDESIGN\.md\b")
HISTORY = re.compile(r"\b(?:used to|no longer|(?:before|after) this change|this change|previously|formerly|"
                     r"any ?more|had been|earlier version|the old (?:code|way|version)|legacy|"
                     r"(?:was|were) (?:changed|fixed)|we (?:removed|changed|dropped|fixed))\b", re.I)
_NUM = r"\d[\d,]*(?:\.\d+)?"
_UNIT = r"(?:ms|s|µs|us|ns|%|KiB|MiB|GiB|KB|MB|GB)"
FIGURES = (
    re.compile(rf"{_NUM}\s*{_UNIT}?\s*(?:->|→|=>)\s*{_NUM}"),  # before -> after
    re.compile(rf"\b{_NUM}\s*[-–]\s*{_NUM}\s*{_UNIT}\b"),  # a measured range
    re.compile(rf"\b(?:p50|p95|p99|nDCG(?:@\d+)?|MRR(?:@\d+)?|F1|recall|precision|throughput)\b[^.\n]{{0,25}}?\b{_NUM}"),
)
# Files whose comments another piece of work is rewriting as this one lands (the crawl's
# own): each goes from this list once it is clean, and the test says so when it is.
CLEANED_ELSEWHERE: set[str] = set()


def python_files() -> list[str]:
    files = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True,
                           check=True, timeout=60).stdout.split()
    return [name for name in files if (ROOT / name).is_file() and name != "tests/test_comments.py"]


def explanations(source: str) -> list[tuple[int, str]]:
    """Every comment and docstring line of ``source``, with its line number."""
    found = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.extend((first.lineno + i, line) for i, line in enumerate(first.value.value.splitlines()))
    return found


def flagged(text: str, figures: bool = True) -> bool:
    return bool(HISTORY.search(text)) or (figures and any(rx.search(text) for rx in FIGURES))


@functools.cache
def offences() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in python_files():
        source = (ROOT / name).read_text("utf-8")
        figures = not name.startswith("benchmarks/")
        if not flagged(source, figures):  # nothing anywhere in the file: no need to parse it
            continue
        for line, text in explanations(source):
            if flagged(text, figures):
                out.setdefault(name, []).append(f"{name}:{line}: {text.strip()}")
    return out


def test_no_comment_cites_an_issue_a_seed_or_design_md():
    found = [f"{name}:{i}: {line.strip()}" for name in python_files()
             for i, line in enumerate((ROOT / name).read_text("utf-8").splitlines(), 1)
             if CITATION.search(line)]
    assert found == []


def test_no_comment_narrates_history_or_carries_figures():
    found = [line for name, lines in offences().items() if name not in CLEANED_ELSEWHERE for line in lines]
    assert found == []


def test_the_files_cleaned_elsewhere_still_need_it():
    clean = sorted(CLEANED_ELSEWHERE - offences().keys())
    assert clean == [], "clean now: take them off CLEANED_ELSEWHERE"


def test_the_patterns_catch_what_they_name():
    for text in ("# p50 2018-2064 -> 1915-1999 ms", "# cold nDCG@10 0.271 -> 0.269", "# 400 pages: 66 -> 6 ms",
                 "# this used to reach the parser", "# the library is no longer used",
                 "# before this change it read twice", "# one page stalled 1.6-5.8 s"):
        assert flagged(text), text
    for text in ("# at most 4 MiB of rules", "# a page is 20 KiB at most", "# read 2,000 links",
                 "# tried twice, no more", "# the fair queue gives every caller a worker"):
        assert not flagged(text), text
