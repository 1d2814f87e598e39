"""Fuzz lightsearch's parsers of attacker input for minutes, not the suite's seconds.

    python benchmarks/fuzz.py TARGET [--minutes N] [--seed S] [--max-examples K] [--json]
    python benchmarks/fuzz.py all --minutes N      # every target, N minutes each, in turn
    python benchmarks/fuzz.py --list

Hypothesis drives each target in rounds of ``K`` examples, one seed per round, until the
time is up. An escape is any exception that is not the target's structured error
(LightSearchError, the guard's refusals, FeedError, a coded IgnoreRequest), or a broken
property (:class:`fuzz_targets.Violation`: renderer invariants, silent loss, an error
message echoing attacker text unquoted). Escapes are deduplicated by exception type and
innermost frame; the first round that meets one lets Hypothesis shrink it (for at most
``--shrink-secs``), and the smallest input seen is printed as the reproducer. The exit
status is 1 when anything escaped. Targets live in ``benchmarks/fuzz_targets.py``.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[1])
sys.path[:0] = [ROOT, str(Path(__file__).resolve().parent)]

from fuzz_targets import TARGETS, Target, Violation  # noqa: E402
from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings  # noqa: E402

warnings.filterwarnings("ignore", message="Generating overly large repr")
SLOW_SECS = 5.0  # one input taking longer than this is reported as a resource escape
HANG_SECS = 30  # and is interrupted after this


class TimeUp(BaseException):
    """Ends a round from inside Hypothesis (it does not catch BaseException)."""


class Hang(Exception):
    pass


@dataclass
class Escape:
    type: str
    where: str
    message: str
    reproducer: str
    count: int = 0
    args: tuple[Any, ...] = ()
    shrinking: bool = True
    shrink_round: int = -1
    shrink_start: float = 0.0


@dataclass
class Run:
    target: str
    examples: int = 0
    seconds: float = 0.0
    escapes: dict[tuple[str, str], Escape] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {"target": self.target, "examples": self.examples, "seconds": round(self.seconds, 1),
                "escapes": [{k: v for k, v in vars(e).items() if not k.startswith(("shrink", "args"))}
                            for e in self.escapes.values()]}


def _short(frame: traceback.FrameSummary) -> str:
    path = frame.filename
    for marker in ("site-packages/", f"{ROOT}/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1].split("/", 1)[-1] if marker == "/lib/python3" else path.split(marker, 1)[1]
            break
    return f"{path}:{frame.lineno} in {frame.name}"


def _where(exc: BaseException) -> str:
    """The innermost frame, and the innermost project frame when that is elsewhere."""
    if isinstance(exc, Violation):
        return exc.kind
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    ours = [f for f in frames if f.filename.startswith((f"{ROOT}/lightsearch/", f"{ROOT}/spiders/"))]
    where = _short(frames[-1])
    return where if not ours or ours[-1] is frames[-1] else f"{where} <- {_short(ours[-1])}"


def _repr(args: tuple[Any, ...]) -> str:
    return repr(args[0] if len(args) == 1 else args)


def _on_alarm(_signum: int, _frame: Any) -> None:
    raise Hang(f"one input ran longer than {HANG_SECS} s")


def fuzz(target: Target, minutes: float, base_seed: int, max_examples: int, shrink_secs: float) -> Run:
    run = Run(target.name)
    started = time.monotonic()
    deadline = started + minutes * 60
    state = {"round": 0}

    def record(exc: BaseException, args: tuple[Any, ...]) -> Escape:
        key = (type(exc).__name__, _where(exc))
        text = _repr(args)
        esc = run.escapes.get(key)
        if esc is None:
            esc = run.escapes[key] = Escape(key[0], key[1], str(exc)[:300], text)
        esc.count += 1
        if len(text) < len(esc.reproducer) or not esc.args:
            esc.reproducer, esc.message, esc.args = text, str(exc)[:300], args
        return esc

    def body(args: tuple[Any, ...]) -> None:
        if time.monotonic() > deadline:
            raise TimeUp
        run.examples += 1
        began = time.monotonic()
        signal.alarm(HANG_SECS)
        try:
            target.call(args)
        except Exception as exc:
            esc = record(exc, args)
            if esc.shrinking:  # let Hypothesis shrink it, within the budget
                if esc.shrink_round != state["round"]:
                    esc.shrink_round, esc.shrink_start = state["round"], time.monotonic()
                if time.monotonic() - esc.shrink_start > shrink_secs:
                    esc.shrinking = False
                    raise TimeUp from None  # the smallest input seen is kept
                raise
        finally:
            signal.alarm(0)
        if time.monotonic() - began > SLOW_SECS:
            record(Violation("slow", f"{time.monotonic() - began:.1f} s for one input"), args).shrinking = False

    test = settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
                    verbosity=Verbosity.quiet, report_multiple_bugs=False, phases=[Phase.generate, Phase.shrink],
                    suppress_health_check=list(HealthCheck))(given(target.strategy())(body))
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        while time.monotonic() < deadline:
            try:
                seed(base_seed * 1_000_003 + state["round"])(test)()
            except TimeUp:
                pass
            except Exception as exc:  # shrunk: count it from now on, do not shrink it again
                esc = run.escapes.get((type(exc).__name__, _where(exc)))
                if esc is not None:
                    esc.shrinking = False
            state["round"] += 1
        for esc in run.escapes.values():
            if len(esc.reproducer) > 200 and esc.where not in ("slow",) and esc.type != "Hang":
                _minimise(target, esc, min(shrink_secs, 10.0))
    finally:
        signal.signal(signal.SIGALRM, previous)
    run.seconds = time.monotonic() - started
    return run


def _minimise(target: Target, esc: Escape, budget: float) -> None:
    """Delta-debug the bytes and str arguments of a reproducer Hypothesis could not make small
    (a real page with one bad byte), keeping the same escape."""
    end = time.monotonic() + budget

    def same(args: tuple[Any, ...]) -> bool:
        signal.alarm(HANG_SECS)
        try:
            target.call(args)
        except Exception as exc:
            return (type(exc).__name__, _where(exc)) == (esc.type, esc.where)
        finally:
            signal.alarm(0)
        return False

    args = list(esc.args)
    for i, value in enumerate(args):
        chunks = 2
        while isinstance(value, (bytes, str)) and len(value) > 1 and time.monotonic() < end:
            size = max(1, len(value) // chunks)
            for start in range(0, len(value), size):
                candidate = value[:start] + value[start + size:]
                if time.monotonic() < end and same((*args[:i], candidate, *args[i + 1:])):
                    value, chunks = candidate, max(chunks - 1, 2)
                    break
            else:
                if size == 1:
                    break
                chunks = min(len(value), chunks * 2)
            args[i] = value
    esc.args, esc.reproducer = tuple(args), _repr(tuple(args))


def _report(run: Run) -> None:
    print(f"{run.target:<11} examples={run.examples:<7} seconds={run.seconds:<6.1f} escapes={len(run.escapes)}",
          flush=True)
    for esc in run.escapes.values():
        repro = esc.reproducer if len(esc.reproducer) <= 600 else f"{esc.reproducer[:600]}… ({len(esc.reproducer)} chars)"
        print(f"  ESCAPE {esc.type} at {esc.where} (x{esc.count}): {esc.message[:200]}\n    reproducer: {repro}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", help="a target name, or 'all'")
    parser.add_argument("--minutes", type=float, default=1.0, help="per target (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-examples", type=int, default=200, help="examples per Hypothesis round")
    parser.add_argument("--shrink-secs", type=float, default=20.0, help="shrinking budget per new escape")
    parser.add_argument("--json", action="store_true", help="print one JSON summary instead of text")
    parser.add_argument("--list", action="store_true", help="list the targets")
    args = parser.parse_args(argv)
    if args.list or not args.target:
        for name, target in TARGETS.items():
            print(f"{name:<11} {target.doc}")
        return 0 if args.list else 2
    names = list(TARGETS) if args.target == "all" else [args.target]
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}; --list shows them")
    runs = []
    for name in names:
        run = fuzz(TARGETS[name], args.minutes, args.seed, args.max_examples, args.shrink_secs)
        runs.append(run)
        if not args.json:
            _report(run)
    total = sum(len(r.escapes) for r in runs)
    if args.json:
        print(json.dumps({"seed": args.seed, "minutes": args.minutes, "escapes": total,
                          "targets": [r.summary() for r in runs]}, indent=1))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
