"""The error table: every code the code can raise is in it, and docs/ERRORS.md is current."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from lightsearch.errors import ERROR_CODES, LightSearchError, error_table, invalid_input

ROOT = Path(__file__).resolve().parents[1]
CODE = re.compile(r"^[a-z]+(_[a-z]+)*$")
MAKERS = re.compile(r"(Error|_error|Refusal|Refused|^refuse)$")
# Exceptions whose first argument is a reason inside one code (a decoding refusal's
# ``encoding``/``too_large``), not a code of their own.
REASON_FIRST = {"DecodingRefused"}


def codes_in_source() -> dict[str, str]:
    """Code literals where the code makes an error: the first argument of an error
    constructor, a ``code=`` keyword, a ``"code": ...`` entry, a class's ``code = ...``."""
    found: dict[str, str] = {}
    for folder in ("lightsearch", "spiders", "pipelines"):
        for path in (ROOT / folder).rglob("*.py"):
            where = str(path.relative_to(ROOT))
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                values = []
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                    if MAKERS.search(name) and node.args and name not in REASON_FIRST:
                        # refuse(scope, status, code, ...): the code follows the status;
                        # a budget's refuse(reason, url) names a stop reason, not a code
                        if name != "refuse":
                            values.append(node.args[0])
                        elif len(node.args) > 2:
                            values.append(node.args[2])
                    values += [k.value for k in node.keywords if k.arg in ("code", "source_code")]
                elif isinstance(node, ast.Dict):
                    values += [v for k, v in zip(node.keys, node.values, strict=True)
                               if isinstance(k, ast.Constant) and k.value == "code"]
                elif isinstance(node, ast.ClassDef):
                    values += [b.value for b in node.body if isinstance(b, ast.Assign)
                               and any(isinstance(t, ast.Name) and t.id in ("code", "source_code") for t in b.targets)]
                for value in values:
                    if isinstance(value, ast.Constant) and isinstance(value.value, str) and CODE.match(value.value):
                        found.setdefault(value.value, where)
    return found


def test_every_code_the_code_raises_is_in_the_table():
    found = codes_in_source()
    assert "invalid_input" in found  # the scan finds codes
    assert "provider_blocked" in found
    # "refused" is the base class's placeholder; every refusal we raise names its own code
    missing = {code: where for code, where in found.items() if code not in ERROR_CODES and code != "refused"}
    assert missing == {}


def test_the_error_page_is_generated_from_the_table():
    assert (ROOT / "docs" / "ERRORS.md").read_text("utf-8") == error_table()


def test_an_error_is_the_one_structured_shape():
    err = invalid_input("maxResults must be between 1 and 20", parameter="maxResults", got=0)
    assert isinstance(err, LightSearchError)
    assert err.to_dict() == {"error": {"code": "invalid_input", "message": "maxResults must be between 1 and 20",
                                       "details": {"parameter": "maxResults", "got": 0}}}
