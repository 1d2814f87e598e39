"""Every example in README.md and docs/*.md runs as written, offline: a doc cannot drift.

Each fenced block is collected and is one of:

* ``text``: not an example (a diagram, a synopsis);
* ``json``: parsed (the desktop agent's MCP configuration is also started, below);
* ``python``: run. A block under ``<!-- example: NAME -->`` runs in a test of its own below,
  which checks what it prints (and that a script exits by itself); the others run in
  :func:`test_the_examples_run_offline`;
* ``sh``: each command line is a ``scrapy``/``lightsearch`` command, a ``curl`` to the invoke
  endpoint, or a step that prepares the machine (:data:`MACHINE_STEPS`: installing,
  starting Redis, running the suite), which is not run. Commands run in one process
  (``tests/examples_runner.py``), through the commands' own entry points, with the offline
  origins as the network: a command that names live sites reads them there. A server
  (``lightsearch serve``, ``lightsearch mcp``) is started by its own test; a command the doc
  marks ``<!-- example: parsed only: PREFIX; PREFIX: REASON -->`` (or a block marked
  ``<!-- example: not run: REASON -->``) cannot run offline or in the suite's time, says
  why, and is parsed by its command's own parser, so a flag that does not exist fails here.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import SHARED_DATA
from tests.serving.test_app import OPENER
from tests.surfaces.test_mcp_server import clean_env

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
MARK = re.compile(r"<!-- example: (?P<mark>.+?) -->\s*$")
# Steps that prepare a machine rather than use lightsearch: listed, never run.
MACHINE_STEPS = ("python3 -m venv", ". ", "source ", "pip install", "python -m pytest", "redis-server", "export ")
# The blocks run by a test of their own below.
NAMED = {"offline_script", "asyncio_loop", "twisted_program", "mcp_config", "starlette_app", "sync_client",
         "app_spiders"}


@dataclass
class Block:
    page: str
    line: int
    lang: str
    body: str
    mark: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def name(self) -> str | None:
        return self.mark if self.mark in NAMED else None


@dataclass
class Command:
    where: str
    text: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    parsed_only: str | None = None  # why it is not run


@functools.cache
def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for m in BLOCK.finditer(text):
            before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            mark = MARK.match(before)
            found.append(Block(str(page.relative_to(ROOT)), text[: m.start()].count("\n") + 1, m["lang"], m["body"],
                               mark["mark"] if mark else None))
    return found


def example(name: str) -> str:
    named = [b for b in blocks() if b.name == name]
    assert len(named) == 1, name
    return named[0].body


def command_lines(body: str) -> list[str]:
    """The block's command lines: continuations joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", body)
    lines = []
    for raw in joined.splitlines():
        words = shlex.split(raw, comments=True)
        if words:
            lines.append(raw)
    return lines


def commands(block: Block) -> tuple[list[Command], list[str]]:
    """The block's lightsearch commands (``a && b`` is two lines) and its machine steps."""
    parsed_only: dict[str, str] = {}
    whole = None
    if block.mark and block.mark.startswith("parsed only: "):
        prefixes, _, why = block.mark[len("parsed only: "):].partition(": ")
        parsed_only = {prefix.strip(): why for prefix in prefixes.split(";")}
    elif block.mark and block.mark.startswith("not run: "):
        whole = block.mark[len("not run: "):]
    found, steps = [], []
    for line in command_lines(block.body):
        for part in re.split(r"\s&&\s", line):
            part = part.strip()
            if part.startswith(MACHINE_STEPS):
                steps.append(part)
                continue
            words = shlex.split(part, comments=True)
            env = {}
            while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                key, _, value = words.pop(0).partition("=")
                env[key] = value
            cmd = " ".join(words)
            why = whole or next((w for prefix, w in parsed_only.items() if cmd.startswith(prefix)), None)
            found.append(Command(block.where, re.sub(r"\s+#.*$", "", part), words, env, why))
    return found, steps


# ------------------------------------------------------------------ what every block is
def test_every_block_is_an_example_that_runs_or_says_why_not():
    unknown = []
    for block in blocks():
        if block.mark and not (block.name or block.mark.startswith(("parsed only: ", "not run: "))):
            unknown.append(f"{block.where}: unknown mark {block.mark!r}")
        if block.lang not in ("text", "json", "python", "sh"):
            unknown.append(f"{block.where}: a block needs a language: text, json, python or sh")
        if block.lang == "json":
            json.loads(block.body)
        if block.lang == "sh":
            for cmd in commands(block)[0]:
                if not cmd.argv or cmd.argv[0] not in ("scrapy", "lightsearch", "curl"):
                    unknown.append(f"{cmd.where}: {cmd.text!r} is no command the examples test runs")
    assert unknown == []
    names = {b.name for b in blocks() if b.name}
    assert names == NAMED  # every named example has its test, and every test its example
    # the README's agent configuration is the one the MCP test starts
    readme = [b for b in blocks() if b.page == "README.md" and b.lang == "json"]
    assert [json.loads(b.body) for b in readme] == [json.loads(example("mcp_config"))]


