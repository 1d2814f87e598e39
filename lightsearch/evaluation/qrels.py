"""Read a query set (JSONL) and TREC qrels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lightsearch.errors import invalid_input


def read_queries(path: str | Path) -> list[dict[str, Any]]:
    """``{"id", "query", "recency"?, "language"?}`` per line; blank lines are skipped."""
    queries = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise invalid_input(f"{path}:{n}: not JSON: {exc}", bound="queries_file") from None
        if not isinstance(item, dict) or "id" not in item or not isinstance(item.get("query"), str):
            raise invalid_input(f"{path}:{n}: needs an id and a query", bound="queries_file")
        item["id"] = str(item["id"])
        queries.append(item)
    return queries


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """TREC qrels, ``qid iteration docid grade`` per line (a 3-column form is accepted)."""
    qrels: dict[str, dict[str, int]] = {}
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) == 4:
            qid, _, doc, grade = parts
        elif len(parts) == 3:
            qid, doc, grade = parts
        else:
            raise invalid_input(f"{path}:{n}: expected 'qid 0 docid grade'", bound="qrels_file")
        qrels.setdefault(qid, {})[doc] = int(grade)
    return qrels
