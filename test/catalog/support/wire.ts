/**
 * A bare MCP session over HTTP that keeps the server's answers as sent: the SDK's Client re-parses
 * results (zod reorders and strips keys), which would hide the very bytes the catalog tests pin.
 *
 * Each JSON-RPC answer is returned as the exact text of its SSE `data:` line (or JSON body). The
 * server writes it with JSON.stringify, so `JSON.stringify(JSON.parse(text).result)` reproduces the
 * bytes the server serialized for `result`, key order included.
 */
import { MCP_PROTOCOL as PROTOCOL, mcpHeaders } from "../../support/mcpWire.ts"

export interface WireSession {
  /** Sends one request and returns the raw text of its JSON-RPC answer. */
  readonly request: (method: string, params?: Record<string, unknown>) => Promise<string>
  /** The answer's `result`, re-serialized exactly (see above). */
  readonly result: (method: string, params?: Record<string, unknown>) => Promise<string>
  readonly close: () => Promise<void>
}

const answerFor = (body: string, contentType: string, id: number): string => {
  if (!contentType.includes("text/event-stream")) return body
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n")
    if (data === "") continue
    const message = JSON.parse(data) as { id?: unknown }
    if (message.id === id) return data
  }
  throw new Error(`no answer to request ${id} in: ${body.slice(0, 500)}`)
}

export const openWire = async (baseUrl: string, key: string, server: "agents" | "memory" = "agents"): Promise<WireSession> => {
  const url = `${baseUrl}/mcp/${server}/mcp`
  let sessionId: string | undefined
  let nextId = 1
  const headers = () => mcpHeaders(key, sessionId)
  const post = (message: Record<string, unknown>) => fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(message) })

  const request = async (method: string, params: Record<string, unknown> = {}) => {
    const id = nextId++
    const res = await post({ jsonrpc: "2.0", id, method, params })
    if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status} ${await res.text()}`)
    sessionId ??= res.headers.get("mcp-session-id") ?? undefined
    return answerFor(await res.text(), res.headers.get("content-type") ?? "", id)
  }

  await request("initialize", { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "wire-test", version: "0" } })
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" })
  await initialized.text()

  return {
    request,
    result: async (method, params) => {
      const answer = JSON.parse(await request(method, params)) as { result?: unknown; error?: unknown }
      if (answer.result === undefined) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`)
      return JSON.stringify(answer.result)
    },
    close: async () => {
      if (sessionId !== undefined) await fetch(url, { method: "DELETE", headers: headers() }).then((r) => r.text())
    }
  }
}
