"""Imported first by the fork server that starts the pool's workers, and never elsewhere.

A process started through ``multiprocessing`` (spawn or forkserver) first imports the
parent's main script as ``__mp_main__``, so that functions defined there can be
unpickled. Workers run only functions of :mod:`lightsearch.isolation.tasks`, and the
main script is the embedding application's: a script that searches at its top level,
without an ``if __name__ == "__main__":`` guard, would search again in every worker (and
start servers, open files...), and even a guarded one would import its own imports
again in each worker (the ``scrapy`` command: all of Scrapy, in every worker).
So in this fork server, and therefore in every worker it forks, the two functions of
``multiprocessing.spawn`` that import the main module do nothing. The parent process is
untouched (docs/PRIVATE_API.md).
"""

from __future__ import annotations

from multiprocessing import spawn


def _no_main(_main: str) -> None:
    return None


# multiprocessing.spawn._fixup_main_from_name / _fixup_main_from_path (CPython 3.10-3.13):
# called by spawn.prepare() in a new process before it unpickles its target.
for _name in ("_fixup_main_from_name", "_fixup_main_from_path"):
    if hasattr(spawn, _name):
        setattr(spawn, _name, _no_main)
