/**
 * A small MCP client over Streamable HTTP for fault tests: every call is one POST with its own
 * timeout, so a daemon killed mid-call shows up at once as a lost call (the SDK's Client would wait
 * for its request timeout when a response stream breaks). `ResilientMcp` reconnects (a new session)
 * after any lost call and retries calls that are safe to repeat until a deadline, counting what
 * happened.
 */
import { MCP_PROTOCOL as PROTOCOL, mcpHeaders } from "../../support/mcpWire.ts"
import { sleep } from "../../support/poll.ts"
const ERROR_META_KEY = "agent-bridge/error"

/** What a tool call answered: its structured result, or its `bridge.*` (or JSON-RPC) error. */
export type ToolOutcome =
  | { readonly ok: true; readonly value: any }
  | { readonly ok: false; readonly code: string; readonly text: string }

/** The call got no answer: connection refused or cut, an HTTP error, or a timeout. */
export class CallLost extends Error {
  override readonly name = "CallLost"
}

const answerIn = (body: string, contentType: string, id: number): Record<string, any> | undefined => {
  if (!contentType.includes("text/event-stream")) {
    const parsed = JSON.parse(body) as Record<string, any>
    return parsed["id"] === id ? parsed : undefined
  }
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n")
    if (data === "") continue
    const message = JSON.parse(data) as Record<string, any>
    if (message["id"] === id) return message
  }
  return undefined
}

/** The outcome of a `tools/call` answer. */
const outcomeOf = (answer: Record<string, any>): ToolOutcome => {
  if (answer["error"] !== undefined) {
    const e = answer["error"] as { code?: number; message?: string }
    return { ok: false, code: `jsonrpc.${e.code ?? "?"}`, text: e.message ?? "" }
  }
  const result = answer["result"] as { isError?: boolean; structuredContent?: unknown; content?: Array<{ text?: string }>; _meta?: Record<string, any> }
  const text = (result.content ?? []).map((c) => c.text ?? "").join("")
  if (result.isError === true) {
    const fromMeta = result._meta?.[ERROR_META_KEY]?.code as string | undefined
    const code = fromMeta ?? /\b((?:bridge|auth)\.[a-z_]+)\b/.exec(text)?.[1] ?? "unknown"
    return { ok: false, code, text }
  }
  return { ok: true, value: result.structuredContent ?? JSON.parse(text) }
}

export interface McpSession {
  readonly call: (tool: string, args: Record<string, unknown>, timeoutMs: number) => Promise<ToolOutcome>
  readonly close: () => Promise<void>
}

/** Opens a session; throws CallLost when the daemon does not answer. */
export const openSession = async (
  baseUrl: string,
  key: string,
  server: "agents" | "memory" = "agents",
  timeoutMs = 20_000
): Promise<McpSession> => {
  const url = `${baseUrl}/mcp/${server}/mcp`
  let sessionId: string | undefined
  let nextId = 1
  const headers = () => mcpHeaders(key, sessionId)
  const post = async (message: Record<string, unknown>, ms: number) => {
    try {
      const res = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(message), signal: AbortSignal.timeout(ms) })
      const body = await res.text()
      return { status: res.status, body, contentType: res.headers.get("content-type") ?? "", session: res.headers.get("mcp-session-id") }
    } catch (e) {
      const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : ""
      throw new CallLost(`${String(message["method"])}: ${e instanceof Error ? e.message : String(e)}${cause}`)
    }
  }
  const request = async (method: string, params: Record<string, unknown>, ms: number) => {
    const id = nextId++
    const res = await post({ jsonrpc: "2.0", id, method, params }, ms)
    if (res.status !== 200) throw new CallLost(`${method}: HTTP ${res.status} ${res.body.slice(0, 200)}`)
    sessionId ??= res.session ?? undefined
    let answer: Record<string, any> | undefined
    try {
      answer = answerIn(res.body, res.contentType, id)
    } catch {
      answer = undefined
    }
    // A stream cut before the answer arrived is a lost call, not an answer.
    if (answer === undefined) throw new CallLost(`${method}: no answer in the response`)
    return answer
  }

  await request("initialize", { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "reliability-test", version: "0" } }, timeoutMs)
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, timeoutMs)
  if (initialized.status !== 202 && initialized.status !== 200) throw new CallLost(`initialized: HTTP ${initialized.status}`)

  return {
    call: async (tool, args, ms) => outcomeOf(await request("tools/call", { name: tool, arguments: args }, ms)),
    close: async () => {
      if (sessionId === undefined) return
      await fetch(url, { method: "DELETE", headers: headers(), signal: AbortSignal.timeout(5_000) }).then((r) => r.text()).catch(() => undefined)
    }
  }
}

