/**
 * The A2A streams (issue 27, items 2 and 4): SendStreamingMessage and SubscribeToTask as
 * `text/event-stream`, one JSON-RPC response per frame; the output as bounded artifact updates that
 * add up to what GetTask shows; several subscribers; a client that goes away; a key revoked while
 * its stream is open. Plain HTTP to 127.0.0.1, against a daemon and the simulator.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { SIM_FAKE_SECRETS } from "../../src/hermes/sim/script.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { fromAnotherConnection } from "../support/otherConnection.ts"
import { metricValue } from "../support/metrics.ts"
import { until } from "../support/poll.ts"

type Json = Record<string, any>

let sim: SimulatorAsync
let daemon: TestDaemon
let alice: string
let bob: string
let next = 1

const msg = (text: string, extra: Json = {}) => ({ messageId: `m-${Math.random().toString(16).slice(2)}`, role: "ROLE_USER", parts: [{ text }], ...extra })
const post = (key: string, method: string, params: Json, signal?: AbortSignal) =>
  fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: next++, method, params }),
    ...(signal === undefined ? {} : { signal })
  })
const rpc = async (key: string, method: string, params: Json) => (await (await post(key, method, params)).json()) as Json

interface Frames {
  readonly frames: Array<Json>
  readonly raw: Array<string>
  readonly comments: number
}

/** Reads an SSE body to its end (bounded: `limitMs`), `onFrame` after each data frame. */
const readSse = async (res: Response, onFrame: (f: Json, all: Array<Json>) => void = () => {}, limitMs = 30_000): Promise<Frames> => {
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/)
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  const frames: Array<Json> = []
  const raw: Array<string> = []
  let comments = 0
  let buffer = ""
  const deadline = Date.now() + limitMs
  try {
    while (Date.now() < deadline) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += value
      let end: number
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (block.startsWith(":")) comments++
        else if (block.startsWith("data: ")) {
          raw.push(block.slice(6))
          const f = JSON.parse(block.slice(6)) as Json
          frames.push(f)
          onFrame(f, frames)
        }
      }
    }
  } catch (e) {
    if (!(e instanceof Error && e.name === "AbortError")) throw e
  }
  return { frames, raw, comments }
}

const results = (f: Frames) => f.frames.map((x) => x["result"] as Json)
const statesOf = (f: Frames) => results(f).filter((r) => r["statusUpdate"] !== undefined).map((r) => r["statusUpdate"].status.state as string)
const outputOf = (f: Frames) => {
  let text = ""
  for (const r of results(f)) {
    const a = r["artifactUpdate"]
    if (a === undefined) continue
    const chunk = (a.artifact.parts as Array<Json>).map((p) => p["text"] as string).join("")
    text = a.append === true ? text + chunk : chunk
  }
  return text
}
const taskText = (task: Json) => ((task["artifacts"]?.[0]?.parts ?? []) as Array<Json>).map((p) => p["text"] as string).join("")

const metric = (name: string) => metricValue(daemon, name)
beforeAll(async () => {
  sim = await startSimulatorAsync({})
  daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key } }, tempDir()))
  alice = await daemon.addClient("alice", ["agents", "a2a"])
  bob = await daemon.addClient("bob", ["agents", "a2a"])
}, 60_000)
afterAll(async () => {
  await daemon?.close()
  await sim?.close()
})

