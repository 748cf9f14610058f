/**
 * The simulator's generations named after real builds (`0.19`, `0.20`, `0.22-fork`): what each one
 * defaults to, as `npm run test:hermes` observed the real build (docs/SIMULATOR.md, "Generations"),
 * and the CLI verb's `--generation`. The contract suite runs against each (`contract.sim.*.test.ts`).
 */
import { describe, expect, it } from "vitest"
import { parseHermesSimArgs } from "../../src/cli/hermesSim.ts"
import { startSimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { resolveSimOptions, type SimGeneration } from "../../src/hermes/sim/options.ts"
import { eventually, rawClient } from "./support/raw.ts"

const pick = (g: SimGeneration) => {
  const o = resolveSimOptions({ generation: g })
  return {
    protocol: o.protocol, version: o.version, steer: o.steer, approvalRequestId: o.approvalRequestId,
    statusShowsApproval: o.statusShowsApproval, authCode: o.authCode, clarify: o.clarify, replayBacklog: o.replayBacklog,
    restartKeeps: o.restartKeeps, unknownRunEventsAtOnce: o.unknownRunEventsAtOnce, deadSubscriberNoticedLate: o.deadSubscriberNoticedLate,
    maxConcurrentRuns: o.maxConcurrentRuns, subagentEvents: o.subagentEvents
  }
}

describe("the simulator's generations named after real builds", () => {
  it("0.19: the old protocol, 0.19's 401, no steer, no request id, no clarification", () => {
    expect(pick("0.19")).toEqual({
      protocol: "old", version: "0.19.0", steer: false, approvalRequestId: false, statusShowsApproval: false, authCode: "invalid_api_key",
      clarify: false, replayBacklog: null, restartKeeps: "all", unknownRunEventsAtOnce: false, deadSubscriberNoticedLate: true, maxConcurrentRuns: 10, subagentEvents: "none"
    })
  })

  it("0.20: the old protocol with steer and the approval request id, 0.20's 401", () => {
    expect(pick("0.20")).toEqual({
      protocol: "old", version: "0.20.1", steer: true, approvalRequestId: true, statusShowsApproval: false, authCode: "gateway_auth_failed",
      clarify: false, replayBacklog: null, restartKeeps: "all", unknownRunEventsAtOnce: false, deadSubscriberNoticedLate: true, maxConcurrentRuns: 10, subagentEvents: "start"
    })
  })

  it("0.22-fork: the new protocol, a 1000-frame replay backlog, keyed statuses kept across a restart, unknown runs' events 404 at once", () => {
    expect(pick("0.22-fork")).toEqual({
      protocol: "new", version: "0.22.2", steer: true, approvalRequestId: true, statusShowsApproval: true, authCode: "gateway_auth_failed",
      clarify: false, replayBacklog: 1000, restartKeeps: "keyed", unknownRunEventsAtOnce: true, deadSubscriberNoticedLate: false, maxConcurrentRuns: 10, subagentEvents: "start"
    })
  })

  it("old and new are as they were", () => {
    expect(pick("old")).toMatchObject({ protocol: "old", version: "0.20.0", steer: false, approvalRequestId: false, authCode: "invalid_api_key", clarify: true, replayBacklog: null })
    expect(pick("new")).toMatchObject({ protocol: "new", version: "0.20.4", steer: true, approvalRequestId: true, authCode: "gateway_auth_failed", clarify: true, replayBacklog: null, restartKeeps: "all" })
  })

  it("an unknown generation, or a replay backlog below 2, is refused", () => {
    expect(() => resolveSimOptions({ generation: "0.21" as SimGeneration })).toThrow("simulator: unknown generation '0.21'")
    expect(() => resolveSimOptions({ generation: "0.22-fork", replayBacklog: 1 })).toThrow("replayBacklog")
  })

  it("hermes-sim --generation takes every generation; clarification follows the generation unless --clarify says", () => {
    for (const g of ["old", "new", "0.19", "0.20", "0.22-fork"] as const) {
      const o = parseHermesSimArgs(["--generation", g])
      expect(o.generation).toBe(g)
      expect(resolveSimOptions(o).clarify).toBe(g === "old" || g === "new")
    }
    expect(resolveSimOptions(parseHermesSimArgs(["--generation=0.20", "--clarify", "on"])).clarify).toBe(true)
    expect(() => parseHermesSimArgs(["--generation", "0.21"])).toThrow("--generation takes old, new, 0.19, 0.20, 0.22-fork")
  })

  it("0.22-fork: a replay from before the last 1000 places starts with replay.truncated (no id), naming the id asked for when one was", async () => {
    const sim = await startSimulatorAsync({ generation: "0.22-fork" })
    try {
      const raw = rawClient(sim.url, sim.profile("default").key)
      const id = (await raw.post("/v1/runs", { input: "[sim:events=1200]" })).json.run_id as string
      await eventually(async () => ((await raw.get(`/v1/runs/${id}`)).json.status === "completed" ? true : undefined))
      const until = (t: string) => t.includes(": stream closed")
      const asked = await raw.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": "5" }, until })
      // 1200 frames and the end of the stream: 1201 places, the oldest kept is 201.
      expect(asked.frames[0]).toMatchObject({ id: null, json: { event: "replay.truncated", oldest_retained_seq: 201, requested_seq: 5 } })
      expect(asked.frames.slice(1).map((f) => Number(f.id))).toEqual(Array.from({ length: 999 }, (_, i) => 201 + i))
      const whole = await raw.sse(`/v1/runs/${id}/events`, { until })
      expect(whole.frames[0]?.json).toEqual(expect.not.objectContaining({ requested_seq: expect.anything() }))
      expect(whole.frames[0]?.json.oldest_retained_seq).toBe(201)
      // From within the kept frames: no truncation.
      const recent = await raw.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": "1100" }, until })
      expect(recent.frames.map((f) => Number(f.id))).toEqual(Array.from({ length: 99 }, (_, i) => 1101 + i))
    } finally {
      await sim.close()
    }
  })

  it("0.20: approval.request names its request, approval.responded does not, and the answer's request_id is never read", async () => {
    const sim = await startSimulatorAsync({ generation: "0.20" })
    try {
      const raw = rawClient(sim.url, sim.profile("default").key)
      const id = (await raw.post("/v1/runs", { input: "[sim:approval]" })).json.run_id as string
      const stream = raw.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes(": stream closed") })
      await eventually(async () => ((await raw.get(`/v1/runs/${id}`)).json.status === "waiting_for_approval" ? true : undefined))
      const answer = await raw.post(`/v1/runs/${id}/approval`, { choice: "once", request_id: "not-the-one" })
      expect(answer.status).toBe(200)
      const frames = (await stream).frames.map((f) => f.json)
      expect(frames.find((f) => f.event === "approval.request")?.request_id).toMatch(/^[0-9a-f]{32}$/)
      expect(frames.find((f) => f.event === "approval.responded")).toEqual(expect.not.objectContaining({ request_id: expect.anything() }))
      expect(frames.at(-1)?.event).toBe("run.completed")
    } finally {
      await sim.close()
    }
  })
})
