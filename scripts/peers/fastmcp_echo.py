"""An MCP server on FastMCP with one trivial `echo` tool over Streamable HTTP, for scripts/bench-peers.ts.

Usage: .cache/peers/venv/bin/python scripts/peers/fastmcp_echo.py PORT (127.0.0.1, endpoint /mcp).
FastMCP's defaults otherwise (sessions for the 2025 era, its own answer shaping), as a user runs it.
"""
import sys

from fastmcp import FastMCP

if len(sys.argv) != 2:
    sys.exit("usage: fastmcp_echo.py PORT")

mcp = FastMCP("peer-fastmcp")


@mcp.tool
def echo(message: str) -> str:
    """Echoes its message."""
    return message


mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), path="/mcp", show_banner=False, log_level="warning")
