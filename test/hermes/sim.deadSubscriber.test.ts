/**
 * The simulator's dead subscriber (docs/SIMULATOR.md, "Events"), as the released Hermes's SSE
 * handler behaves: a subscriber whose connection died is noticed only at its next write, the next
 * event (covered by the contract scenario "a re-attach while the dead subscriber is still
 * registered") or a keepalive after `keepaliveMs` idle; until then a reconnect is answered 200 and
 * shares its queue, afterwards the queue is gone and a reconnect is 404. `deadSubscriberNoticedLate:
 * false` (and newer builds) notice at once.
 */
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { eventually, rawClient, sleep } from "./support/raw.ts"

describe("simulator (old build): a dead subscriber is noticed at its next write", () => {
  const sims: Array<SimulatorAsync> = []
  afterAll(async () => {
    for (const s of sims) await s.close()
  })
  const open = async (options: { readonly keepaliveMs: number; readonly deadSubscriberNoticedLate?: boolean }) => {
    const sim = await startSimulatorAsync({ generation: "old", ...options })
    sims.push(sim)
    const c = rawClient(sim.url, sim.profile("default").key)
    const id = (await c.post("/v1/runs", { input: "[sim:approval] clean up" })).json.run_id as string
    const first = await c.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes("approval.request"), maxMs: 10_000 })
    expect(first.ending).toBe("stopped")
    const run = await eventually(() => sim.findRun(id), 5_000)
    return { sim, c, id, run }
  }

  it("before its next keepalive: registered, a reconnect is 200; after it: the queue is gone, a reconnect is 404", async () => {
    const { c, id, run } = await open({ keepaliveMs: 1_500 })
    await sleep(100)
    expect(run.subscribers.size).toBe(1)
    expect(run.bufferDropped).toBe(false)
    const during = await c.sse(`/v1/runs/${id}/events`, { until: () => true, maxMs: 300 })
    expect(during.status).toBe(200)
    // The keepalive write to the dead connection fails: the handler leaves and drops the queue.
    await eventually(async () => (run.bufferDropped ? true : undefined), 10_000)
    expect(run.status).toBe("waiting_for_approval")
    const after = await c.sse(`/v1/runs/${id}/events`, { until: () => true, maxMs: 2_000 })
    expect(after.status).toBe(404)
  })

  it("deadSubscriberNoticedLate: false leaves at once, as the simulator did before", async () => {
    const { c, id, run } = await open({ keepaliveMs: 60_000, deadSubscriberNoticedLate: false })
    await eventually(async () => (run.bufferDropped ? true : undefined), 5_000)
    expect(run.subscribers.size).toBe(0)
    expect((await c.sse(`/v1/runs/${id}/events`, { until: () => true, maxMs: 2_000 })).status).toBe(404)
  })
})
