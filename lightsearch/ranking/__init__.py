"""Local lexical relevance: tokenization, BM25, fusion of several queries, snippets."""
