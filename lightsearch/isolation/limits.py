"""The limits a worker runs under, and the errors a caller gets when one is hit.

Memory is capped by the kernel, per worker, with ``RLIMIT_AS`` (the address space).
Measured on Linux with trafilatura, lxml and pypdf preloaded, a fresh worker maps about
86 MiB (``VmSize``) of which 42 MiB is data (``VmData``) and 64 MiB resident, and it
runs one thread, so there is no per-thread malloc arena reserving 64 MiB of address
space: the address space is within 1.5x of what the worker really uses, and the limit
reads as what it says. ``RLIMIT_DATA`` (private writable mappings) would leave out the
libraries and the stack, but it counts nothing before Linux 4.7 but the ``brk`` heap,
which CPython's allocator and zlib bypass with ``mmap``; ``RLIMIT_AS`` holds on every
kernel. Over the limit, an allocation fails: Python raises ``MemoryError`` (a
``too_large`` error with reason ``extraction_memory``, and the worker is replaced), and
a C library that cannot recover kills its worker, which the pool reports the same way.

Time is capped by the pool: a task still running ``task_secs`` after it started, or at
its caller's deadline, has its worker killed with ``SIGKILL`` (a task inside a C call
would not see a gentler signal), and the caller gets ``timeout`` with reason
``extraction_time``.
"""

from __future__ import annotations

import resource
from typing import Any

from lightsearch.errors import LightSearchError

MiB = 1024 * 1024
MEMORY_RLIMIT = resource.RLIMIT_AS
# A worker whose peak resident size passed this share of its limit is replaced after
# the task: CPython rarely gives freed arenas back, and the next task should start with
# its whole allowance.
RECYCLE_SHARE = 0.5
# A body off the network (a discovery page or sitemap, a robots.txt, an engine's answer)
# at most this big is parsed where it arrives, by a parser whose work is capped
# (lightsearch/isolation/apart.py): its most hostile shapes cost a few milliseconds there
# (docs/UNTRUSTED_WORK.md, benchmarks/loop_parsers.py), less than the trip to a worker
# and back. A larger one goes to a worker. Main-text extraction, PDFs and feeds always
# do, whatever their size: their cost has no cap of its own.
SMALL_BODY_BYTES = 4 * 1024


def apply_memory_limit(max_bytes: int) -> None:
    """Cap this process's address space at ``max_bytes`` (soft and hard alike, so nothing
    the task runs can raise it again)."""
    _soft, hard = resource.getrlimit(MEMORY_RLIMIT)
    if hard != resource.RLIM_INFINITY:
        max_bytes = min(max_bytes, hard)
    resource.setrlimit(MEMORY_RLIMIT, (max_bytes, max_bytes))


def peak_rss_bytes() -> int:
    """This process's peak resident set size (``VmHWM``; ``ru_maxrss`` as a fallback)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def time_exceeded(what: str, limit_secs: float, **details: Any) -> LightSearchError:
    return LightSearchError("timeout", f"{what} took longer than {limit_secs:g} s and was stopped",
                            {"reason": "extraction_time", "limitSecs": round(limit_secs, 3), **details})


def memory_exceeded(what: str, limit_bytes: int, **details: Any) -> LightSearchError:
    return LightSearchError("too_large", f"{what} needed more than {limit_bytes // MiB} MiB of memory "
                            "and was stopped", {"reason": "extraction_memory", "limitBytes": limit_bytes,
                                                **details})


def worker_died(what: str, limit_bytes: int, exitcode: int | None) -> LightSearchError:
    """A worker that ended in the middle of a task: the kernel or a C library killed it,
    which under a memory limit means the task outgrew it."""
    return memory_exceeded(what, limit_bytes, exitCode=exitcode)
