"""Fit the coverage score: the probability that a search's first three hits hold a relevant
document, from what the ranking measured of them (evidence/coverage.py).

Reads evaluation reports (``scrapy evaluate ... --out DIR`` writes ``DIR/report.json``;
benchmarks/shapes.py and benchmarks/targets.py leave theirs in benchmarks/out/), takes
Light's searches from each, with the measures of their first hits (``relevance``) and
whether a relevant document was in their top three, and fits a logistic model by
Newton's method with a small ridge penalty, every report weighing the same (a world of
1,000 searches does not outvote one of 200). Prints the coefficients to put in
evidence/coverage.py, then per report the AUC of the fitted score, its reliability and
the share of each level that held a relevant document with the cuts given; and the same
AUCs fitted without each report (how the fit carries to a world it did not see).

    python benchmarks/coverage_fit.py benchmarks/out/shapes-*/report.json
    python benchmarks/coverage_fit.py --features strength,phrased3 --weak 0.4 --strong 0.85 DIR/report.json ...
    python benchmarks/coverage_fit.py --current ...     # the score the reports' code gave, for comparison
    python benchmarks/coverage_fit.py --single ...      # each input's own AUC per report
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from lightsearch.evaluation.harness import auc

Hits = list[dict]


class Search:
    """One search of a report: the measures of its first hits and what it read of its
    frontier's best candidates (``meta.lightSearch.reach``, evidence/reach.py)."""

    def __init__(self, q: dict) -> None:
        self.hits: Hits = q.get("relevance") or []
        self.reach: dict = q.get("reach") or {}
        # pages the ranking saw: read by this search, and records of earlier ones joining it
        self.ranked = int(q.get("documents_read") or 0) + int(q.get("pages_reused") or 0)

    def top(self, k: int) -> list[tuple[float, bool]]:
        return [(float(s), bool(r)) for s, r in (self.reach.get("top") or [])[:k]]

    def read_share(self, k: int) -> float:
        first = self.top(k)
        mass = sum(s for s, _ in first)
        return sum(s for s, r in first if r) / mass if mass > 0 else 1.0


def _mean3(hits: Hits, key: str) -> float:
    return sum(float(h.get(key) or 0.0) for h in hits[:3]) / 3


def _present3(hits: Hits, key: str) -> float:
    first = hits[:3]
    return sum(float(h.get(key) or 0.0) for h in first) / len(first) if first else 0.0


def _first(hits: Hits, key: str) -> float:
    return float(hits[0].get(key) or 0.0) if hits else 0.0


def _max3(hits: Hits, key: str) -> float:
    return max((float(h.get(key) or 0.0) for h in hits[:3]), default=0.0)


def _at(hits: Hits, i: int, key: str = "strength") -> float:
    return float(hits[i].get(key) or 0.0) if len(hits) > i else 0.0


def _hit_vs_best(s: Search) -> float:
    """The best of the first three hits' frontier scores over the best candidate's."""
    best = float(s.reach.get("best") or 0.0)
    hits = [float(x) for x in (s.reach.get("hits") or [])[:3]]
    return min(1.0, max(hits, default=0.0) / best) if best > 0 else 1.0


def _selective(s: Search) -> float:
    """How few of the pages the ranking saw it kept as hits, in orders of magnitude (0 for a
    search with no hit: nothing stood out; coverage says ``none`` for it)."""
    if not s.hits:
        return 0.0
    kept = max(int(s.reach.get("kept") or 0), len(s.hits))
    pages = max(int(s.reach.get("pages") or 0), kept)
    return min(1.0, (math.log1p(pages) - math.log1p(kept)) / math.log1p(1000))


FEATURES: dict[str, Callable[[Search], float]] = {
    "strength": lambda s: _first(s.hits, "strength"),
    "strength3": lambda s: _mean3(s.hits, "strength"),
    "strengthmax3": lambda s: _max3(s.hits, "strength"),
    "strengthp3": lambda s: _present3(s.hits, "strength"),
    "phrasedp3": lambda s: _present3(s.hits, "phrased"),
    "phrasedmax3": lambda s: _max3(s.hits, "phrased"),
    "phrased3": lambda s: _mean3(s.hits, "phrased"),
    "phrased": lambda s: _first(s.hits, "phrased"),
    "titled3": lambda s: _mean3(s.hits, "titled"),
    "weighted": lambda s: _first(s.hits, "weighted"),
    "weighted3": lambda s: _mean3(s.hits, "weighted"),
    # how far the first hit stands out from the rest shown (a hit missing counts 0)
    "lead12": lambda s: _at(s.hits, 0) - _at(s.hits, 1),
    "lead": lambda s: _at(s.hits, 0) - sum(_at(s.hits, i) for i in range(3, 10)) / 7,
    "lead3": lambda s: _at(s.hits, 0) - sum(_at(s.hits, i) for i in range(1, 3)) / 2,
    # reach: what the search read of its frontier's best candidates
    "readshare": lambda s: float(s.reach.get("readShare", 1.0)),
    "readshare3": lambda s: s.read_share(3),
    "readshare5": lambda s: s.read_share(5),
    "readshare20": lambda s: s.read_share(20),
    "unreadlead": lambda s: float(s.reach.get("unreadLead", 0.0)),
    "best": lambda s: float(s.reach.get("best", 0.0)),
    "hitbest": _hit_vs_best,
    "hitcand3": lambda s: sum(float(x) for x in (s.reach.get("hits") or [])[:3]) / 3,
    "ranked": lambda s: min(1.0, math.log1p(s.ranked) / math.log1p(1000)),
    "selective": lambda s: _selective(s),
    "topread": lambda s: float(s.top(1)[0][1]) if s.top(1) else 1.0,
}


