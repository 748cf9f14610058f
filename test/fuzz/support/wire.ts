/**
 * One MCP session driven by hand, over either of two transports that end in the same code:
 * - `inProcess`: a web `Request` handed to the daemon's `McpSessions.handle` with the caller the edge
 *   authenticates from the client's key (what `app.ts` does after the host, path and auth checks);
 * - `overHttp`: the same bytes through `fetch` and the daemon's real listener.
 * Bodies are JSON text written by the fuzzer, so arguments can carry what only JSON text can
 * (`-0`, `1e999`, duplicate keys) and whole bodies can be malformed.
 */
import { Effect } from "effect"
import type { ServerKind } from "../../../src/edge/mcp/catalog/listing.ts"
import { type FuzzClient, type FuzzDaemon, mcpPath } from "./fuzzDaemon.ts"

const PROTOCOL = "2025-11-25"

export interface Reply {
  readonly status: number
  readonly contentType: string
  readonly body: string
  readonly sessionId: string | null
}

export interface Transport {
  readonly name: "in-process" | "http"
  readonly send: (kind: ServerKind, init: { method: string; headers: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> }) => Promise<Reply>
}

const toReply = async (res: Response): Promise<Reply> => ({
  status: res.status,
  contentType: res.headers.get("content-type") ?? "",
  body: await res.text(),
  sessionId: res.headers.get("mcp-session-id")
})

export const inProcess = (daemon: FuzzDaemon, client: FuzzClient): Transport => ({
  name: "in-process",
  send: async (kind, init) => {
    const request = new Request(`http://127.0.0.1${mcpPath(kind)}`, {
      method: init.method,
      headers: { authorization: `Bearer ${client.key}`, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body })
    })
    return toReply(await Effect.runPromise(daemon.sessions.handle(kind, request, { caller: client.caller, token: client.key })))
  }
})

/** Requests sent again because the server closed a kept-alive socket just as it was reused. */
export const keepAliveRetries = { count: 0 }

/**
 * A kept-alive socket that the server closes (idle timeout) at the instant fetch reuses it fails the
 * request before it reached the daemon ("other side closed"); that one is sent again, once. A fault
 * of the daemon's would fail the second time too.
 */
const isClosedOnReuse = (e: unknown) => {
  const cause = (e as { cause?: { code?: string } }).cause
  return e instanceof TypeError && (cause?.code === "UND_ERR_SOCKET" || cause?.code === "ECONNRESET")
}

export const overHttp = (daemon: FuzzDaemon, client: FuzzClient): Transport => {
  const once = (kind: ServerKind, init: Parameters<Transport["send"]>[1]) =>
    fetch(`${daemon.url}${mcpPath(kind)}`, {
      method: init.method,
      headers: { authorization: `Bearer ${client.key}`, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
      signal: AbortSignal.timeout(60_000)
    })
  return {
    name: "http",
    send: async (kind, init) => {
      try {
        return await toReply(await once(kind, init))
      } catch (e) {
        if (!isClosedOnReuse(e)) throw e
        keepAliveRetries.count += 1
        return toReply(await once(kind, init))
      }
    }
  }
}

/** A JSON-RPC answer: a result, or an error object (protocol-level refusal). */
export type Answer =
  | { readonly _tag: "result"; readonly result: Record<string, unknown> }
  | { readonly _tag: "rpc-error"; readonly code: number; readonly message: string; readonly status: number }
  | { readonly _tag: "http-error"; readonly status: number; readonly body: string }

/** The JSON-RPC message answering `id` in a JSON or SSE body, or undefined. */
export const messageFor = (reply: Reply, id: number | null): Record<string, unknown> | undefined => {
  const texts = reply.contentType.includes("text/event-stream")
    ? reply.body.split(/\r?\n\r?\n/).map((e) => e.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n"))
    : [reply.body]
  for (const text of texts) {
    if (text === "") continue
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      continue
    }
    for (const m of Array.isArray(message) ? message : [message]) {
      if (typeof m === "object" && m !== null && ((m as { id?: unknown }).id === id || id === null)) return m as Record<string, unknown>
    }
  }
  return undefined
}

export const answerOf = (reply: Reply, id: number | null): Answer => {
  const message = messageFor(reply, id)
  const error = message?.["error"] as { code?: unknown; message?: unknown } | undefined
  if (error !== undefined && typeof error.code === "number") {
    return { _tag: "rpc-error", code: error.code, message: String(error.message), status: reply.status }
  }
  const result = message?.["result"]
  if (reply.status === 200 && typeof result === "object" && result !== null) return { _tag: "result", result: result as Record<string, unknown> }
  return { _tag: "http-error", status: reply.status, body: reply.body.slice(0, 2000) }
}

export interface Session {
  readonly transport: Transport
  readonly kind: ServerKind
  /** Posts a JSON-RPC body as written (valid or not) within this session. */
  readonly post: (body: string | Uint8Array<ArrayBuffer>, headers?: Record<string, string>) => Promise<Reply>
  /** `tools/call` with the tool name and the arguments' JSON text (`undefined`: no `arguments` key). */
  readonly callTool: (name: string, argumentsJson: string | undefined) => Promise<Answer>
  readonly close: () => Promise<void>
}

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" }

export const openSession = async (transport: Transport, kind: ServerKind): Promise<Session> => {
  const init = await transport.send(kind, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "fuzz", version: "0" } } })
  })
  const sessionId = init.sessionId
  if (init.status !== 200 || sessionId === null) throw new Error(`initialize failed: ${init.status} ${init.body}`)
  const headers = { ...JSON_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL }
  const post = (body: string | Uint8Array<ArrayBuffer>, extra: Record<string, string> = {}) => transport.send(kind, { method: "POST", headers: { ...headers, ...extra }, body })
  const initialized = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  if (initialized.status !== 202) throw new Error(`initialized notification: ${initialized.status}`)
  let nextId = 1
  return {
    transport,
    kind,
    post,
    callTool: async (name, argumentsJson) => {
      const id = nextId++
      const args = argumentsJson === undefined ? "" : `,"arguments":${argumentsJson}`
      const reply = await post(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)}${args}}}`)
      return answerOf(reply, id)
    },
    close: async () => {
      await transport.send(kind, { method: "DELETE", headers })
    }
  }
}
