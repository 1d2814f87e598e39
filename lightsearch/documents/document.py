"""The extracted, rankable form of one fetched page."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Document:
    url: str
    source_id: str
    title: str
    text: str
    retrieved_at: str
    language: str | None = None
    published_at: str | None = None
    modified_at: str | None = None
    original_url: str | None = None
    status: int = 200
    partial: bool = False
    discovered_via: str = "page"
    # Wall-clock time the record stops being fresh; None: the origin forbade storing it.
    expires_at: float | None = None
    tokens: list[str] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("tokens")
        return data
