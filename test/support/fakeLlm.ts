/**
 * A fake OpenAI-compatible model provider on loopback, for running the real Hermes in tests: it
 * serves `/v1/models` and `/v1/chat/completions` (streamed or not) and scripts the model's turns
 * from a marker in the run's input, `[llm:NAME]` or `[llm:NAME=VALUE]`:
 *
 * - `plain` (also: no marker): a short answer in a few chunks.
 * - `unicode`: an answer with accents, CJK, an emoji and a check mark.
 * - `tool`: a `terminal` call running `echo hi`, then an answer quoting what it printed.
 * - `approval`: a `terminal` call of a dangerous command (a recursive delete of `<scratch>/build`,
 *   which Hermes holds for approval), then an answer saying how it went.
 * - `slow=MS`: the answer in 20 chunks spread over MS milliseconds (default 4000).
 * - `sleep=S`: a `terminal` call running `sleep S` (default 20): a run quiet for S seconds between
 *   its `tool.started` and `tool.completed`, then an answer (`SLEEP_ANSWER`).
 * - `subagent`: a `delegate_task` call with one task whose goal is a `plain` run (Hermes starts a
 *   sub-agent, whose own turns come here too), in the form the offered tool takes, then an answer
 *   (`SUBAGENT_ANSWER`).
 * - `deltas=N`: the answer in N chunks sent back to back (default 1200), for a run of more events
 *   than a build keeps for replay.
 * - `fail`: the provider answers 401 with a message quoting a fake key (`FAKE_PROVIDER_KEY`).
 *
 * Requests without tools (Hermes's side calls, e.g. titles) get a plain short answer. Every
 * request is recorded, so a test can say what Hermes asked.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { sleep } from "./poll.ts"

export const FAKE_MODEL = "fake-model"
/** The fake key the `fail` scenario's provider error quotes (it must never reach a remote agent whole). */
export const FAKE_PROVIDER_KEY = "sk-proj-FAKEprovider0123456789abcdefghij"
export const PLAIN_ANSWER = "The answer is forty-two, as far as anyone can tell."
export const UNICODE_ANSWER = "Unicode check: naïve café — 東京 🚀 ✓"
export const TOOL_ANSWER_PREFIX = "The command printed: "
export const APPROVAL_ANSWER_PREFIX = "The delete is over: "
export const SLOW_CHUNKS = 20
export const SLEEP_ANSWER = "Slept as asked; nothing else happened."
export const SUBAGENT_ANSWER = "The sub-agent answered; that settles it."

export interface FakeLlmRequest {
  readonly path: string
  readonly body: any
  readonly at: number
}

export interface FakeLlm {
  readonly url: string
  readonly requests: ReadonlyArray<FakeLlmRequest>
  /** Agent turns (completions offered tools) being answered right now: one per run that is waiting on its model. */
  readonly turnsInFlight: () => number
  /** The most agent turns answered at once so far. */
  readonly maxTurnsInFlight: () => number
  close(): Promise<void>
}

export interface FakeLlmOptions {
  /** The folder the dangerous command deletes in (`<scratch>/build`); Hermes's terminal cwd. */
  readonly scratchDir: string
}

interface Scenario {
  readonly name: string
  readonly value: string | null
}

interface Message {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: ReadonlyArray<unknown>
}

const textOf = (content: unknown): string =>
  typeof content === "string" ? content
  : Array.isArray(content) ? content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("")
  : ""

const MARKER = /\[llm:([a-z]+)(?:=([^\]]*))?\]/i

/** The scenario of the latest user message, and the turns the model already took since. */
const readConversation = (messages: ReadonlyArray<Message>) => {
  let lastUser = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user") {
      lastUser = i
      break
    }
  }
  const m = lastUser < 0 ? null : MARKER.exec(textOf(messages[lastUser]?.content))
  const scenario: Scenario = m === null ? { name: "plain", value: null } : { name: (m[1] ?? "plain").toLowerCase(), value: m[2] ?? null }
  const after = messages.slice(lastUser + 1)
  const toolTurns = after.filter((x) => x.role === "assistant" && Array.isArray(x.tool_calls) && x.tool_calls.length > 0).length
  const lastTool = [...after].reverse().find((x) => x.role === "tool")
  return { scenario, toolTurns, lastToolResult: lastTool === undefined ? "" : textOf(lastTool.content) }
}

