"""Documents: what a fetched page becomes once decoded and extracted."""

from lightsearch.documents.document import Document

__all__ = ["Document"]
