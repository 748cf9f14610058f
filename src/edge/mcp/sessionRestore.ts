/**
 * Rebuilding a 2025-era session on a replica that did not open it (issue 25 item 1), through the
 * SDK's public surface only: the transport (v2) has no "resume session X" option, so a fresh
 * transport whose `sessionIdGenerator` answers the stored id is handed the session's own handshake
 * again, `initialize` with the stored protocol version, client info and capabilities, then
 * `notifications/initialized`, exactly as the client sent them to the replica that opened it. The
 * SDK server and transport are then in the state that replica's were in after the handshake (the
 * negotiated version, the client's capabilities, the session id checked on every request), and the
 * client's next request is served as if it had never moved. The `initialize` answer is read and
 * dropped: the client had it long ago.
 *
 * No private field of the SDK is read or written; test/edge/sessionRestore.test.ts checks the
 * rebuilt session against one the client opened (version, capabilities, a tool call).
 */
import type { AuthInfo, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"

export interface Handshake {
  readonly sessionId: string
  readonly protocolVersion: string
  readonly clientInfo: unknown
  readonly capabilities: unknown
}

/** Where the synthetic requests say they go (the transport reads headers and body, never the URL). */
const RESTORE_URL = "http://session-restore.invalid/mcp"
const POST_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" }

/** The `initialize` params a client sent, when `body` is an initialize request; else undefined. */
export const handshakeOf = (body: unknown): Omit<Handshake, "sessionId"> | undefined => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined
  const b = body as { method?: unknown; params?: { protocolVersion?: unknown; clientInfo?: unknown; capabilities?: unknown } }
  if (b.method !== "initialize" || typeof b.params?.protocolVersion !== "string") return undefined
  return { protocolVersion: b.params.protocolVersion, clientInfo: b.params.clientInfo ?? {}, capabilities: b.params.capabilities ?? {} }
}

/**
 * Replays `handshake` into `transport` (connected to its server, built with a `sessionIdGenerator`
 * that answers `handshake.sessionId`). Rejects when the SDK does not take it (its status and body).
 */
export const replayHandshake = async (transport: WebStandardStreamableHTTPServerTransport, handshake: Handshake, authInfo: AuthInfo): Promise<void> => {
  const init = {
    jsonrpc: "2.0",
    id: "agent-bridge-session-restore",
    method: "initialize",
    params: { protocolVersion: handshake.protocolVersion, capabilities: handshake.capabilities, clientInfo: handshake.clientInfo }
  }
  const answered = await transport.handleRequest(new Request(RESTORE_URL, { method: "POST", headers: POST_HEADERS }), { authInfo, parsedBody: init })
  const text = await answered.text()
  if (answered.status !== 200 || !text.includes('"result"')) throw new Error(`the SDK refused the replayed initialize (${answered.status}): ${text.slice(0, 200)}`)
  if (transport.sessionId !== handshake.sessionId) throw new Error("the replayed initialize did not take the stored session id")
  const headers = { ...POST_HEADERS, "mcp-session-id": handshake.sessionId, "mcp-protocol-version": handshake.protocolVersion }
  const note = { jsonrpc: "2.0", method: "notifications/initialized" }
  const noted = await transport.handleRequest(new Request(RESTORE_URL, { method: "POST", headers }), { authInfo, parsedBody: note })
  await noted.body?.cancel()
  if (noted.status !== 202) throw new Error(`the SDK refused the replayed notifications/initialized (${noted.status})`)
}