def _scrapy_parser(name: str):
    """The ``scrapy NAME`` command's own option parsing, as ``scrapy.cmdline`` runs it."""
    import argparse
    from importlib.metadata import entry_points

    from scrapy.commands import ScrapyHelpFormatter
    from scrapy.settings import Settings

    (point,) = [p for p in entry_points(group="scrapy.commands") if p.name == name]
    cmd = point.load()()
    cmd.settings = Settings(cmd.default_settings)
    parser = argparse.ArgumentParser(formatter_class=ScrapyHelpFormatter, conflict_handler="resolve")
    cmd.add_options(parser)

    def parse(args: list[str]) -> None:
        opts, rest = parser.parse_known_args(args)
        cmd.process_options(rest, opts)

    return parse


def parse_command(argv: list[str]) -> None:
    """Parse ``argv`` as its command would, raising on a usage error."""
    if argv[0] == "scrapy":
        _scrapy_parser(argv[1])(argv[2:])
        return
    from lightsearch.surfaces.cli import parse

    opts = parse(argv[1:])
    if opts.command == "evaluate":
        _scrapy_parser("evaluate")(opts.args)


def test_what_is_not_run_parses_with_its_command():
    """Servers, and what the doc marks as not run offline, are at least parsed: their flags
    exist and their values are ones the command takes."""
    parsed = 0
    for block in blocks():
        if block.lang != "sh":
            continue
        for cmd in commands(block)[0]:
            if cmd.argv[0] == "curl" or not (cmd.parsed_only or cmd.argv[1] in ("serve", "mcp")):
                continue
            try:
                parse_command(cmd.argv)
            except SystemExit as exc:
                raise AssertionError(f"{cmd.where}: {cmd.text!r} is a usage error") from exc
            parsed += 1
    assert parsed >= 10


# ------------------------------------------------------------------ the examples, run
def _long_page(title: str, paragraphs: int) -> str:
    body = "".join(f"<p>Paragraph {i} of the {title.lower()} notes: tidal streams, turbine rows and the "
                   f"harbour survey of week {i}, written out in full so that the page runs long.</p>"
                   for i in range(paragraphs))
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><article><h1>{title}</h1>{body}</article></body></html>")


def example_org() -> dict[str, dict]:
    """The pages docs/WEB_FETCH.md reads on example.org, served by the offline origins."""
    from tests.pdfs import make_pdf

    pdf = make_pdf(["Tidal power, page one: the survey.", "Page two: the turbine rows."], title="Tidal survey")
    return {"/robots.txt": {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"},
            "/": {"body": _long_page("Example home", 3)},
            "/article": {"body": _long_page("An article", 12)},
            "/long": {"body": _long_page("A long page", 120)},
            "/a": {"body": _long_page("Page A", 6)},
            "/b": {"body": _long_page("Page B", 6)},
            "/paper.pdf": {"body": pdf.decode("latin-1"), "encoding": "latin-1", "type": "application/pdf"}}


def runnable() -> tuple[list[Command], list[Block]]:
    cmds, seen = [], set()
    for block in blocks():
        if block.lang != "sh":
            continue
        for cmd in commands(block)[0]:
            if cmd.parsed_only or cmd.argv[0] == "curl" or cmd.argv[1] in ("serve", "mcp") \
                    or (cmd.text, tuple(cmd.env.items())) in seen:
                continue
            if "--world" in cmd.argv and not SHARED_DATA.exists():
                continue  # a world is built from the shared data, which this checkout has not beside it
            seen.add((cmd.text, tuple(cmd.env.items())))
            cmds.append(cmd)
    scripts = [b for b in blocks() if b.lang == "python" and (b.name is None or b.name == "asyncio_loop")]
    return cmds, scripts


def run_examples(tmp_path: Path, cmds: list[Command], scripts: list[Block]) -> dict[str, dict]:
    jobs = [{"id": f"{c.where} {c.text}", "kind": "command", "argv": c.argv, "env": c.env} for c in cmds]
    for block in scripts:
        args = ["--offline"] if '"--offline" in sys.argv' in block.body else []
        jobs.append({"id": block.where, "kind": "python", "code": block.body, "name": f"{block.name or 'example'}.py",
                     "args": args})
    spec = json.dumps({"sites": {"example.org": example_org()}, "jobs": jobs})
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "examples_runner.py")], input=spec,
                          capture_output=True, text=True, timeout=240, cwd=tmp_path, env=clean_env())
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"id"')]
    return {r["id"]: r for r in reports}