def load(paths: Sequence[str]) -> dict[str, list[tuple[Search, bool, float]]]:
    """Per report: (the search's measures, relevant in the top three, its score)."""
    out = {}
    for path in paths:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
        runs = [q for q in report["queries"].get("light", []) if not q.get("error")]
        meta = report.get("meta", {})
        name = f"{meta.get('world')}/{meta.get('shape', 'default')}/{meta.get('mode')}"
        if name in out:
            name = f"{name}#{path}"
        out[name] = [(Search(q), bool(q["relevant_top3"]), float(q.get("coverage_score") or 0.0))
                     for q in runs]
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[c][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(rows: Sequence[tuple[list[float], bool, float]], ridge: float = 1.0, steps: int = 30,
        free: int = 0) -> list[float]:
    """Weighted logistic regression (intercept first); rows are (features, label, weight).
    The ridge penalty spares the intercept and the first ``free`` features."""
    d = len(rows[0][0]) + 1
    w = [0.0] * d
    for _ in range(steps):
        grad = [ridge * w[j] if j > free else 0.0 for j in range(d)]
        hess = [[(ridge if i == j and i > free else 0.0) for j in range(d)] for i in range(d)]
        for x, y, weight in rows:
            z = [1.0, *x]
            p = 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, z, strict=True))))
            for i in range(d):
                grad[i] += weight * (p - y) * z[i]
                for j in range(d):
                    hess[i][j] += weight * p * (1 - p) * z[i] * z[j]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
    return w


# Inputs whose increase means a relevant document is less likely: fitted with a weight of
# 0 or below (every other input, 0 or above).
LOWERING = frozenset(["unreadlead"])


def fit_monotone(rows: Sequence[tuple[list[float], bool, float]], names: Sequence[str], ridge: float = 1.0,
                 strata: Sequence[int] | None = None, calibrate: Sequence[int] = ()) -> list[float]:
    """:func:`fit` with every weight of its expected sign: an input whose fitted weight has
    the other sign is left out (its weight 0) and the rest refitted, until none has.
    ``strata``: see :func:`fit_within`."""
    out: set[int] = set()
    while True:
        kept = [([0.0 if j in out else v for j, v in enumerate(x)], y, weight) for x, y, weight in rows]
        w = fit(kept, ridge) if strata is None else fit_within(kept, strata, ridge, calibrate)
        wrong = {j for j, name in enumerate(names)
                 if j not in out and (w[j + 1] > 0 if name in LOWERING else w[j + 1] < 0)}
        if not wrong:
            return w
        out |= wrong


def fit_within(rows: Sequence[tuple[list[float], bool, float]], strata: Sequence[int], ridge: float = 1.0,
               calibrate: Sequence[int] = ()) -> list[float]:
    """The weights from what separates searches within each stratum (report), the intercept
    from all of them: first a logistic model with an intercept of each stratum's own (its
    base rate, whatever the inputs), so a weight says how an input orders the searches of
    one world and mode, not how the worlds differ; then, those weights held, one intercept
    and one scale of the weighted sum fitted on every search (intercept first, as :func:`fit`).
    The inputs at ``calibrate`` are left out of the first step and fitted in the second,
    beside the sum: they say how the worlds and modes differ, not how one's searches do."""
    levels = sorted(set(strata))
    inside = [j for j in range(len(rows[0][0])) if j not in set(calibrate)]
    own = [([1.0 if s == k else 0.0 for k in levels[1:]] + [x[j] for j in inside], y, weight)
           for (x, y, weight), s in zip(rows, strata, strict=True)]
    inner = fit(own, ridge, free=len(levels) - 1)[len(levels):]
    summed = [([sum(a * x[j] for a, j in zip(inner, inside, strict=True)), *(x[j] for j in calibrate)], y, weight)
              for x, y, weight in rows]
    c, scale, *outer = fit(summed, 1e-6)
    w = [0.0] * len(rows[0][0])
    for a, j in zip(inner, inside, strict=True):
        w[j] = max(0.0, scale) * a
    for a, j in zip(outer, calibrate, strict=True):
        w[j] = a
    return [c, *w]


