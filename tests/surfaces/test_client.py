"""The synchronous client: blocking calls from a plain script, from threads, and from inside
a running event loop (as a notebook cell runs), many times in one process."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap

import pytest

from lightsearch import Client, LightSearchError

SCRIPT = textwrap.dedent("""
    import asyncio, json, threading
    from lightsearch import Client, LightSearchError

    out = {}
    with Client({"LOG_LEVEL": "ERROR"}, offline=True, environ={}) as client:
        out["plain"] = [h["url"] for h in client.search("photosynthesis calvin cycle", max_results=3)["hits"]]
        results = {}

        def worker(i, query):
            results[i] = len(client.search(query, max_results=2)["hits"])

        threads = [threading.Thread(target=worker, args=(i, q)) for i, q in
                   enumerate(["europa clipper", "sodium-ion batteries", "solar maximum auroras"])]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out["threads"] = [results[i] for i in range(3)]

        async def cell():  # a notebook cell: a loop is running in this thread
            return client.fetch("https://www.nasa.gov/", max_chars=300)

        page = asyncio.run(cell())
        out["fetch"] = [page["title"], len(page["content"])]
        out["fused"] = client.search(["europa clipper", "solar maximum auroras"], max_results=4)["query"]
        out["call"] = client.call("web_search", {"query": "x", "maxResults": 99})["error"]["code"]
        try:
            client.fetch("http://127.0.0.1:6379/")
        except LightSearchError as exc:
            out["error"] = exc.code
        out["again"] = len(client.search("photosynthesis", max_results=2)["hits"])
        out["strict"] = client.definitions("openai-strict")[0]["function"]["strict"]
    print(json.dumps(out))
""")


def test_the_client_works_from_a_script_threads_and_a_running_loop():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert any("Photosynthesis" in url for url in out["plain"])
    assert all(n >= 1 for n in out["threads"])
    assert out["fetch"][1] > 0
    assert out["fetch"][1] <= 300
    assert "europa clipper" in out["fused"]
    assert out["call"] == "invalid_input"
    assert out["error"] in ("blocked_address", "invalid_url")
    assert out["again"] >= 1
    assert out["strict"] is True


def test_every_method_of_a_closed_client_is_the_client_closed_error():
    client = Client({"LOG_LEVEL": "ERROR"}, environ={})
    assert client.definitions("mcp")  # open: it answers
    client.close()
    client.close()  # closing twice is no error
    calls = {
        "search": lambda: client.search("europa clipper"),
        "news": lambda: client.news("grid storage"),
        "fetch": lambda: client.fetch("https://www.nasa.gov/"),
        "call": lambda: client.call("web_search", {"query": "x"}),
        "definitions": lambda: client.definitions("openai"),
        "__enter__": lambda: client.__enter__(),
    }
    public = {name for name, _ in inspect.getmembers(Client, inspect.isfunction) if not name.startswith("_")}
    assert public - {"close"} <= set(calls), "a new Client method needs its case here"
    for name, call in calls.items():
        with pytest.raises(LightSearchError) as caught:
            call()
        assert caught.value.code == "client_closed", name
        assert "closed" in caught.value.message
