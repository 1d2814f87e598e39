"""How every command ends: exit statuses, error lines, no tracebacks, closed pipes, Ctrl-C.

The discipline itself is tested in-process; what needs a real signal or a real pipe runs
the real commands (``lightsearch`` and ``scrapy``) as a person does: Ctrl-C is SIGINT to
the command's whole process group, as a terminal sends it, once the command is at work
(its request has reached the offline origins); a closed pipe is a stdout whose reader
has gone before the command writes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.surfaces.exits import INTERRUPTS, run_command, status_of
from tests.conftest import ROBOTS_ALLOW, article_html, write_catalog
from tests.surfaces.test_mcp_server import CLI, clean_env, setting_args

WAIT = 120  # generous: a busy machine is slow, never stuck


def test_errors_are_one_line_or_json_with_the_status_of_their_code(capsys):
    def bad_value() -> int:
        raise LightSearchError("invalid_input", "maxResults must be between 1 and 20", {"parameter": "maxResults"})

    assert run_command(bad_value) == 2
    assert capsys.readouterr().err == "ERROR: invalid_input: --max-results must be between 1 and 20\n"
    assert run_command(bad_value, output="json") == 2
    assert json.loads(capsys.readouterr().out)["error"]["details"]["flag"] == "--max-results"

    def page() -> int:
        raise LightSearchError("blocked_address", "127.0.0.1 is not a public address (loopback)")

    assert run_command(page) == 1
    assert status_of("invalid_settings") == 2
    assert status_of("network_error") == 1


def test_an_unexpected_error_has_no_traceback_unless_asked_for(capsys):
    def bug() -> int:
        return {}["missing"]

    assert run_command(bug) == 1
    err = capsys.readouterr().err
    assert err.startswith("ERROR: internal_error: unexpected KeyError: ")
    assert "Traceback" not in err
    assert "--debug" in err
    assert run_command(bug, debug=True) == 1
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_the_sigint_handler_is_the_commands_only_while_it_runs():
    before = signal.getsignal(signal.SIGINT)
    seen = []
    assert run_command(lambda: seen.append(signal.getsignal(signal.SIGINT)) or 0) == 0
    assert seen == [INTERRUPTS.handler]
    assert signal.getsignal(signal.SIGINT) is before


# ------------------------------------------------------------------------------ Ctrl-C
STUCK = textwrap.dedent("""
    import asyncio, sys, threading
    from lightsearch.surfaces.exits import run_async, run_command

    async def stuck():
        # a cleanup that never ends (a crawl that will not stop), and a thread the
        # interpreter's exit would wait for forever
        threading.Thread(target=threading.Event().wait).start()
        print("ready", flush=True)
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass

    sys.exit(run_command(lambda: run_async(stuck())))
""")


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_ends_even_a_command_that_will_not_stop(presses):
    proc = subprocess.Popen([sys.executable, "-c", STUCK], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    assert proc.stdout.readline() == "ready\n"
    for _ in range(presses):
        os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 130
    assert err == ""


@pytest.fixture
def slow_world(origins, tmp_path):
    """A catalog of one source whose home page takes a minute: a search is at work (and
    stays so) once that page is asked for."""
    host = "slow-search.example"
    origins.add_site(host, {"/robots.txt": ROBOTS_ALLOW,
                            "/": {"body": article_html("Europa Clipper auroras"), "delay": 60}})
    catalog = write_catalog(tmp_path / "slow.json", [{
        "id": "slow", "name": "Slow", "language": "en", "kind": "science", "origins": [f"https://{host}"],
        "seeds": [f"https://{host}/"], "topics": ["europa", "clipper", "auroras"]}])
    origins.reset_log()
    settings = {**origins.settings(), "LIGHT_CATALOG": catalog, "LIGHT_SOURCE_SUMMARY": "", "LOG_LEVEL": "ERROR"}
    return host, setting_args(settings)


def interrupt_when_asked(origins, host: str, argv: list[str], tmp_path) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=clean_env(), start_new_session=True)
    try:
        deadline = time.monotonic() + WAIT
        while not any(r["path"] == "/" for r in origins.requests_for(host)):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the search never asked for the page"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def test_ctrl_c_during_a_search_is_130_and_silent(origins, slow_world, tmp_path):
    host, settings = slow_world
    done = interrupt_when_asked(origins, host, [*CLI, "search", *settings, "europa clipper auroras"], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "")


def test_ctrl_c_during_scrapy_search_is_130_and_silent(origins, slow_world, tmp_path):
    host, settings = slow_world
    argv = [sys.executable, "-m", "scrapy", "search", *settings, "europa clipper auroras"]
    done = interrupt_when_asked(origins, host, argv, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "")


# ------------------------------------------------------------------------------ closed pipes
def closed_stdout(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run ``argv`` with a stdout whose reader is gone, as ``| head -3`` leaves it."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(argv, stdout=write, stderr=subprocess.PIPE, text=True, timeout=WAIT,
                              env=clean_env(), **kwargs)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [["tools"], ["sources", "list", "-o", "json", "--file"]])
def test_a_closed_pipe_is_silent(args, tmp_path):
    if args[-1] == "--file":
        args = [*args, str(tmp_path / "sources.json")]
    done = closed_stdout([*CLI, *args])
    assert (done.returncode, done.stderr) == (141, "")


def test_a_closed_pipe_is_silent_for_scrapy_read(tmp_path):
    """Its answer, here the error of a refused address, meets the closed pipe."""
    done = closed_stdout([sys.executable, "-m", "scrapy", "read", "-o", "json", "http://127.0.0.1/"], cwd=tmp_path)
    assert (done.returncode, done.stderr) == (141, "")
