"""``scrapy read`` as a user runs it, from outside the project, through Scrapy's entry point
in this process (the ``read`` fixture); its run as a process of its own is
tests/surfaces/test_exits.py's (a closed pipe).

The pages are served on loopback by the session's offline origins: a real recorded
article read from the shared data at run time (never copied into the project), and the
``walls.example`` fixtures. The process reaches them only through ``-s LIGHT_HOST_MAP``.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest

from tests.conftest import ROBOTS_ALLOW, shared_data

ARTICLE_ID = "c7e39ac49fa1235f5d50f83bf2444248bd3aa4e6df044377916c812dd109ba23"  # BBC, Assange
HOST = "news.recorded.test"
PATH = "/news/world-europe-50473792"


@pytest.fixture
def recorded(origins):
    bench = shared_data("article-extraction-benchmark")
    html = gzip.decompress((bench / "html" / f"{ARTICLE_ID}.html.gz").read_bytes())
    truth = json.loads((bench / "ground-truth.json").read_text(encoding="utf-8"))[ARTICLE_ID]
    origins.add_site(HOST, {"/robots.txt": ROBOTS_ALLOW, PATH: {"body": html}})
    return truth["articleBody"]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def test_json_on_a_recorded_article_has_title_and_body(recorded, tmp_path, read):
    proc = read("-o", "json", "--max-chars", "100000", f"https://{HOST}{PATH}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["title"] == "Sweden drops Assange rape investigation"  # the page's og:title
    truth, got = _words(recorded), _words(result["content"])
    assert sum(w in set(got) for w in truth) / len(truth) > 0.95  # the article body...
    assert len(got) < 1.3 * len(truth)  # ...and not the page chrome around it
    assert " ".join(truth[:12]) in " ".join(got)
    assert result["url"] == f"https://{HOST}{PATH}"
    assert result["meta"]["webSources"]["entries"][0]["presentation"] == "content"
    assert result["trust"] == "volatile_external"


def test_text_on_a_recorded_article_is_fenced_and_bounded(recorded, tmp_path, read):
    proc = read("-o", "text", "--max-chars", "500", f"https://{HOST}{PATH}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Fetched web page | status 200")
    assert "title: Sweden drops Assange rape investigation" in lines
    assert "run the command again with --start-index 500]" in proc.stdout


def test_cookie_wall_is_an_error_in_both_forms(tmp_path, read):
    proc = read("-o", "json", "https://walls.example/cookie-wall", cwd=tmp_path)
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "paywall_or_cookie_wall"
    assert set(error) == {"code", "message", "details"}
    proc = read("http://169.254.169.254/latest/meta-data/", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""  # for people: the one line on stderr
    assert proc.stderr.splitlines()[0].startswith("ERROR: blocked_address:")


def test_usage_needs_a_url(tmp_path, scrapy):
    proc = scrapy(cwd=tmp_path, name="read")
    assert proc.returncode == 2
    assert "a URL is required" in proc.stderr
