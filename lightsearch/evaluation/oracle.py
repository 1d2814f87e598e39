"""Reference runs for the harness: the full-index oracle.

The oracle is plain BM25 over every document of a world with the same tokenizer and
BM25 variant as Light: the ranking a crawler that had fetched everything would produce.
Light's nDCG divided by the oracle's isolates what discovery under budget costs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lightsearch.ranking.bm25 import LuceneBM25
from lightsearch.ranking.tokenize import tokenize


class OracleProvider:
    provider = "oracle"

    def __init__(self, documents: Mapping[str, Mapping[str, str]]) -> None:
        self.urls = list(documents)
        corpus = [tokenize(f"{d.get('title', '')}\n{d.get('text', '')}") for d in documents.values()]
        self.model = LuceneBM25([doc or [""] for doc in corpus])
        self.titles = [d.get("title", "") for d in documents.values()]

    async def search(self, query: str, *, max_results: int = 10, recency: str | None = None) -> dict[str, Any]:
        terms = tokenize(query)
        scores = self.model.get_scores(terms) if terms else []
        order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])[:max_results]
        return {
            "query": query,
            "provider": self.provider,
            "hits": [{"url": self.urls[i], "title": self.titles[i], "score": float(scores[i])} for i in order],
            "stopReason": "completed",
            "meta": {"lightSearch": {"counts": {"requests": 0, "encodedBytes": 0, "decodedBytes": 0}}},
        }
