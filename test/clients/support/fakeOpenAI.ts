/**
 * A fake OpenAI Responses API on loopback (`POST /v1/responses`, streamed as server-sent events)
 * for Codex, which reaches it as a custom model provider (`base_url` in a generated config.toml).
 * The main conversation, recognised by the bridge's tools in the request, follows the script in
 * fakeModel.ts; any other request gets a short text. Every request is recorded.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { FakeModelServer, RecordedRequest } from "./fakeAnthropic.ts"
import { nextStep, type ToolOutcome } from "./fakeModel.ts"

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let s = ""
    req.on("data", (c: Buffer) => (s += c.toString("utf8")))
    req.on("end", () => resolve(s))
    req.on("error", reject)
  })

const textOf = (output: unknown): string =>
  typeof output === "string"
    ? output
    : Array.isArray(output)
      ? output.map((c: any) => (typeof c?.text === "string" ? c.text : "")).join("")
      : typeof output === "object" && output !== null
        ? textOf((output as any).content ?? (output as any).output ?? JSON.stringify(output))
        : ""

/** The bridge tool a Responses `tools` entry stands for (Codex prefixes MCP tools with the server). */
const bridgeToolOf = (name: string): string | undefined => /(?:^|__)(agents_list|agent_run|agent_run_wait)$/.exec(name)?.[1]

const outcomesOf = (input: ReadonlyArray<any>): Array<ToolOutcome> => {
  const calls = new Map<string, string>()
  const out: Array<ToolOutcome> = []
  for (const item of input) {
    if (item?.type === "function_call") calls.set(item.call_id, String(item.name))
    if (item?.type === "function_call_output") {
      const tool = bridgeToolOf(calls.get(item.call_id) ?? "")
      if (tool !== undefined) out.push({ tool, text: textOf(item.output) })
    }
  }
  return out
}

export const startFakeOpenAI = async (): Promise<FakeModelServer> => {
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
    if (req.method === "GET" && path.endsWith("/models")) {
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "fake-model", object: "model" }] }))
    }
    if (req.method !== "POST" || !path.endsWith("/responses")) {
      return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `fake: no ${req.method} ${path}`, type: "not_found" } }))
    }
    // Codex offers MCP tools either as plain functions (`mcp__<server>__<tool>`) or grouped in a
    // namespace tool (`{type: "namespace", name: "mcp__<server>", tools: [...]}`), called by name
    // plus namespace.
    const offered: Array<{ name: string; namespace?: string }> = (body?.tools ?? []).flatMap((t: any) =>
      t?.type === "namespace" ? (t.tools ?? []).map((f: any) => ({ name: String(f?.name ?? ""), namespace: String(t.name) })) : [{ name: String(t?.name ?? "") }]
    )
    const find = (tool: string) => offered.find((o) => bridgeToolOf(o.name) === tool)
    const main = find("agent_run") !== undefined
    const step = main ? nextStep(outcomesOf(body.input ?? [])) : { kind: "text" as const, text: "ok" }
    const n = ++ids
    const item =
      step.kind === "tool"
        ? { type: "function_call", id: `fc_fake_${n}`, call_id: `call_fake_${n}`, ...(find(step.tool) ?? { name: step.tool }), arguments: JSON.stringify(step.input), status: "completed" }
        : { type: "message", id: `msg_fake_${n}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: step.text, annotations: [] }] }
    if (step.kind === "tool") toolCalls.push({ name: step.tool, input: step.input })
    const response = { id: `resp_fake_${n}`, object: "response", status: "completed", model: body?.model ?? "fake-model", output: [item], usage: { input_tokens: 10, output_tokens: 10, total_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } }
    if (body?.stream !== true) return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(response))
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    let seq = 0
    const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`)
    send("response.created", { response: { ...response, status: "in_progress", output: [] } })
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress" } })
    if (step.kind === "text") send("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta: step.text })
    send("response.output_item.done", { output_index: 0, item })
    send("response.completed", { response })
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