def test_the_examples_run_offline(tmp_path):
    cmds, scripts = runnable()
    assert len(cmds) >= 12
    results = run_examples(tmp_path, cmds, scripts)
    assert len(results) == len(cmds) + len(scripts)
    failed = [f"{key}: exit {r['code']}\n{r['error'] or (r['stderr'] + r['stdout'])[-1500:]}"
              for key, r in results.items() if r["code"] != 0 or r["error"]]
    assert failed == [], "\n\n".join(failed)
    for cmd in cmds:
        result = results[f"{cmd.where} {cmd.text}"]
        assert "Traceback" not in result["stderr"], cmd.text
        if "-o json" in cmd.text:
            json.loads(result["stdout"])
    outputs = {c.text: results[f"{c.where} {c.text}"]["stdout"] for c in cmds}
    assert "Europa Clipper" in outputs['lightsearch search --offline "europa clipper"']
    assert "pdfPages" in outputs["scrapy read https://example.org/a https://example.org/paper.pdf"] \
        or "Page 1 of 2" in outputs["scrapy read https://example.org/a https://example.org/paper.pdf"]
    agent = results[next(b.where for b in scripts if b.name == "asyncio_loop")]["stdout"].splitlines()
    assert agent[0].startswith("web_search: Web search results for: artemis lander refuel")
    assert agent[1].startswith("web_fetch: ")  # the textual call, repaired and dispatched
    assert agent[2].startswith("Answer, citing https://www.nasa.gov/")


def run_script(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    path = tmp_path / f"{name}.py"
    path.write_text(example(name), "utf-8")
    return subprocess.run([sys.executable, str(path), *args], env=clean_env(), capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)


def test_the_readme_script_runs_offline_and_exits_by_itself(tmp_path):
    done = run_script(tmp_path, "offline_script")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any("wikipedia.org/wiki/Photosynthesis" in line for line in lines)
    assert lines[-1].startswith("NASA")


def test_twisted_program_runs(tmp_path):
    done = run_script(tmp_path, "twisted_program", "--offline")
    assert done.returncode == 0, done.stderr
    assert "https://www.nasa.gov/" in done.stdout


def test_an_app_with_its_own_spiders_searches_beside_them(tmp_path):
    done = run_script(tmp_path, "app_spiders", "--offline")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    items = [line for line in lines if line.startswith("{'headline'")]
    assert len(items) == 2  # the app's spider scraped its items, searching as it went
    assert all("https://www.nasa.gov/missions/" in line for line in items)
    assert lines[-1].startswith("NASA")  # the fetch beside it


def test_sync_client_example_runs_offline(tmp_path):
    done = run_script(tmp_path, "sync_client", "--offline")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert any("hits" in line and "sodium-ion batteries" in line for line in lines)
    assert len(lines) >= 4


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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, body: bytes, within: float = 120.0) -> dict:
    """The first answer at ``url`` of a server starting up (a busy machine starts a process
    in tens of seconds; the test fails after ``within``)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            request = urllib.request.Request(url, data=body, headers={"content-type": "application/json"})
            with OPENER.open(request, timeout=30) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:  # it answers
            return json.loads(exc.read() or b"{}")
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing answered at {url}")


def test_starlette_app_mounts_the_invoke_endpoint(tmp_path):
    port = free_port()
    (tmp_path / "myapp.py").write_text(example("starlette_app"), "utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "myapp:app", "--loop", "asyncio", "--port", str(port),
                             "--log-level", "warning"], cwd=tmp_path, env=clean_env(), stderr=subprocess.DEVNULL)
    try:
        body = json.dumps({"name": "web.fetch", "input": {"url": "http://10.1.2.3/"}}).encode()
        answer = wait_for(f"http://127.0.0.1:{port}/api/skills/invoke", body)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    # No network: a private address is refused by the transport guard before any connection.
    assert answer["ok"] is False
    assert answer["error"]["code"] in ("blocked_address", "invalid_url")


def test_serve_answers_the_invoke_example_with_curl(tmp_path):
    """``lightsearch serve`` as the docs start it (on a free port, over the offline origins)
    answers the docs' ``curl`` call of the invoke endpoint."""
    serve = next(c for b in blocks() if b.lang == "sh" for c in commands(b)[0] if c.argv[:2] == ["lightsearch", "serve"])
    curl = next(c for b in blocks() if b.lang == "sh" for c in commands(b)[0] if c.argv[0] == "curl")
    port, documented = free_port(), serve.argv[serve.argv.index("--port") + 1]
    script = Path(sys.executable).with_name("lightsearch")
    argv = [str(script), *[str(port) if a == documented else a for a in serve.argv[1:]], "--offline"]
    proc = subprocess.Popen(argv, cwd=tmp_path, env=clean_env(), stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{port}/api/skills/invoke", b"{}")  # up: it answers, a 400 for no call
        call = [a.replace(f"127.0.0.1:{documented}/", f"127.0.0.1:{port}/") for a in curl.argv]
        env = {k: v for k, v in clean_env().items() if "proxy" not in k.lower()}  # loopback, never a proxy
        done = subprocess.run(call, capture_output=True, text=True, timeout=120, env=env)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["ok"] is True, answer
    assert answer["output"]["query"] == "europa clipper"
    assert answer["output"]["hits"]
