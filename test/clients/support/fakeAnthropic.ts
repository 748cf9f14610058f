/**
 * A fake Anthropic Messages API on loopback (`POST /v1/messages`, streamed or not) for Claude Code
 * (ANTHROPIC_BASE_URL). The turn of the main conversation, recognised by the bridge's tools in the
 * request, follows the script in fakeModel.ts; any other request (Claude Code's own side queries,
 * such as a title for the session) gets a short text. Every request is recorded.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { nextStep, type ToolOutcome } from "./fakeModel.ts"

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly body: any
}

export interface FakeModelServer {
  readonly url: string
  readonly requests: ReadonlyArray<RecordedRequest>
  /** The tool calls the script made, in order. */
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly input: unknown }>
  readonly close: () => Promise<void>
}

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let s = ""
    req.on("data", (c: Buffer) => (s += c.toString("utf8")))
    req.on("end", () => resolve(s))
    req.on("error", reject)
  })

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((c: any) => (c?.type === "text" ? String(c.text ?? "") : textOf(c?.content))).join("")
      : ""

/** The result a `<task-notification>` in a user turn carries (Claude Code's word for a finished background task). */
const NOTIFIED = /<task-notification>[\s\S]*?<result>\s*([\s\S]*?)\s*<\/result>/

/**
 * The bridge's tool results so far, matched to the tool_use blocks that asked for them, and the
 * results of background tasks the client notified in a user turn, in the order they came.
 */
const outcomesOf = (messages: ReadonlyArray<any>, prefix: string): Array<ToolOutcome> => {
  const names = new Map<string, string>()
  const out: Array<ToolOutcome> = []
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue
    for (const block of m.content) {
      if (block.type === "tool_use") names.set(block.id, String(block.name))
      if (block.type === "tool_result") {
        const name = names.get(block.tool_use_id) ?? ""
        if (name.startsWith(prefix)) out.push({ tool: name.slice(prefix.length), text: textOf(block.content) })
      }
    }
    const notified = m.role === "user" ? NOTIFIED.exec(textOf(m.content)) : null
    if (notified !== null) out.push({ tool: "task-notification", text: notified[1]! })
  }
  return out
}

/** `toolPrefix`: how the client names the bridge's tools, e.g. `mcp__agent-bridge__`. */
export const startFakeAnthropic = async (toolPrefix: string): Promise<FakeModelServer> => {
  const requests: Array<RecordedRequest> = []
  const toolCalls: Array<{ name: string; input: unknown }> = []
  let ids = 0
  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req)
    let body: any = undefined
    try {
      body = raw === "" ? undefined : JSON.parse(raw)
    } catch {
      body = raw
    }
    const path = (req.url ?? "/").split("?")[0]!
    requests.push({ method: req.method ?? "", path, body })
    if (req.method !== "POST" || !path.endsWith("/v1/messages")) {
      if (path.endsWith("/v1/messages/count_tokens")) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 100 }))
      return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `fake: no ${req.method} ${path}` } }))
    }
    const tools: ReadonlyArray<any> = body?.tools ?? []
    const main = tools.some((t) => t?.name === `${toolPrefix}agent_run`)
    const step = main ? nextStep(outcomesOf(body.messages ?? [], toolPrefix)) : { kind: "text" as const, text: "ok" }
    const id = `msg_fake_${++ids}`
    const block =
      step.kind === "tool"
        ? { type: "tool_use", id: `toolu_fake_${ids}`, name: `${toolPrefix}${step.tool}`, input: step.input }
        : { type: "text", text: step.text }
    if (step.kind === "tool") toolCalls.push({ name: step.tool, input: step.input })
    const stopReason = step.kind === "tool" ? "tool_use" : "end_turn"
    const usage = { input_tokens: 10, output_tokens: 10 }
    const model = body?.model ?? "claude-fake"
    if (body?.stream !== true) {
      return void res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ id, type: "message", role: "assistant", model, content: [block], stop_reason: stopReason, stop_sequence: null, usage }))
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    send("message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 0 } } })
    if (block.type === "tool_use") {
      send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } })
      send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } })
    } else {
      send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })
      send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: block.text } })
    }
    send("content_block_stop", { type: "content_block_stop", index: 0 })
    send("message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } })
    send("message_stop", { type: "message_stop" })
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    toolCalls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