describe("SendStreamingMessage", () => {
  it("streams the task, its output as bounded artifact updates adding up to GetTask's, and ends at COMPLETED", async () => {
    const f = await readSse(await post(alice, "SendStreamingMessage", { message: msg("[sim:output=40k,deltas=40,slow=1s] write a lot") }))
    const [head, ...rest] = results(f)
    expect(head?.["task"]?.id).toMatch(/^run_/)
    expect(f.frames.every((x) => x["jsonrpc"] === "2.0" && x["id"] === f.frames[0]!["id"])).toBe(true)
    const taskId = head!["task"].id as string
    expect(statesOf(f).at(-1)).toBe("TASK_STATE_COMPLETED")
    expect(rest.at(-1)?.["statusUpdate"]?.status.state).toBe("TASK_STATE_COMPLETED")
    const artifacts = rest.filter((r) => r["artifactUpdate"] !== undefined).map((r) => r["artifactUpdate"])
    expect(artifacts.length).toBeGreaterThan(2)
    expect(artifacts[0].append ?? false).toBe(false)
    expect(artifacts.at(-1).lastChunk).toBe(true)
    expect(artifacts.slice(0, -1).every((a: Json) => a.lastChunk !== true)).toBe(true)
    // Never one unbounded message: each frame holds at most a window (16 KiB) and its envelope.
    expect(Math.max(...f.raw.map((r) => Buffer.byteLength(r)))).toBeLessThan(24 * 1024)
    const got = await rpc(alice, "GetTask", { id: taskId })
    expect(outputOf(f)).toBe(taskText(got["result"]))
    expect(outputOf(f).length).toBeGreaterThan(30 * 1024)
  }, 40_000)

  it("streamed output is redacted like every other read, each update and the whole", async () => {
    const f = await readSse(await post(alice, "SendStreamingMessage", { message: msg("[sim:secrets,slow=1s] leak") }))
    for (const secret of SIM_FAKE_SECRETS) expect(f.raw.join("\n")).not.toContain(secret.slice(0, 14))
    expect(outputOf(f)).toContain("***REDACTED***")
    const got = await rpc(alice, "GetTask", { id: results(f)[0]!["task"].id })
    expect(outputOf(f)).toBe(taskText(got["result"]))
  }, 30_000)

  it("ends at INPUT_REQUIRED (the client's turn), and the answer streams to the end", async () => {
    const asked = await readSse(await post(alice, "SendStreamingMessage", { message: msg("[sim:clarify] deploy") }))
    expect(statesOf(asked).at(-1)).toBe("TASK_STATE_INPUT_REQUIRED")
    const task = results(asked)[0]!["task"]
    const answered = await readSse(await post(alice, "SendStreamingMessage", { message: msg("production", { taskId: task.id, contextId: task.contextId }) }))
    expect(results(answered)[0]!["task"].id).toBe(task.id)
    expect(statesOf(answered).at(-1)).toBe("TASK_STATE_COMPLETED")
  }, 40_000)

  it("a refused message is a plain JSON-RPC error and records nothing", async () => {
    const res = await post(alice, "SendStreamingMessage", { message: { messageId: "x", role: "ROLE_USER", parts: [{ url: "file:///etc/passwd" }] } })
    expect(res.headers.get("content-type")).toMatch(/json/)
    expect(((await res.json()) as Json)["error"].code).toBe(-32005)
  })

  it("the card says streaming: true", async () => {
    const card = (await (await fetch(`${daemon.url}/.well-known/agent-card.json`)).json()) as Json
    expect(card["capabilities"].streaming).toBe(true)
  })
})

