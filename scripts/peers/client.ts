/**
 * The one client of scripts/bench-peers.ts, the same for every arm: undici's `Pool.request` (undici
 * installed by scripts/peers-install.sh into the peers cache, not taken from the project's
 * node_modules), one pool of 16 kept-alive connections per server, and the two protocol eras:
 * - 2026-07-28: a `tools/call` with the envelope in `_meta` and the `Mcp-*` headers, no session;
 * - 2025-11-25: a `tools/call` on a session opened once with `initialize` + `notifications/initialized`.
 * Every answer is read whole and checked (HTTP 200, a JSON-RPC result, not `isError`), so an arm that
 * fails is refused, not timed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

export const MODERN = "2026-07-28"
export const LEGACY = "2025-11-25"
export type Era = typeof MODERN | typeof LEGACY
export const CONNECTIONS = 16

/**
 * What the bench uses of undici's Pool (its own types are not in the project's dependencies); a test
 * can hand in any object of this shape.
 */
export interface UndiciPool {
  request(options: { path: string; method: string; headers: Record<string, string>; body?: string }): Promise<{
    statusCode: number
    headers: Record<string, string | Array<string> | undefined>
    body: { text(): Promise<string> }
  }>
  close(): Promise<void>
}
interface Undici {
  Pool: new (origin: string, options: { connections: number; pipelining: number }) => UndiciPool
}

export const loadUndici = (cache: string): Promise<{ undici: Undici; version: string }> =>
  loadUndiciFrom(path.join(cache, "npm", "node_modules", "undici"))

/** undici from a package folder (the peers cache's pinned one, or the project's own). */
export const loadUndiciFrom = async (dir: string): Promise<{ undici: Undici; version: string }> => {
  const version = (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version
  const undici = (await import(pathToFileURL(path.join(dir, "index.js")).href)) as { default?: Undici } & Undici
  return { undici: undici.default ?? undici, version }
}

/** One call of an arm: resolves when its answer has been read and checked. */
export type Call = () => Promise<void>

/** `n` calls of `call` with CONNECTIONS in flight; the wall time (ms). */
export const inFlight = async (call: Call, n: number): Promise<number> => {
  let next = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < n) {
      next++
      await call()
    }
  }))
  return performance.now() - t0
}

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" }
const envelope = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "bench-peers", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} }

/** The JSON-RPC message of an answer: the body, or an SSE stream's last `data:` line. */
const message = (text: string): { result?: { isError?: boolean; content?: Array<{ text?: string }> }; error?: unknown } => {
  const sse = text.startsWith("event:") || text.startsWith("data:") || text.startsWith(":") || text.startsWith("id:")
  const json = sse ? text.split("\n").filter((l) => l.startsWith("data: ") || l.startsWith("data:")).at(-1)?.replace(/^data: ?/, "") : text
  if (json === undefined) throw new Error(`no JSON-RPC message in ${text.slice(0, 200)}`)
  return JSON.parse(json) as ReturnType<typeof message>
}

export interface Endpoint {
  readonly pool: UndiciPool
  readonly path: string
  readonly headers?: Record<string, string>
}

const post = async (ep: Endpoint, headers: Record<string, string>, body: unknown) => {
  const res = await ep.pool.request({ path: ep.path, method: "POST", headers: { ...BASE, ...ep.headers, ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) })
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() }
}

const checked = (status: number, text: string) => {
  if (status !== 200) throw new Error(`HTTP ${status}: ${text.slice(0, 300)}`)
  const msg = message(text)
  if (msg.error !== undefined || msg.result === undefined || msg.result.isError === true) throw new Error(`answer refused: ${text.slice(0, 300)}`)
  return msg.result
}

/** Opens a 2025-11-25 session; its id. */
const openSession = async (ep: Endpoint): Promise<string> => {
  const init = await post(ep, {}, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "bench-peers", version: "0" } } })
  checked(init.status, init.text)
  const sid = init.headers["mcp-session-id"]
  if (typeof sid !== "string") throw new Error(`initialize gave no session id (HTTP ${init.status})`)
  const note = await post(ep, { "mcp-session-id": sid, "mcp-protocol-version": LEGACY }, { jsonrpc: "2.0", method: "notifications/initialized" })
  if (note.status !== 202 && note.status !== 200) throw new Error(`notifications/initialized answered ${note.status}`)
  return sid
}

/**
 * A `tools/call` of `name` with `args` in `era`, ready to be called many times; `expect` (when given)
 * must appear in the first text block, so an echo that does not echo is refused.
 */
export const toolCall = async (ep: Endpoint, era: Era, name: string, args: Record<string, unknown>, expect?: string): Promise<Call> => {
  let headers: Record<string, string>
  let params: Record<string, unknown>
  if (era === MODERN) {
    headers = { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name }
    params = { name, arguments: args, _meta: envelope }
  } else {
    headers = { "mcp-session-id": await openSession(ep), "mcp-protocol-version": LEGACY }
    params = { name, arguments: args }
  }
  // Each request its own id: a 2025 session refuses two in flight with the same one.
  const rest = JSON.stringify({ method: "tools/call", params }).slice(1)
  let id = 0
  const body = () => `{"jsonrpc":"2.0","id":${++id},${rest}`
  const call: Call = async () => {
    const res = await post(ep, headers, body())
    checked(res.status, res.text)
  }
  const first = await post(ep, headers, body())
  const text = checked(first.status, first.text).content?.[0]?.text ?? ""
  if (expect !== undefined && !text.includes(expect)) throw new Error(`${name} answered ${text.slice(0, 200)}, not the echo of ${expect}`)
  return call
}

/** A plain JSON-RPC POST (no MCP) whose answer must be HTTP 200: the bare node:http echo. */
export const plainCall = (ep: Endpoint): Call => {
  const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hello" } } }
  return async () => {
    const res = await post(ep, {}, body)
    checked(res.status, res.text)
  }
}
