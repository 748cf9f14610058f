/** Headers and bodies of raw Streamable HTTP MCP requests, shared by the tests that speak the wire by hand. */
export const MCP_PROTOCOL = "2025-11-25"
/** The handshake-free revision: every request carries its version, client info and capabilities. */
export const MODERN_PROTOCOL = "2026-07-28"

export const mcpHeaders = (key: string, sessionId: string | undefined): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId, "mcp-protocol-version": MCP_PROTOCOL })
})

/**
 * A 2026-07-28 request as a plain HTTP client sends it: the envelope in `params._meta`, mirrored in
 * the `MCP-Protocol-Version`, `Mcp-Method` and (for calls) `Mcp-Name` headers. No session.
 */
export const modernRequest = (key: string, id: number, method: string, params: Record<string, unknown> = {}) => {
  const name = typeof params["name"] === "string" ? params["name"] : typeof params["uri"] === "string" ? params["uri"] : undefined
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL,
    "io.modelcontextprotocol/clientInfo": { name: "plain-http", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
    ...((params["_meta"] as object | undefined) ?? {})
  }
  return {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_PROTOCOL,
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name })
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })
  }
}

/** The JSON-RPC message of a response, whether sent as JSON or as the last `data:` of an SSE stream. */
export const rpcAnswer = async (res: Response): Promise<Record<string, any>> => {
  const text = await res.text()
  if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return JSON.parse(text)
  const data = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)))
  return data.filter((m) => "id" in m).at(-1)
}
