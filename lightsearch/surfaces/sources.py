"""``lightsearch sources``: a user's own sites beside the bundled catalog, and the source
descriptions a process starts from.

- ``add URL [--name --language --kind]`` probes the site the way discovery reads it
  (robots.txt, the home page, the feeds it declares, the sitemaps robots.txt lists, its
  language) and writes an entry, with the evidence for each field, into the user catalog
  (``LIGHT_CATALOG_EXTRA``; by default ``$XDG_CONFIG_HOME/lightsearch/sources.json``),
  and the descriptions of what it read beside it (``sources.summary.json``);
- ``list`` prints the user catalog's entries; ``check [ID ...]`` probes them again and
  says what changed or fails; ``remove ID`` takes one out, with its descriptions;
- ``describe`` prebuilds a catalog's source descriptions (a network is needed, or
  recorded feeds and sitemaps with ``--recorded``).

The user catalog is a catalog file of the bundled one's schema; searches read it through
``LIGHT_CATALOG_EXTRA`` (the ``lightsearch`` command sets it to the default file when that
file exists), and the catalog they search then has a corpus id of its own. What it stores
is clean: every string of an entry (a site's name comes from its own home page) passes
:func:`~lightsearch.surfaces.terminal.terminal_text`, so no escape sequence is kept.

``add --allow-private`` is a person's explicit opt-in for a site on their own machine or
network (``http://127.0.0.1:8080/``, an intranet host, a port outside
``LIGHT_ALLOWED_PORTS``), stored with its entry (``"allowPrivate": true``) and applying to
that entry's origins alone (crawl/guard/private.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightsearch.cache.descriptions import (
    SourceDescriptions,
    encode_summary,
    load_summary,
    summary_path,
)
from lightsearch.errors import LightSearchError
from lightsearch.plan.catalog import DEFAULT_CATALOG, load_catalog, parse_catalog
from lightsearch.surfaces.terminal import terminal_text
from lightsearch.timestamps import utc_stamp

USER_CATALOG_ID = "user"


def read_user_catalog(path: Path) -> dict[str, Any]:
    """The user catalog's JSON (an empty one when the file does not exist yet), checked
    against the catalog schema so a hand edit that broke it is reported, not overwritten."""
    if not path.exists():
        return {"id": USER_CATALOG_ID, "version": "1",
                "description": "A user's own sources, added with `lightsearch sources add`.", "sources": []}
    load_catalog(path, allow_empty=True, user=True)  # raises invalid_catalog naming the field
    return json.loads(path.read_text(encoding="utf-8"))


def write_user_catalog(path: Path, data: dict[str, Any]) -> None:
    parse_catalog(data, str(path), allow_empty=True, user=True)  # never write what cannot be read back
    path.parent.mkdir(parents=True, exist_ok=True)
    data["version"] = utc_stamp().replace(":", "").replace("-", "")  # a new corpus id for every change
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _summary_of(path: Path) -> tuple[SourceDescriptions, dict[str, Sequence[str]]]:
    """A copy of the descriptions beside the user catalog (the loaded ones are shared)."""
    beside = summary_path(None, str(path))
    summary = load_summary(beside) if beside else None
    copy = SourceDescriptions()
    if summary is None:
        return copy, {}
    for sid in list(summary.descriptions.documents):
        for doc in summary.descriptions.of(sid):
            copy.put(sid, doc)
    return copy, dict(summary.origins)


def _write_summary(path: Path, descriptions: SourceDescriptions, origins: Mapping[str, Sequence[str]],
                   data: dict[str, Any]) -> None:
    target = path.with_suffix(".summary.json")
    text = encode_summary(descriptions, catalog={"id": data["id"], "version": data["version"]}, origins=origins)
    target.write_text(text, encoding="utf-8")


def clean(value: Any) -> Any:
    """An entry as it is stored: every string (keys too) as a terminal shows it."""
    if isinstance(value, str):
        return terminal_text(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    return value


async def add(path: Path, url: str, overrides: Mapping[str, Any], *, name: str | None = None,
              language: str | None = None, kind: str | None = None, allow_private: bool = False) -> dict[str, Any]:
    from lightsearch.providers.describe import probe_source

    data = read_user_catalog(path)
    base = load_catalog(overrides.get("LIGHT_CATALOG"))
    probe = await probe_source(url, overrides, name=name, language=language, kind=kind,
                               allow_private=allow_private)
    entry = clean(probe.entry)
    for source in base.sources:
        if source.id == entry["id"] or set(source.origins) & set(entry["origins"]):
            raise LightSearchError("invalid_input", f"{url} is already in the catalog as {source.id}",
                                   {"parameter": "URL"})
    for existing in data["sources"]:
        if set(existing.get("origins", [])) & set(entry["origins"]) or existing.get("id") == entry["id"]:
            raise LightSearchError("invalid_input", f"{url} is already in the user catalog as {existing.get('id')} "
                                   "(`lightsearch sources check` probes it again)", {"parameter": "URL"})
    data["sources"].append(entry)
    descriptions, origins = _summary_of(path)
    for doc in probe.described.descriptions.of(entry["id"]):
        descriptions.put(entry["id"], doc)
    origins[entry["id"]] = entry["origins"]
    write_user_catalog(path, data)
    _write_summary(path, descriptions, origins, data)
    return {"added": entry, "catalog": str(path), "sourceErrors": probe.described.errors[:10]}


def remove(path: Path, source_id: str) -> dict[str, Any]:
    data = read_user_catalog(path)
    kept = [s for s in data["sources"] if s.get("id") != source_id]
    if len(kept) == len(data["sources"]):
        raise LightSearchError("invalid_input", f"no source {source_id!r} in the user catalog {path}",
                               {"parameter": "ID"})
    data["sources"] = kept
    descriptions, origins = _summary_of(path)
    descriptions.documents.pop(source_id, None)
    origins.pop(source_id, None)
    write_user_catalog(path, data)
    _write_summary(path, descriptions, origins, data)
    return {"removed": source_id, "catalog": str(path)}


def entries(path: Path) -> list[dict[str, Any]]:
    return list(read_user_catalog(path)["sources"])


async def check(path: Path, overrides: Mapping[str, Any], ids: Sequence[str] = ()) -> dict[str, Any]:
    """Probe each entry again: what still holds, what changed, what fails now."""
    from lightsearch.providers.describe import probe_source

    report = []
    for entry in entries(path):
        if ids and entry.get("id") not in ids:
            continue
        row: dict[str, Any] = {"id": entry.get("id"), "url": entry["seeds"][0]}
        try:
            probe = await probe_source(entry["seeds"][0], overrides, name=entry.get("name"),
                                       language=entry.get("language"), kind=entry.get("kind"),
                                       source_id=entry.get("id"), allow_private=entry.get("allowPrivate") is True)
        except LightSearchError as exc:
            row.update(status="failing", code=exc.code, message=exc.message)
        else:
            now = probe.entry
            changes = {key: {"catalog": entry.get(key, []), "now": now[key]} for key in ("feeds", "sitemaps")
                       if sorted(entry.get(key, [])) != sorted(now[key])}
            row.update(status="changed" if changes else "ok", changes=changes,
                       sourceErrors=probe.described.errors[:10])
        report.append(row)
    missing = sorted(set(ids) - {r["id"] for r in report})
    if missing:
        raise LightSearchError("invalid_input", f"no source {missing[0]!r} in the user catalog {path}",
                               {"parameter": "ID"})
    return {"catalog": str(path), "sources": report}


async def describe_catalog(overrides: Mapping[str, Any], *, catalog_path: str | None, out: Path | None,
                           recorded: Path | None, data_dir: Path | None) -> dict[str, Any]:
    """Prebuild a catalog's summary: from the sites (a network), or from recorded feeds and
    sitemaps (``recorded``: a JSON map of URL -> file under ``data_dir``).

    It is written to ``out``; else beside a catalog file of the user's own, and for the
    bundled catalog to ``catalog.summary.json`` in the user's configuration folder, which
    the ``lightsearch`` command then reads (never into the installed package: its files
    are the package's)."""
    from lightsearch.providers.describe import describe_recorded, describe_sources, write_summary
    from lightsearch.surfaces.environment import default_user_summary

    catalog = load_catalog(catalog_path)
    use = None
    if out is not None:
        target = out
    elif Path(catalog.path).resolve() != DEFAULT_CATALOG.resolve():
        target = Path(catalog.path).with_suffix(".summary.json")
    else:
        user = default_user_summary()
        if user is None:
            raise LightSearchError("invalid_input", "no configuration folder to write the summary in (HOME is not "
                                   "set): give --out", {"parameter": "--out"})
        target = user
        use = f"the lightsearch command, its MCP server and serve read it from there (LIGHT_SOURCE_SUMMARY={target})"
    if recorded is not None:
        try:
            mapping = json.loads(recorded.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise LightSearchError("invalid_input", f"--recorded {recorded}: {exc}",
                                   {"parameter": "--recorded"}) from None
        base = data_dir or recorded.parent
        files = {url: base / rel for url, rel in mapping.items() if isinstance(rel, str) and not url.startswith("_")}
        missing = [str(p) for p in files.values() if not p.is_file()]
        if missing:
            raise LightSearchError("invalid_input", f"recorded file not found: {missing[0]} (--data)",
                                   {"parameter": "--data"})
        described = describe_recorded(catalog, files)
        note = f"described from recorded discovery documents ({recorded.name})"
    else:
        described = await describe_sources(catalog, overrides)
        note = "described from the sites"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_summary(target, catalog, described, note=note)
    except OSError as exc:
        raise LightSearchError("invalid_input", f"cannot write the summary {target}: {exc} (give --out)",
                               {"parameter": "--out"}) from None
    return {"summary": str(target), "catalog": catalog.corpus_id, "documents": described.documents,
            "sources": len(described.descriptions.documents), "sourceErrors": described.errors[:20],
            **({"use": use} if use else {})}