type Turn =
  | { readonly _tag: "text"; readonly chunks: ReadonlyArray<string>; readonly gapMs: number }
  | { readonly _tag: "tool"; readonly command: string; readonly name?: string; readonly args?: Record<string, unknown> }
  | { readonly _tag: "error"; readonly status: number; readonly body: unknown }

const chunksOf = (text: string, n: number): ReadonlyArray<string> => {
  const chars = Array.from(text)
  const size = Math.max(1, Math.ceil(chars.length / n))
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""))
  return out
}

/** What the tool printed, as one short line (Hermes wraps terminal output in JSON). */
const firstLine = (toolResult: string): string => {
  try {
    const parsed = JSON.parse(toolResult) as { output?: unknown; error?: unknown }
    const text = typeof parsed.output === "string" && parsed.output !== "" ? parsed.output : String(parsed.error ?? "")
    return text.trim().split("\n")[0]?.slice(0, 80) ?? ""
  } catch {
    return toolResult.trim().split("\n")[0]?.slice(0, 80) ?? ""
  }
}

/** The tool call of a tool turn: `terminal` with its command unless the turn names another tool. */
const toolFunction = (turn: Extract<Turn, { _tag: "tool" }>) => ({
  name: turn.name ?? "terminal",
  arguments: JSON.stringify(turn.args ?? { command: turn.command })
})

