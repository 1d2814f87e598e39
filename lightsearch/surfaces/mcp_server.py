"""The MCP server, on the official ``mcp`` SDK's low-level server: ``lightsearch mcp``
(stdio) and the ``/mcp`` endpoint of ``lightsearch serve`` (streamable HTTP).

Tools and their schemas come from the toolbox (:mod:`lightsearch.surfaces.toolbox`; for
stdio one built on its first call, so a client is answered before the crawler is loaded): a call
returns the envelope as ``structuredContent`` plus one text item, the bounded fenced text
a model reads; a tool failure is a result with ``isError: true`` and the structured error,
never a protocol error. A call that runs longer than a second sends progress
notifications (when the client asked for them with a progress token). Calls are limited
per client (``WEB_TOOLS_SEARCHES_PER_MINUTE``, ``WEB_TOOLS_FETCHES_PER_MINUTE``), and over
HTTP take their turns in the worker pool and for transfers as their client's calls.

Every search runs on the server's one event loop (the engines' reactor belongs to it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server import Server

from lightsearch import __version__
from lightsearch.serving.request_checks import client_of
from lightsearch.surfaces.tools import INSTRUCTIONS

if TYPE_CHECKING:
    from lightsearch.surfaces.toolbox import DeferredToolbox, Toolbox


def client_key(ctx: Any) -> str | None:
    """Who is calling: over HTTP the client as the request checks name it (the session's
    client: a session answers only its own client); over stdio None, the process's own
    caller."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    return client_of(scope) if isinstance(scope, dict) and scope.get("type") == "http" else None


def to_call_result(result: dict[str, Any]) -> types.CallToolResult:
    """A toolbox answer as an MCP tool result."""
    text = types.TextContent(type="text", text=result.get("text") or "")
    if "error" in result:
        return types.CallToolResult(content=[text], structured_content={"error": result["error"]}, is_error=True)
    return types.CallToolResult(content=[text], structured_content=result, is_error=False)


def build_server(toolbox: Toolbox | DeferredToolbox) -> Server[Any]:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool.model_validate(d) for d in toolbox.definitions("mcp")])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        async def progress(elapsed: float, message: str) -> None:
            await ctx.session.report_progress(round(elapsed, 1), None, message)

        result = await toolbox.invoke(params.name, params.arguments or {}, client=client_key(ctx),
                                      on_progress=progress)
        return to_call_result(result)

    return Server("lightsearch", version=__version__, title="lightsearch web search",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool)


async def run_stdio(toolbox: Toolbox | DeferredToolbox) -> None:
    """Serve MCP on stdin/stdout until the client closes the connection."""
    from mcp.server.stdio import stdio_server

    server = build_server(toolbox)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await toolbox.aclose()
