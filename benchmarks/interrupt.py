"""Ctrl-C: how a search a person interrupts ends.

Runs ``lightsearch search --offline QUERY`` and ``scrapy search --offline QUERY`` again and
again, and sends SIGINT to the command's whole process group (what a terminal's Ctrl-C
does) at a random moment between ``--from`` and ``--to`` seconds after it started; with
``--twice`` a second SIGINT follows 50 ms later. For each command it reports the exit
statuses, how long the process took to exit after the (first) SIGINT (waited for with
``wait()``, not for its pipes: a shell returns when the process ends), the runs that
printed anything on stderr, those that printed a traceback, and those that did not end
within ``--hang`` seconds (then killed).

    python benchmarks/interrupt.py [--runs 20] [--from 0.5] [--to 4] [--twice] [--json]

A SIGINT that arrives before the command has set up its own handling (the interpreter's
start and its first imports, a few tenths of a second; Scrapy's own start for ``scrapy
search``) is Python's (a traceback, or death by the signal before the interpreter handles
it): those runs are counted apart as ``early``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = {"lightsearch": [str(BIN / "lightsearch"), "search", "--offline"],
            "scrapy": [str(BIN / "scrapy"), "search", "--offline"]}


def one(argv: list[str], delay: float, twice: bool, hang: float) -> dict:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    chunks: dict[str, bytes] = {}

    def drain(name: str, stream) -> None:
        chunks[name] = stream.read()

    readers = [threading.Thread(target=drain, args=(n, s), daemon=True)
               for n, s in (("out", proc.stdout), ("err", proc.stderr))]
    for reader in readers:
        reader.start()
    time.sleep(delay)
    if proc.poll() is not None:
        return {"finished_first": True}
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    if twice:
        time.sleep(0.05)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=hang)
        hung = False
    except subprocess.TimeoutExpired:
        hung = True
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    exit_secs = time.monotonic() - sent
    for reader in readers:
        reader.join(timeout=10)
    err = chunks.get("err", b"").decode("utf-8", "replace")
    with_traceback = "Traceback (most recent call last)" in err
    # before the command's own handling: Python's KeyboardInterrupt traceback from an import,
    # or (before the interpreter handles SIGINT at all) the signal's default action
    early = (with_traceback and "KeyboardInterrupt" in err and "lightsearch/surfaces/exits.py" not in err) \
        or proc.returncode == -signal.SIGINT
    return {"status": proc.returncode, "secs": exit_secs, "hung": hung, "stderr_lines": len(err.splitlines()),
            "traceback": with_traceback, "early": early, "delay": delay}


def summary(rows: list[dict]) -> dict:
    ran = [r for r in rows if not r.get("finished_first")]
    late = [r for r in ran if not r["early"]]
    secs = sorted(r["secs"] for r in late if not r["hung"])
    every = sorted(r["secs"] for r in ran if not r["hung"])
    return {
        "runs": len(rows), "finished_before_the_signal": len(rows) - len(ran),
        # every interrupted run, early ones included
        "all_statuses": {str(s): sum(r["status"] == s for r in ran) for s in sorted({r["status"] for r in ran})},
        "all_tracebacks": sum(r["traceback"] for r in ran), "all_hung": sum(r["hung"] for r in ran),
        "all_exit_secs_max": round(every[-1], 3) if every else None,
        # the runs interrupted once the command had taken SIGINT
        "early": len(ran) - len(late),
        "statuses": {str(s): sum(r["status"] == s for r in late) for s in sorted({r["status"] for r in late})},
        "hung": sum(r["hung"] for r in late), "tracebacks": sum(r["traceback"] for r in late),
        "stderr_not_empty": sum(r["stderr_lines"] > 0 for r in late),
        "exit_secs_p50": round(statistics.median(secs), 3) if secs else None,
        "exit_secs_p95": round(secs[min(len(secs) - 1, int(len(secs) * 0.95))], 3) if secs else None,
        "exit_secs_max": round(secs[-1], 3) if secs else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="runs per command")
    parser.add_argument("--from", dest="low", type=float, default=0.5, help="earliest SIGINT, seconds after start")
    parser.add_argument("--to", dest="high", type=float, default=4.0, help="latest SIGINT, seconds after start")
    parser.add_argument("--twice", action="store_true", help="a second SIGINT 50 ms after the first")
    parser.add_argument("--hang", type=float, default=15.0, help="seconds after which a run counts as hung")
    parser.add_argument("--query", default="europa clipper auroras")
    parser.add_argument("--commands", default="lightsearch,scrapy")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    rng = random.Random(7)
    report = {}
    names = [n.strip() for n in opts.commands.split(",") if n.strip()]
    rows: dict[str, list[dict]] = {n: [] for n in names}
    for _ in range(opts.runs):
        for name in names:  # interleaved, so machine load falls on both alike
            rows[name].append(one([*COMMANDS[name], opts.query], rng.uniform(opts.low, opts.high), opts.twice,
                                  opts.hang))
    for name in names:
        report[name] = summary(rows[name])
    print(json.dumps(report, indent=2) if opts.json else "\n".join(f"{k}: {v}" for k, v in report.items()))


if __name__ == "__main__":
    main()