def score(w: Sequence[float], x: Sequence[float]) -> float:
    return 1 / (1 + math.exp(-(w[0] + sum(a * b for a, b in zip(w[1:], x, strict=True)))))


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def either(w: Sequence[float], x: Sequence[float], n1: int) -> float:
    """Two routes to a relevant document in the top three, either one enough (a noisy OR):
    ``1 - (1 - p1)(1 - p2)``, each a logistic model of its own inputs, the first route's
    ``n1`` inputs first (``w``: intercept and weights of the first, then of the second)."""
    z1 = w[0] + sum(a * b for a, b in zip(w[1:n1 + 1], x[:n1], strict=True))
    z2 = w[n1 + 1] + sum(a * b for a, b in zip(w[n1 + 2:], x[n1:], strict=True))
    return 1 - (1 - _sigmoid(z1)) * (1 - _sigmoid(z2))


def fit_either(rows: Sequence[tuple[list[float], bool, float]], n1: int, ridge: float = 1.0,
               steps: int = 4000, rate: float = 0.05) -> list[float]:
    """Fit :func:`either` by Adam on the weighted log-likelihood (ridge on the weights), every
    input's weight kept at 0 or above: more of an input never lowers the probability."""
    d = len(rows[0][0])
    w = [0.0] * (n1 + 1) + [-3.0] + [0.0] * (d - n1)
    m, v = [0.0] * len(w), [0.0] * len(w)
    intercepts = (0, n1 + 1)
    total = sum(weight for _, _, weight in rows)
    for step in range(1, steps + 1):
        grad = [0.0 if j in intercepts else ridge * w[j] for j in range(len(w))]
        for x, y, weight in rows:
            z1 = w[0] + sum(a * b for a, b in zip(w[1:n1 + 1], x[:n1], strict=True))
            z2 = w[n1 + 1] + sum(a * b for a, b in zip(w[n1 + 2:], x[n1:], strict=True))
            p1, p2 = _sigmoid(z1), _sigmoid(z2)
            p = max(1e-9, 1 - (1 - p1) * (1 - p2))
            # d(log-likelihood)/dz for each route
            g1 = (1 - p2) * p1 * (1 - p1) / p if y else -p1
            g2 = (1 - p1) * p2 * (1 - p2) / p if y else -p2
            for j, xj in enumerate([1.0, *x[:n1]]):
                grad[j] -= weight * g1 * xj
            for j, xj in enumerate([1.0, *x[n1:]]):
                grad[n1 + 1 + j] -= weight * g2 * xj
        for j in range(len(w)):
            g = grad[j] / total
            m[j] = 0.9 * m[j] + 0.1 * g
            v[j] = 0.999 * v[j] + 0.001 * g * g
            w[j] -= rate * (m[j] / (1 - 0.9 ** step)) / (math.sqrt(v[j] / (1 - 0.999 ** step)) + 1e-8)
            if j not in intercepts:
                w[j] = max(0.0, w[j])
    return w


def rows_of(data: dict, names: Sequence[str], skip: str | None = None, by: str = "report"
            ) -> list[tuple[list[float], bool, float]]:
    """Every search's inputs, label and weight: every report weighs the same (``by="report"``),
    or every world does, its reports sharing its weight equally (``by="world"``; the world
    is the report name's first part, so a world's site shapes are one world)."""
    kept = {name: searches for name, searches in data.items() if name != skip and searches}
    total = sum(len(s) for s in kept.values())
    reports_of: dict[str, int] = {}
    for name in kept:
        reports_of[name.split("/")[0]] = reports_of.get(name.split("/")[0], 0) + 1
    rows = []
    for name, searches in kept.items():
        share = 1 / len(kept) if by == "report" else 1 / (len(reports_of) * reports_of[name.split("/")[0]])
        weight = share * total / len(searches)  # the mean weight stays 1
        rows.extend(([FEATURES[f](hits) for f in names], label, weight) for hits, label, _ in searches)
    return rows


def strata_of(data: dict, skip: str | None = None) -> list[int]:
    """The report of each row of :func:`rows_of` (the same order), as a number."""
    kept = [name for name, searches in data.items() if name != skip and searches]
    return [i for i, name in enumerate(kept) for _ in data[name]]