export interface CallOptions {
  /** Per attempt. Default 20 s (plus the wait for waits). */
  readonly timeoutMs?: number
  /** Give up retrying at this time (epoch ms). */
  readonly deadline: number
  /** Codes that mean "try again shortly" besides a lost call. Default: the client's (bridge.unavailable). */
  readonly retryCodes?: ReadonlyArray<string>
}

export interface ResilientStats {
  sessions: number
  lostCalls: number
  retriedCodes: number
  /** The retried answers by code (`bridge.unavailable`: …). */
  readonly retriedByCode: Record<string, number>
  /** The lost calls by what was seen: `HTTP 502`, `no answer` (a stream cut), `connection`, `timeout`. */
  readonly lostByKind: Record<string, number>
}

/** What kind of loss a CallLost message tells. */
const lossKind = (message: string): string => {
  const http = /HTTP (\d{3})/.exec(message)
  if (http !== null) return `HTTP ${http[1]}`
  if (message.includes("no answer in the response")) return "no answer"
  if (/timeout|aborted/i.test(message)) return "timeout"
  return "connection"
}


/**
 * One client that keeps going through daemon restarts: a lost call drops the session and the call
 * is tried again on a new one. Only for calls that are safe to repeat (reads, and starts that carry
 * an idempotency key).
 */
export class ResilientMcp {
  readonly stats: ResilientStats = { sessions: 0, lostCalls: 0, retriedCodes: 0, retriedByCode: {}, lostByKind: {} }
  private session: McpSession | undefined

  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
    private readonly server: "agents" | "memory" = "agents",
    /** The codes this client retries by itself (a call may name its own). */
    private readonly retryCodes: ReadonlyArray<string> = ["bridge.unavailable"]
  ) {}

  /** Calls until an answer that is not a retry code; throws when the deadline passes first. */
  async call(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolOutcome & { readonly attempts: number }> {
    const retryCodes = options.retryCodes ?? this.retryCodes
    let lastProblem = "no attempt"
    for (let attempt = 1; ; attempt++) {
      if (Date.now() > options.deadline) throw new Error(`${tool} gave up after ${attempt - 1} attempts: ${lastProblem}`)
      // Concurrent calls share the session; whichever loses a call drops it (once).
      let session = this.session
      try {
        if (session === undefined) {
          session = await openSession(this.baseUrl, this.key, this.server, options.timeoutMs ?? 20_000)
          this.session = session
          this.stats.sessions++
        }
        const outcome = await session.call(tool, args, options.timeoutMs ?? 20_000)
        if (outcome.ok || !retryCodes.includes(outcome.code)) return { ...outcome, attempts: attempt }
        this.stats.retriedCodes++
        this.stats.retriedByCode[outcome.code] = (this.stats.retriedByCode[outcome.code] ?? 0) + 1
        lastProblem = outcome.text
      } catch (e) {
        if (!(e instanceof CallLost)) throw e
        this.stats.lostCalls++
        const kind = lossKind(e.message)
        this.stats.lostByKind[kind] = (this.stats.lostByKind[kind] ?? 0) + 1
        lastProblem = e.message
        if (this.session === session) this.session = undefined
      }
      await sleep(Math.min(1_000, 50 * attempt))
    }
  }

  async close(): Promise<void> {
    await this.session?.close()
    this.session = undefined
  }
}
