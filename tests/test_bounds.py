"""The defaults are the specification's bounds: docs/BOUNDS.md's table, row by row, against
the settings schema (and against the specification's own table when it is at hand)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lightsearch.schema import BY_KEY, KiB, MiB, check_value
from tests.conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]
UNITS = {"": 1, "KiB": KiB, "MiB": MiB, "s": 1, "min": 60, "h": 3600}
_ASSIGN = re.compile(r"`([A-Z_]+)` = ([0-9.]+) ?([A-Za-z]*)")


def tables(text: str) -> list[list[list[str]]]:
    """Every markdown table of ``text``: its rows (header and rule left out), cells stripped."""
    found, rows = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            found.append(rows[2:])
            rows = []
    return found


def assignments(cell: str) -> dict[str, float]:
    out = {}
    for key, number, unit in _ASSIGN.findall(cell):
        assert unit in UNITS, f"unknown unit {unit!r} in {cell!r}"
        out[key] = float(number) * UNITS[unit]
    return out


BOUNDS, PROFILES_TABLE = tables((ROOT / "docs" / "BOUNDS.md").read_text("utf-8"))


@pytest.mark.parametrize("row", BOUNDS, ids=[r[0] for r in BOUNDS])
def test_every_default_equals_the_bounds_table(row):
    settings = assignments(row[2])
    assert settings, f"row {row[0]!r} names no setting"
    for key, value in settings.items():
        assert key in BY_KEY, key
        assert BY_KEY[key].default == value, f"{key} defaults to {BY_KEY[key].default}, the table says {value:g}"


def test_the_table_has_every_row_of_the_specification():
    seeds = sorted((SHARED_DATA.parent / "seeds").glob("000_*.txt"))
    if not seeds:
        pytest.skip("the specification's seed documents are not on this machine")
    lines = seeds[0].read_text("utf-8").splitlines()
    start = lines.index("Bound\tDefault") + 1
    spec = []
    for line in lines[start:]:
        if "\t" not in line:
            break
        spec.append(line.split("\t"))
    assert [r[:2] for r in BOUNDS] == spec


@pytest.mark.parametrize("row", PROFILES_TABLE, ids=[r[0] for r in PROFILES_TABLE])
def test_opt_in_profiles_are_valid_departures(row):
    settings = assignments(row[1])
    assert settings
    assert any(BY_KEY[key].default != value for key, value in settings.items())
    for key, value in settings.items():
        check_value(BY_KEY[key], int(value) if BY_KEY[key].type == "int" else value)


def test_scrapy_evaluate_runs_exactly_the_documented_profiles():
    from lightsearch.surfaces.commands.evaluate import PROFILES

    documented = {row[0].strip("`"): assignments(row[1]) for row in PROFILES_TABLE}
    assert documented == {name: {k: float(v) for k, v in settings.items()} for name, settings in PROFILES.items()}
