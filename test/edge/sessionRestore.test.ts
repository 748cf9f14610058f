/**
 * `replayHandshake` (edge/mcp/sessionRestore.ts) against the SDK itself: it leaves a fresh transport
 * and server in the state of a session the client opened (its id checked on every request, the
 * negotiated version, the client's info and capabilities), and it fails loudly when the SDK does not
 * take the replay. If an SDK upgrade changes how a session starts, these tests say so.
 */
import { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { describe, expect, it } from "vitest"
import { replayHandshake } from "../../src/edge/mcp/sessionRestore.ts"
import { rpcAnswer } from "../support/mcpWire.ts"

const authInfo = { token: "t", clientId: "alice", scopes: [] }
const handshake = { sessionId: "stored-session-1", protocolVersion: "2025-06-18", clientInfo: { name: "cli", version: "9" }, capabilities: { roots: { listChanged: true } } }

const connected = async (generator: () => string) => {
  const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", () => ({ tools: [] }))
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: generator })
  await server.connect(transport)
  return { server, transport }
}

const post = (transport: WebStandardStreamableHTTPServerTransport, sessionId: string, body: unknown) =>
  transport.handleRequest(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json", "mcp-session-id": sessionId, "mcp-protocol-version": handshake.protocolVersion }
    }),
    { authInfo, parsedBody: body }
  )

describe("replaying a stored handshake", () => {
  it("gives the transport the stored id and the server the stored version, client info and capabilities", async () => {
    const { server, transport } = await connected(() => handshake.sessionId)
    await replayHandshake(transport, handshake, authInfo)
    expect(transport.sessionId).toBe(handshake.sessionId)
    expect(server.getNegotiatedProtocolVersion()).toBe("2025-06-18")
    expect(server.getClientVersion()).toEqual({ name: "cli", version: "9" })
    expect(server.getClientCapabilities()).toEqual({ roots: { listChanged: true } })
    const listed = await post(transport, handshake.sessionId, { jsonrpc: "2.0", id: 7, method: "tools/list" })
    expect(listed.status).toBe(200)
    expect((await rpcAnswer(listed))["result"]).toEqual({ tools: [] })
    // Another id is not this session.
    const other = await post(transport, "some-other-id", { jsonrpc: "2.0", id: 8, method: "tools/list" })
    expect(other.status).toBe(404)
    await transport.close()
  })

  it("fails when the transport makes another id than the stored one", async () => {
    const { transport } = await connected(() => "not-the-stored-one")
    await expect(replayHandshake(transport, handshake, authInfo)).rejects.toThrow(/did not take the stored session id/)
    await transport.close()
  })

  it("fails when the SDK refuses the replayed initialize (a transport already initialized)", async () => {
    const { transport } = await connected(() => handshake.sessionId)
    await replayHandshake(transport, handshake, authInfo)
    await expect(replayHandshake(transport, handshake, authInfo)).rejects.toThrow(/refused the replayed initialize \(400\)/)
    await transport.close()
  })
})
