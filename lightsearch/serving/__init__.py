"""Serving: ``lightsearch serve``, the tools over HTTP (MCP's ``/mcp``, the invoke endpoint,
``/health``) and what stands between them and the network: the request checks, MCP
sessions per client, connection limits, call limits per client and worker processes."""
