"""Known-item reach: every offline-origins article searched by its own title, each search
cold (empty process caches); counts the articles found in the top 3 (the target: all).

    python benchmarks/known_item.py [--latency 0]
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
from pathlib import Path

from lightsearch.cache import clear_process_caches
from lightsearch.offline_origins.server import OfflineOrigins
from lightsearch.providers.light import LightSearch

SITES = Path(__file__).resolve().parent.parent / "offline_origins" / "sites"


def articles(sites: Path) -> list[tuple[str, str]]:
    """(title, canonical URL) of every article page; the title without the site's suffix."""
    out = []
    for page in sorted(sites.glob("*/articles/*.html")):
        text = page.read_text(encoding="utf-8", errors="replace")
        title = re.search(r"<title>(.*?)</title>", text, re.S)
        canonical = re.search(r'rel="canonical" href="([^"]+)"', text)
        if title and canonical:
            name = html.unescape(title.group(1)).split(" | ")[0].split(" - ")[0].strip()
            out.append((name, canonical.group(1)))
    return out


async def main(latency: float) -> None:
    origins = OfflineOrigins(SITES, latency=latency).start()
    found = 0
    items = articles(SITES)
    try:
        for title, url in items:
            clear_process_caches()
            engine = LightSearch.from_settings({**origins.settings(), "LOG_LEVEL": "ERROR"})
            result = await engine.search(title[:390])
            top = [hit["url"] for hit in result["hits"][:3]]
            if url in top:
                found += 1
            else:
                print(f"miss: {title} {url} top={top}")
    finally:
        origins.stop()
    print(f"known-item top-3: {found}/{len(items)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    asyncio.run(main(parser.parse_args().latency))
