"""Signals of lightsearch's own, sent on the crawler's signal manager."""

#: Sent by the query controller at the hard deadline or on cancellation: every download
#: in flight is cancelled at once instead of being waited for.
abort_requested = object()
