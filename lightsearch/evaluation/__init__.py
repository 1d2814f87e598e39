"""Batch evaluation: run a query set with relevance judgements, measure, report."""