const turnFor = (o: FakeLlmOptions, conv: ReturnType<typeof readConversation> & { readonly delegateTakesGoal: boolean }, hasTools: boolean): Turn => {
  if (!hasTools) return { _tag: "text", chunks: ["A side answer."], gapMs: 0 }
  const { scenario, toolTurns, lastToolResult } = conv
  switch (scenario.name) {
    case "unicode":
      return { _tag: "text", chunks: chunksOf(UNICODE_ANSWER, 4), gapMs: 5 }
    case "tool":
      return toolTurns === 0 ? { _tag: "tool", command: "echo hi" }
        : { _tag: "text", chunks: [TOOL_ANSWER_PREFIX, firstLine(lastToolResult) || "nothing"], gapMs: 5 }
    case "approval":
      return toolTurns === 0 ? { _tag: "tool", command: `rm -rf ${o.scratchDir}/build` }
        : { _tag: "text", chunks: [APPROVAL_ANSWER_PREFIX, firstLine(lastToolResult) || "done"], gapMs: 5 }
    case "sleep": {
      const seconds = scenario.value !== null && /^\d{1,3}$/.test(scenario.value) ? scenario.value : "20"
      return toolTurns === 0 ? { _tag: "tool", command: `sleep ${seconds}` } : { _tag: "text", chunks: chunksOf(SLEEP_ANSWER, 3), gapMs: 5 }
    }
    case "slow": {
      const ms = scenario.value === null ? 4000 : Number(scenario.value)
      const chunks = Array.from({ length: SLOW_CHUNKS }, (_, i) => `part ${i + 1}. `)
      return { _tag: "text", chunks, gapMs: Number.isFinite(ms) ? ms / SLOW_CHUNKS : 200 }
    }
    case "subagent": {
      // Hermes's delegate_task: one task as `goal` where the tool takes one (0.19, 0.20: `tasks` is
      // their batch form, two or more), else as `tasks` (the 0.22 fork has only that). The child's
      // own turns read the marker in its goal and answer plainly.
      const goal = "[llm:plain] answer the question"
      const args = conv.delegateTakesGoal ? { goal } : { tasks: [{ goal }] }
      return toolTurns === 0 ? { _tag: "tool", command: "", name: "delegate_task", args } : { _tag: "text", chunks: [SUBAGENT_ANSWER], gapMs: 5 }
    }
    case "deltas": {
      // A long answer: N chunks back to back (each one `message.delta` in Hermes), for replay limits.
      const n = scenario.value !== null && /^\d{1,5}$/.test(scenario.value) ? Number(scenario.value) : 1200
      return { _tag: "text", chunks: Array.from({ length: n }, (_, i) => `d${i} `), gapMs: 0 }
    }
    case "fail":
      return {
        _tag: "error",
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${FAKE_PROVIDER_KEY}.`, type: "invalid_request_error", param: null, code: "invalid_api_key" } }
      }
    default:
      return { _tag: "text", chunks: chunksOf(PLAIN_ANSWER, 5), gapMs: 5 }
  }
}


let callSeq = 0

const writeStream = async (res: http.ServerResponse, turn: Exclude<Turn, { _tag: "error" }>, model: string) => {
  const id = `chatcmpl-fake${++callSeq}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  res.write(chunk({ role: "assistant", content: "" }, null))
  if (turn._tag === "tool") {
    const call = { index: 0, id: `call_fake${callSeq}`, type: "function", function: toolFunction(turn) }
    res.write(chunk({ tool_calls: [call] }, null))
    res.write(chunk({}, "tool_calls"))
  } else {
    for (const piece of turn.chunks) {
      if (res.destroyed) return
      res.write(chunk({ content: piece }, null))
      if (turn.gapMs > 0) await sleep(turn.gapMs)
    }
    res.write(chunk({}, "stop"))
  }
  res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 } })}\n\n`)
  res.end("data: [DONE]\n\n")
}

const writeWhole = async (res: http.ServerResponse, turn: Exclude<Turn, { _tag: "error" }>, model: string) => {
  const message = turn._tag === "tool"
    ? { role: "assistant", content: null, tool_calls: [{ id: `call_fake${++callSeq}`, type: "function", function: toolFunction(turn) }] }
    : { role: "assistant", content: turn.chunks.join("") }
  if (turn._tag === "text" && turn.gapMs > 0) await sleep(turn.gapMs * turn.chunks.length)
  const body = {
    id: `chatcmpl-fake${++callSeq}`, object: "chat.completion", created: Math.floor(Date.now() / 1000), model,
    choices: [{ index: 0, message, finish_reason: turn._tag === "tool" ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 }
  }
  res.writeHead(200, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

export const startFakeLlm = (o: FakeLlmOptions): Promise<FakeLlm> => {
  const requests: Array<FakeLlmRequest> = []
  let inFlight = 0
  let maxInFlight = 0
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://fake.invalid").pathname
      let body: any = null
      try {
        body = chunks.length === 0 ? null : JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        body = null
      }
      requests.push({ path, body, at: Date.now() })
      if (req.method === "GET" && /\/models$/.test(path)) {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ object: "list", data: [{ id: FAKE_MODEL, object: "model", created: 1_700_000_000, owned_by: "agent-bridge-tests" }] }))
        return
      }
      if (req.method !== "POST" || !/\/chat\/completions$/.test(path) || body === null) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error", param: null, code: null } }))
        return
      }
      const messages: ReadonlyArray<Message> = Array.isArray(body.messages) ? body.messages : []
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0
      const delegate = hasTools ? body.tools.find((t: any) => t?.function?.name === "delegate_task") : undefined
      const delegateTakesGoal = delegate?.function?.parameters?.properties?.goal !== undefined
      const turn = turnFor(o, { ...readConversation(messages), delegateTakesGoal }, hasTools)
      const model = typeof body.model === "string" ? body.model : FAKE_MODEL
      if (turn._tag === "error") {
        res.writeHead(turn.status, { "content-type": "application/json" })
        res.end(JSON.stringify(turn.body))
        return
      }
      const write = body.stream === true ? writeStream : writeWhole
      if (hasTools) {
        inFlight += 1
        maxInFlight = Math.max(maxInFlight, inFlight)
        res.once("close", () => { inFlight -= 1 })
      }
      write(res, turn, model).catch(() => res.destroy())
    })
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        turnsInFlight: () => inFlight,
        maxTurnsInFlight: () => maxInFlight,
        close: () => new Promise<void>((r) => {
          server.closeAllConnections()
          server.close(() => r())
        })
      })
    })
  })
}
