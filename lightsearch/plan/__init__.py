"""Plan: what a search will do before any byte is fetched (request bounds, the catalog, source selection)."""
