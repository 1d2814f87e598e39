"""The guides' embedding examples (docs/AGENTS.md, docs/USING.md) run as written, offline: the
bundled offline origins."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.surfaces.test_mcp_server import clean_env
from tests.surfaces.test_web import OPENER

ROOT = Path(__file__).resolve().parents[1]


def example(name: str) -> str:
    guides = "".join((ROOT / "docs" / page).read_text("utf-8") for page in ("AGENTS.md", "USING.md"))
    m = re.search(rf"<!-- example: {name} -->\n```\w+\n(.*?)```", guides, re.S)
    assert m, name
    return m.group(1)


def run_script(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / f"{name}.py"
    path.write_text(example(name), "utf-8")
    return subprocess.run([sys.executable, str(path), *args], env=clean_env(), capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)


def test_asyncio_agent_loop_runs(tmp_path):
    done = run_script(tmp_path, "asyncio_loop", "--offline")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("web_search: Web search results for: artemis lander refuel")
    assert lines[1].startswith("web_fetch: ")  # the textual call, repaired and dispatched
    assert lines[2].startswith("Answer, citing https://www.nasa.gov/")


def test_twisted_program_runs(tmp_path):
    done = run_script(tmp_path, "twisted_program", "--offline")
    assert done.returncode == 0, done.stderr
    assert "https://www.nasa.gov/" in done.stdout


def test_mcp_config_starts_the_stdio_server():
    config = json.loads(example("mcp_config"))["mcpServers"]["lightsearch"]
    assert config["command"] == "lightsearch"
    assert config["args"] == ["mcp"]
    script = Path(sys.executable).with_name("lightsearch")
    assert script.exists()
    # initialize + tools/list over stdio with the configured command line
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    proc = subprocess.Popen([str(script), *config["args"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=clean_env(**config["env"]), text=True)
    answers: dict = {}
    try:
        # stdin stays open until the last answer: EOF ends the session, answered or not
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        while 2 not in answers:
            line = proc.stdout.readline()
            assert line, "the server closed stdout early"
            message = json.loads(line)
            answers[message.get("id")] = message
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()
    assert answers[1]["result"]["serverInfo"]["name"] == "lightsearch"
    assert [t["name"] for t in answers[2]["result"]["tools"]] == ["web_search", "web_news", "web_fetch"]


def test_starlette_app_mounts_the_invoke_endpoint(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "myapp.py").write_text(example("starlette_app"), "utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "myapp:app", "--loop", "asyncio", "--port", str(port),
                             "--log-level", "warning"], cwd=tmp_path, env=clean_env(), stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/api/skills/invoke"
        body = json.dumps({"name": "web.fetch", "input": {"url": "http://10.1.2.3/"}}).encode()
        for _ in range(100):
            try:
                request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
                with OPENER.open(request, timeout=10) as response:
                    answer = json.loads(response.read())
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("the app did not start")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # No network: a private address is refused by the transport guard before any connection.
    assert answer["ok"] is False
    assert answer["error"]["code"] in ("blocked_address", "invalid_url")


def test_sync_client_example_runs_offline(tmp_path):
    done = run_script(tmp_path, "sync_client", "--offline")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any("hits" in line and "sodium-ion batteries" in line for line in lines)
    assert len(lines) >= 4
