/**
 * The fake model provider the real-Hermes suite puts behind Hermes (`test/support/fakeLlm.ts`),
 * and the refusing proxy sink beside it: each scripted turn as Hermes's OpenAI client would read
 * it, streamed and not, so a broken script shows up in `npm test` and not only as an odd failure
 * of the real suite.
 */
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startProxySink } from "../hermes-real/support/proxySink.ts"
import { FAKE_PROVIDER_KEY, type FakeLlm, PLAIN_ANSWER, SLEEP_ANSWER, SLOW_CHUNKS, startFakeLlm, UNICODE_ANSWER } from "../support/fakeLlm.ts"

const tools = [{ type: "function", function: { name: "terminal", parameters: { type: "object" } } }]

const post = async (llm: FakeLlm, body: unknown) => {
  const res = await fetch(`${llm.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  return { status: res.status, text: await res.text() }
}

/** The streamed chunks' text, tool calls and finish reason, as a client accumulates them. */
const readStream = (text: string) => {
  const chunks = text.split("\n\n").filter((b) => b.startsWith("data: ") && b !== "data: [DONE]").map((b) => JSON.parse(b.slice(6)))
  const deltas = chunks.flatMap((c) => c.choices.map((x: any) => x.delta))
  return {
    content: deltas.map((d: any) => d.content ?? "").join(""),
    toolCalls: deltas.flatMap((d: any) => d.tool_calls ?? []),
    finish: chunks.flatMap((c) => c.choices.map((x: any) => x.finish_reason)).filter((f: unknown) => f !== null),
    done: text.trimEnd().endsWith("data: [DONE]"),
    contentChunks: deltas.filter((d: any) => typeof d.content === "string" && d.content !== "").length
  }
}

describe("fake model provider", () => {
  let llm: FakeLlm
  beforeAll(async () => {
    llm = await startFakeLlm({ scratchDir: "/tmp/agent-bridge-fake-scratch" })
  })
  afterAll(() => llm.close())

  it("lists its model", async () => {
    const r = await fetch(`${llm.url}/models`)
    expect((await r.json()).data[0].id).toBe("fake-model")
  })

  it("plain and unicode answers, streamed and whole", async () => {
    const plain = readStream((await post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:plain] hi" }] })).text)
    expect(plain).toMatchObject({ content: PLAIN_ANSWER, finish: ["stop"], done: true, toolCalls: [] })
    const whole = JSON.parse((await post(llm, { tools, messages: [{ role: "user", content: [{ type: "text", text: "[llm:unicode]" }] }] })).text)
    expect(whole.choices[0]).toMatchObject({ message: { role: "assistant", content: UNICODE_ANSWER }, finish_reason: "stop" })
  })

  it("tool: a terminal call of `echo hi`, then an answer quoting what the tool printed", async () => {
    const first = readStream((await post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:tool]" }] })).text)
    expect(first.finish).toEqual(["tool_calls"])
    expect(first.toolCalls[0].function).toEqual({ name: "terminal", arguments: JSON.stringify({ command: "echo hi" }) })
    const second = readStream((await post(llm, {
      stream: true, tools,
      messages: [
        { role: "user", content: "[llm:tool]" },
        { role: "assistant", content: null, tool_calls: first.toolCalls },
        { role: "tool", content: JSON.stringify({ output: "hi\n", exit_code: 0 }) }
      ]
    })).text)
    expect(second.content).toBe("The command printed: hi")
  })

  it("approval: a recursive delete inside the scratch folder", async () => {
    const first = readStream((await post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:approval]" }] })).text)
    expect(JSON.parse(first.toolCalls[0].function.arguments)).toEqual({ command: "rm -rf /tmp/agent-bridge-fake-scratch/build" })
  })

  it("sleep: a terminal call of `sleep S` (20 by default), then its fixed answer", async () => {
    for (const [marker, command] of [["[llm:sleep=30]", "sleep 30"], ["[llm:sleep]", "sleep 20"], ["[llm:sleep=1;rm]", "sleep 20"]] as const) {
      const first = readStream((await post(llm, { stream: true, tools, messages: [{ role: "user", content: marker }] })).text)
      expect(JSON.parse(first.toolCalls[0].function.arguments)).toEqual({ command })
    }
    const second = readStream((await post(llm, {
      stream: true, tools,
      messages: [
        { role: "user", content: "[llm:sleep=30]" },
        { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "terminal", arguments: "{}" } }] },
        { role: "tool", content: JSON.stringify({ output: "", exit_code: 0 }) }
      ]
    })).text)
    expect(second.content).toBe(SLEEP_ANSWER)
  })

  it("slow: the answer in many chunks over the time asked", async () => {
    const t0 = Date.now()
    const slow = readStream((await post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:slow=400]" }] })).text)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350)
    expect(slow.contentChunks).toBe(SLOW_CHUNKS)
  })

  it("fail: a 401 quoting the fake key; requests without tools get a side answer", async () => {
    const r = await post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:fail]" }] })
    expect(r.status).toBe(401)
    expect(JSON.parse(r.text).error.message).toContain(FAKE_PROVIDER_KEY)
    const side = JSON.parse((await post(llm, { messages: [{ role: "user", content: "[llm:fail] title this" }] })).text)
    expect(side.choices[0].message.content).toBe("A side answer.")
    expect(llm.requests.length).toBeGreaterThan(5)
  })

  it("deltas=N: the answer in exactly N chunks", async () => {
    const r = readStream((await post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:deltas=1200]" }] })).text)
    expect(r.contentChunks).toBe(1200)
    expect(r.content.startsWith("d0 d1 ")).toBe(true)
  })

  it("counts the agent turns answered at once (side calls without tools not among them)", async () => {
    const before = llm.maxTurnsInFlight()
    expect(llm.turnsInFlight()).toBe(0)
    const slow = Array.from({ length: 3 }, () => post(llm, { stream: true, tools, messages: [{ role: "user", content: "[llm:slow=600]" }] }))
    const side = Array.from({ length: 3 }, () => post(llm, { stream: true, messages: [{ role: "user", content: "[llm:slow=600]" }] }))
    await Promise.all([...slow, ...side])
    expect(llm.turnsInFlight()).toBe(0)
    expect(llm.maxTurnsInFlight()).toBe(Math.max(before, 3))
  })
})

describe("proxy sink", () => {
  it("refuses plain requests and CONNECT, and remembers both", async () => {
    const sink = await startProxySink()
    try {
      const port = Number(new URL(sink.url).port)
      const plain = await new Promise<number>((resolve, reject) =>
        http.get({ host: "127.0.0.1", port, path: "http://pypi.example/simple/" }, (res) => { res.resume(); resolve(res.statusCode ?? 0) }).on("error", reject))
      expect(plain).toBe(403)
      const connect = await new Promise<number>((resolve, reject) =>
        http.request({ host: "127.0.0.1", port, method: "CONNECT", path: "example.com:443" }).on("connect", (res, socket) => { socket.destroy(); resolve(res.statusCode ?? 0) }).on("error", reject).end())
      expect(connect).toBe(403)
      expect(sink.hits.map((h) => [h.method, h.target])).toEqual([["GET", "http://pypi.example/simple/"], ["CONNECT", "example.com:443"]])
    } finally {
      await sink.close()
    }
  })
})
