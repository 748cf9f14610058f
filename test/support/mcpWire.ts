/** Headers of a raw Streamable HTTP MCP request, shared by the tests that speak the wire by hand. */
export const MCP_PROTOCOL = "2025-11-25"

export const mcpHeaders = (key: string, sessionId: string | undefined): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": MCP_PROTOCOL })
})
