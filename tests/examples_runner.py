"""Run the documentation's examples in one process, offline: ``python tests/examples_runner.py``
reads a job list (JSON) on stdin and writes one JSON line per job on stdout.

A job is a command line (``scrapy ...`` or ``lightsearch ...``, run through the command's
own entry point: ``scrapy.cmdline.execute``, ``lightsearch.surfaces.cli.main``) or a Python
block (run as a script, with the arguments its text asks for). What a person's run would
have that one process shares is made to match it:

* the network is the offline origins: one server, started here (with the sites a test
  adds, such as the ``example.org`` pages the fetch examples read), is the installation's
  default configuration (``LIGHT_HOST_MAP``, ``LIGHT_HOST_MAP_ONLY``, the test CA set in
  ``lightsearch.settings``), beneath whatever a command line or a script sets; a command's
  ``--offline`` and a script's ``OfflineOrigins()`` get the same server (starting one per
  example costs a second each);
* every ``asyncio.run()`` runs on this process's one event loop (the reactor belongs to
  the first loop it runs on, and a person runs each example in a process of its own);
* each job starts with the process caches empty, as a new process would.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import sys
import time
import traceback
from typing import Any


class _SharedOrigins:
    """What ``OfflineOrigins()`` gives an example here: the one server, already running."""

    def __init__(self, origins: Any) -> None:
        self._origins = origins

    def start(self) -> _SharedOrigins:
        return self

    def stop(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._origins, name)


def _offline(sites: dict[str, dict[str, Any]]) -> Any:
    import lightsearch.offline_origins.server as server
    import lightsearch.settings as defaults

    origins = server.OfflineOrigins().start()
    for host, routes in sites.items():
        origins.add_site(host, routes)
    for key, value in origins.settings().items():
        setattr(defaults, key, value)
    shared = _SharedOrigins(origins)
    server.OfflineOrigins = lambda *args, **kwargs: shared  # type: ignore[assignment, misc]
    return origins


def _one_loop() -> None:
    loop = asyncio.new_event_loop()

    def run(main: Any, *, debug: bool | None = None, loop_factory: Any = None) -> Any:
        return loop.run_until_complete(main)

    asyncio.run = run  # type: ignore[assignment]


def _command(argv: list[str]) -> int:
    if argv[0] == "scrapy":
        from scrapy.cmdline import execute

        execute(argv)
        return 0
    from lightsearch.surfaces.cli import main

    return main(argv[1:])


def _script(code: str, name: str, args: list[str]) -> int:
    sys.argv = [name, *args]
    exec(compile(code, name, "exec"), {"__name__": "__main__", "__file__": name})
    return 0


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    from lightsearch.cache import clear_process_caches

    clear_process_caches()
    started = time.monotonic()
    out, err = io.StringIO(), io.StringIO()
    saved = {key: os.environ.get(key) for key in job.get("env", {})}
    os.environ.update(job.get("env", {}))
    error = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if job["kind"] == "command":
                    code = _command(job["argv"])
                else:
                    code = _script(job["code"], job["name"], job.get("args", []))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                code, error = 1, traceback.format_exc()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return {"id": job["id"], "code": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "error": error,
            "secs": round(time.monotonic() - started, 2)}


def main() -> None:
    spec = json.load(sys.stdin)
    report = sys.stdout
    origins = _offline(spec.get("sites", {}))
    _one_loop()
    try:
        for job in spec["jobs"]:
            print(json.dumps(run_job(job)), file=report, flush=True)
    finally:
        origins.stop()


if __name__ == "__main__":
    main()
