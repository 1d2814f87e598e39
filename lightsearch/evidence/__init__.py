"""Evidence: what the caller receives (envelope, coverage, receipts, the bounded fenced model text)."""
