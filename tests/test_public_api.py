"""The public API is exactly ``lightsearch.__all__``, each name resolves, and importing the
package imports none of Scrapy's crawler machinery."""

from __future__ import annotations

import subprocess
import sys

import lightsearch

PUBLIC = ["Client", "LightSearch", "LightSearchError", "SearchCancelled", "Toolbox", "WebFetch",
          "definitions", "dispatch", "load_provider", "repair"]


def test_the_public_names_are_pinned():
    assert sorted(lightsearch.__all__) == sorted(PUBLIC)


def test_every_public_name_resolves():
    for name in lightsearch.__all__:
        assert getattr(lightsearch, name) is not None, name
    assert issubclass(lightsearch.SearchCancelled, lightsearch.LightSearchError)


def test_importing_the_package_does_not_import_scrapys_crawler():
    code = "import sys, lightsearch; print('scrapy.crawler' in sys.modules, 'twisted.internet.reactor' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "False"]
