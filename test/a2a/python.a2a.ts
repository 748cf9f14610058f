/**
 * The Python A2A SDK (`a2a-sdk` 1.3 from PyPI) against a whole daemon with the simulator: it fetches
 * the card, sends a message to completion (then reads and lists the task), streams one, answers an
 * input-required task, cancels a working one, receives signed push notifications at a loopback
 * receiver of its own that verifies them, and is told "task not found" for another client's task
 * exactly as for a made-up id. Nothing it does leaves loopback (the proxy sink stays empty).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { startProxySink, type ProxySink } from "../clients/support/proxySink.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { scenario } from "./support/python.ts"

let sim: SimulatorAsync
let daemon: TestDaemon
let sink: ProxySink
let key: string

beforeAll(async () => {
  sink = await startProxySink()
  sim = await startSimulatorAsync({})
  daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key }, a2a: { webhook_allow: ["127.0.0.1"] } }, tempDir()))
  key = await daemon.addClient("python-peer", ["agents", "a2a"])
}, 60_000)
afterAll(async () => {
  await daemon?.close()
  await sim?.close()
  await sink?.close()
})

const run = (name: string, arg = "") => scenario(name, daemon.url, key, sink.url, arg)

describe("the Python a2a-sdk client", () => {
  it("resolves the card: one JSON-RPC 1.0 interface at /a2a, the bearer scheme, a skill per agent", async () => {
    const card = await run("card")
    expect(card.name).toBe("agent-bridge")
    expect(card.skills).toContain("hermes")
    expect(card.interfaces).toEqual([{ url: `${daemon.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }])
    expect(card.schemes).toHaveLength(1)
  })

  it("sends a message to completion, reads the task with its history and finds it listed", async () => {
    const done = await run("complete", "summarise the repo")
    expect(done.state).toBe("TASK_STATE_COMPLETED")
    expect(done.text).toContain('I looked into "summarise the repo"')
    expect(done.history).toBe(1)
    expect(done.listed).toBe(true)
  })

  it("streams a message: the task first, then status and artifact updates, ending COMPLETED with the output", async () => {
    const out = await run("stream", "stream this")
    expect(out.kinds[0]).toBe("task")
    expect(out.kinds).toContain("status_update")
    expect(out.kinds).toContain("artifact_update")
    expect(out.state).toBe("TASK_STATE_COMPLETED")
    expect(out.text).toContain('I looked into "stream this"')
  })

  it("receives signed push notifications for its task, through COMPLETED, each verified by the receiver", async () => {
    const out = await run("push")
    expect(out.config_task).toBe(out.task)
    const seen = out.seen as Array<{ signed: boolean; token: boolean; delivery: string; state: string; task: string }>
    expect(seen.map((n) => n.state)).toContain("TASK_STATE_COMPLETED")
    for (const n of seen) expect(n).toMatchObject({ signed: true, token: true, task: out.task })
    expect(new Set(seen.map((n) => n.delivery)).size).toBe(seen.length)
  })

  it("answers an input-required task with a message to it", async () => {
    const out = await run("input_required")
    expect(out).toMatchObject({ asked: "TASK_STATE_INPUT_REQUIRED", done: "TASK_STATE_COMPLETED", same: true })
    expect(out.text).toContain("production")
  })

  it("cancels a working task: CANCELED once Hermes has stopped it", async () => {
    const out = await run("cancel")
    expect(out.cancelled).toBe(out.id)
    expect(out.state).toBe("TASK_STATE_CANCELED")
  })

  it("another client's task is TaskNotFound, exactly as a made-up id", async () => {
    const other = await daemon.addClient("python-other", ["agents", "a2a"])
    const theirs = await scenario("complete", daemon.url, other, sink.url, "not yours")
    const out = await run("foreign", theirs.id)
    expect(out).toEqual({ foreign: "TaskNotFoundError", made_up: "TaskNotFoundError" })
  })

  it("sent nothing off the machine", () => {
    expect(sink.hits).toEqual([])
  })
})