def describe(name: str, scores: list[float], labels: list[bool], weak: float, strong: float) -> str:
    area = auc(scores, labels)
    parts = [f"{name:<34} n={len(labels):4d} base {sum(labels) / max(1, len(labels)):.2f} AUC "
             + (f"{area:.3f}" if area is not None else "  -  ")]
    for level, inside in (("weak", lambda s: s < weak), ("partial", lambda s: weak <= s < strong),
                          ("strong", lambda s: s >= strong)):
        at = [lab for s, lab in zip(scores, labels, strict=True) if inside(s)]
        parts.append(f"{level} {len(at)}" + (f" ({sum(at) / len(at):.2f})" if at else ""))
    bins = []
    for lo in (0.0, 0.2, 0.4, 0.6, 0.8):
        at = [(s, lab) for s, lab in zip(scores, labels, strict=True) if lo <= s < lo + 0.2 or (lo == 0.8 and s >= 1)]
        if at:
            bins.append(f"{lo:.1f}:{len(at)} {sum(s for s, _ in at) / len(at):.2f}->{sum(lab for _, lab in at) / len(at):.2f}")
    return "  ".join(parts) + "  | " + " ".join(bins)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--features", default="strength3,phrased3",
                        help=f"comma-separated, of: {', '.join(FEATURES)}")
    parser.add_argument("--second", default="",
                        help="inputs of a second route (a noisy OR of two monotone logistic models, "
                             "either route enough), e.g. lead")
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--weigh", choices=("report", "world"), default="report",
                        help="every report weighs the same, or every world (its shapes and modes sharing it)")
    parser.add_argument("--monotone", action="store_true",
                        help="keep every weight of its expected sign (an input of the wrong sign is left out)")
    parser.add_argument("--within", action="store_true",
                        help="weights from what separates searches within each report (an intercept "
                             "of each report's own), then one intercept and scale fitted on all")
    parser.add_argument("--calibrate", default="",
                        help="with --within: inputs fitted only with the intercept and scale, e.g. ranked")
    parser.add_argument("--weak", type=float, default=0.4, help="the weak cut on the fitted score")
    parser.add_argument("--strong", type=float, default=0.85, help="the strong cut on the fitted score")
    parser.add_argument("--current", action="store_true", help="also show the score the reports' code gave")
    parser.add_argument("--single", action="store_true",
                        help="only print each feature's own AUC per report (a higher value, more often relevant)")
    opts = parser.parse_args()
    names = [f.strip() for f in opts.features.split(",") if f.strip()]
    calibrating = [f.strip() for f in opts.calibrate.split(",") if f.strip()]
    names += [f for f in calibrating if f not in names]
    calibrate = [names.index(f) for f in calibrating]
    second = [f.strip() for f in opts.second.split(",") if f.strip()]
    data = load(opts.reports)
    if opts.single:
        print("feature        " + " ".join(f"{n[:18]:>18}" for n in data))
        for f in FEATURES:
            areas = [auc([FEATURES[f](h) for h, _, _ in searches], [lab for _, lab, _ in searches])
                     for searches in data.values()]
            print(f"{f:<15}" + " ".join(f"{a:18.3f}" if a is not None else f"{'-':>18}" for a in areas))
        return 0
    n1, names = len(names), names + second

    def fitted(skip: str | None = None) -> list[float]:
        rows = rows_of(data, names, skip=skip, by=opts.weigh)
        if second:
            return fit_either(rows, n1, opts.ridge)
        strata = strata_of(data, skip) if opts.within else None
        if opts.monotone:
            return fit_monotone(rows, names, opts.ridge, strata, calibrate)
        return fit(rows, opts.ridge) if strata is None else fit_within(rows, strata, opts.ridge, calibrate)

    def scored(w: Sequence[float], x: Sequence[float]) -> float:
        return either(w, x, n1) if second else score(w, x)

    w = fitted()
    print("coefficients (intercept, " + ", ".join(names[:n1])
          + (", second route's intercept, " + ", ".join(second) if second else "") + "): "
          + ", ".join(f"{c:.3f}" for c in w))
    for name, searches in data.items():
        labels = [lab for _, lab, _ in searches]
        print(describe(name, [scored(w, [FEATURES[f](h) for f in names]) for h, _, _ in searches], labels,
                       opts.weak, opts.strong))
        if opts.current:
            print(describe("  (as reported)", [s for _, _, s in searches], labels, 0.0, 1.01))
    print("fitted without the report itself (AUC, levels):")
    for name, searches in data.items():
        if len(data) < 2:
            break
        held_out = fitted(name)
        labels = [lab for _, lab, _ in searches]
        print(describe(name, [scored(held_out, [FEATURES[f](h) for f in names]) for h, _, _ in searches], labels,
                       opts.weak, opts.strong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