describe("SubscribeToTask", () => {
  it("gives several subscribers each the whole stream, the Task first", async () => {
    const started = await rpc(alice, "SendMessage", { message: msg("[sim:output=20k,deltas=20,slow=2s] share"), configuration: { returnImmediately: true } })
    const id = started["result"].task.id as string
    const subs = await Promise.all([1, 2, 3].map(() => post(alice, "SubscribeToTask", { id })))
    const all = await Promise.all(subs.map((s) => readSse(s)))
    const got = (await rpc(alice, "GetTask", { id }))["result"]
    for (const f of all) {
      expect(results(f)[0]!["task"].id).toBe(id)
      expect(statesOf(f).at(-1)).toBe("TASK_STATE_COMPLETED")
      expect(outputOf(f)).toBe(taskText(got))
    }
  }, 40_000)

  it("another client's task and a made-up id are TaskNotFound; a finished task is UnsupportedOperation", async () => {
    const done = await rpc(alice, "SendMessage", { message: msg("quick") })
    const id = done["result"].task.id as string
    expect((await rpc(bob, "SubscribeToTask", { id }))["error"].code).toBe(-32001)
    expect((await rpc(alice, "SubscribeToTask", { id: "run_00000000000000000000000000000000" }))["error"].code).toBe(-32001)
    expect((await rpc(alice, "SubscribeToTask", { id }))["error"].code).toBe(-32004)
    expect((await rpc(alice, "SubscribeToTask", { id: "" }))["error"].code).toBe(-32602)
  })

  it("a client that goes away mid-stream leaves no wait open", async () => {
    const started = await rpc(alice, "SendMessage", { message: msg("[sim:slow=20s] long"), configuration: { returnImmediately: true } })
    const id = started["result"].task.id as string
    const abort = new AbortController()
    const res = await post(alice, "SubscribeToTask", { id }, abort.signal)
    const reading = readSse(res)
    // The client goes away only once its wait was seen open: aborting on a timer instead raced the
    // metric's reads, which a loaded machine could make slower than the wait's whole life.
    await until(() => metric("agent_bridge_waits_open"), (n) => n >= 1, { what: "the subscriber's wait" })
    abort.abort()
    await reading
    // Closed well before the step's own bound (STEP_WAIT_SECONDS = 5) would end it.
    const open = await until(() => metric("agent_bridge_waits_open"), (n) => n === 0, { withinMs: 2_000 })
    expect(open).toBe(0)
    await rpc(alice, "CancelTask", { id })
  }, 30_000)
})

describe("revocation", () => {
  it("a key revoked while its stream is open ends the stream with an error frame", async () => {
    const carol = await daemon.addClient("carol", ["agents", "a2a"])
    const res = await post(carol, "SendStreamingMessage", { message: msg("[sim:slow=20s] long") })
    const t0 = Date.now()
    let revokedAt = 0
    const f = await readSse(res, (_x, all) => {
      if (all.length === 1) {
        revokedAt = Date.now()
        void daemon.revoke("carol")
      }
    }, 15_000)
    const last = f.frames.at(-1)!
    expect(last["error"]?.data?.[0]?.metadata?.bridge_code).toBe("auth.forbidden")
    expect(last["error"].message).toMatch(/revoked or rotated/)
    expect(Date.now() - revokedAt).toBeLessThan(3_000)
    expect(Date.now() - t0).toBeLessThan(10_000)
  }, 30_000)

  it("a revoke by another process (the CLI) ends the stream too", async () => {
    const erin = await daemon.addClient("erin", ["agents", "a2a"])
    const res = await post(erin, "SendStreamingMessage", { message: msg("[sim:slow=20s] long") })
    const f = await readSse(res, (_x, all) => {
      if (all.length === 1) {
        void Effect.runPromise(fromAnotherConnection(daemon.config, "UPDATE clients SET revoked_at = ? WHERE name = ?", Date.now(), "erin"))
      }
    }, 15_000)
    expect(f.frames.at(-1)!["error"]?.data?.[0]?.metadata?.bridge_code).toBe("auth.forbidden")
  }, 30_000)

  it("a rotated key's stream ends the same way", async () => {
    const dave = await daemon.addClient("dave", ["agents", "a2a"])
    const started = await rpc(dave, "SendMessage", { message: msg("[sim:slow=20s] long"), configuration: { returnImmediately: true } })
    const res = await post(dave, "SubscribeToTask", { id: started["result"].task.id })
    let fresh = ""
    const f = await readSse(res, (_x, all) => {
      if (all.length === 1) void daemon.rotate("dave").then((k) => { fresh = k })
    }, 15_000)
    expect(f.frames.at(-1)!["error"]?.data?.[0]?.metadata?.bridge_code).toBe("auth.forbidden")
    await until(async () => fresh, (k) => k.length > 0, { withinMs: 2_000 })
    await rpc(fresh, "CancelTask", { id: started["result"].task.id })
  }, 30_000)
})
