/**
 * The simulator against Hermes's protocol (docs/SIMULATOR.md), "Control", over real HTTP, both generations: approvals
 * (choices and aliases, 409/400 codes, Hermes's timeout, a stop denies), steer (only while
 * running, `run.steered`, `pending_steer` after the final answer), stop (stopping then cancelled,
 * terminal runs unchanged, 404), and clarification (opt-in, body shapes, 409, absent route).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { eventually, rawClient, type RawClient } from "./support/raw.ts"

const statusOf = (c: RawClient, id: string, want: string) =>
  eventually(async () => {
    const r = await c.get(`/v1/runs/${id}`)
    return r.json?.status === want ? r.json : undefined
  })

for (const generation of ["old", "new"] as const) {
  describe(`simulator (${generation} build): control`, () => {
    let sim: SimulatorAsync
    let c: RawClient
    beforeAll(async () => {
      // Steering is a newer build's feature; here both generations have it, to test its rules.
      sim = await startSimulatorAsync({ generation, approvalTimeoutMs: 5000, steer: true })
      c = rawClient(sim.url, sim.profile("default").key)
    })
    afterAll(() => sim.close())
    const start = async (input: string, extra: Record<string, unknown> = {}) => (await c.post("/v1/runs", { input, ...extra })).json.run_id as string

    it("an approval request waits; 'approve' counts as once and the run completes", async () => {
      const id = await start("[sim:approval]")
      const waiting = await statusOf(c, id, "waiting_for_approval")
      const fields = {
        command: "rm -rf ./build", description: expect.any(String), pattern_key: expect.any(String), pattern_keys: expect.any(Array),
        choices: ["once", "session", "always", "deny"], allow_permanent: true, allow_session: true
      }
      // Older builds show no pending approval in the status, and never read a request_id.
      if (generation === "new") expect(waiting.approval).toMatchObject({ request_id: expect.stringMatching(/^[0-9a-f]{32}$/), ...fields })
      else expect(waiting.approval).toBeUndefined()
      expect((await c.post(`/v1/runs/${id}/approval`, { choice: "maybe" })).json.error.code).toBe("invalid_approval_choice")
      if (generation === "new") {
        const wrong = await c.post(`/v1/runs/${id}/approval`, { choice: "once", request_id: "f".repeat(32) })
        expect([wrong.status, wrong.json.error.code]).toEqual([409, "approval_not_pending"])
      }
      const ok = await c.post(`/v1/runs/${id}/approval`, { choice: "approve", request_id: generation === "new" ? waiting.approval.request_id : "f".repeat(32) })
      expect(ok.json).toEqual({ object: "hermes.run.approval_response", run_id: id, choice: "once", resolved: 1 })
      const done = await statusOf(c, id, "completed")
      expect(done.output).toContain("after approval")
      // A second answer: Hermes's approval session is there, with nothing pending in it.
      const again = await c.post(`/v1/runs/${id}/approval`, { choice: "once" })
      expect([again.status, again.json.error.code]).toEqual([409, "approval_not_pending"])
      // Older builds: the buffer nobody read is replayed to the first subscriber, also after the end.
      const events = (await c.sse(`/v1/runs/${id}/events`)).frames.map((f) => f.json)
      const request = events.find((e) => e.event === "approval.request")
      const responded = events.find((e) => e.event === "approval.responded")
      expect(request).toMatchObject(fields)
      if (generation === "new") {
        expect(request.request_id).toBe(waiting.approval.request_id)
        expect(responded).toMatchObject({ choice: "once", resolved: 1, request_id: waiting.approval.request_id })
      } else {
        expect(request.request_id).toBeUndefined()
        expect(Object.keys(responded).sort()).toEqual(["choice", "event", "resolved", "run_id", "timestamp"])
        expect(responded).toMatchObject({ choice: "once", resolved: 1 })
      }
    })

    it("an answer to a run that never asked for approval is 409 approval_not_active", async () => {
      const id = await start("plain run")
      await statusOf(c, id, "completed")
      const answer = await c.post(`/v1/runs/${id}/approval`, { choice: "once" })
      expect([answer.status, answer.json.error.code]).toEqual([409, "approval_not_active"])
    })

    it("a denied approval completes without running the command", async () => {
      const id = await start("[sim:approval]")
      await statusOf(c, id, "waiting_for_approval")
      await c.post(`/v1/runs/${id}/approval`, { choice: "deny" })
      expect((await statusOf(c, id, "completed")).output).toContain("was denied")
    })

    it("Hermes denies an approval nobody answered within approvals.timeout", async () => {
      const quick = await startSimulatorAsync({ generation, approvalTimeoutMs: 100 })
      try {
        const qc = rawClient(quick.url, quick.profile("default").key)
        const id = (await qc.post("/v1/runs", { input: "[sim:approval]" })).json.run_id
        expect((await statusOf(qc, id, "completed")).output).toContain("was denied")
      } finally {
        await quick.close()
      }
    })

    it("a stop denies a pending approval and the run ends cancelled", async () => {
      const id = await start("[sim:approval]")
      await statusOf(c, id, "waiting_for_approval")
      expect((await c.post(`/v1/runs/${id}/stop`, {})).json).toEqual({ run_id: id, status: "stopping" })
      const s = await statusOf(c, id, "cancelled")
      expect(s.approval).toBeUndefined()
    })

    it("steer: accepted only while running, confirmed by run.steered, worked into the answer", async () => {
      const id = await start("[sim:slow=2000]")
      await statusOf(c, id, "running")
      expect((await c.post(`/v1/runs/${id}/steer`, {})).status).toBe(400)
      const ok = await c.post(`/v1/runs/${id}/steer`, { message: "mention tests" })
      expect(ok.json).toEqual({ object: "hermes.run.steer", run_id: id, accepted: true })
      const done = await statusOf(c, id, "completed")
      expect(done.output).toContain("Steered: mention tests")
      const late = await c.post(`/v1/runs/${id}/steer`, { text: "too late" })
      expect([late.status, late.json.error.code]).toEqual([409, "run_not_accepting_steer"])
    })

    it("a steer after the final answer comes back as pending_steer", async () => {
      const id = await start("[sim:deltas=1,slow=2000]")
      await eventually(() => (sim.handle.state.runs.get(id)?.answered === true ? true : undefined))
      expect((await c.post(`/v1/runs/${id}/steer`, { input: "one more thing" })).status).toBe(200)
      expect((await statusOf(c, id, "completed")).pending_steer).toBe("one more thing")
    })

    it("steering a run that waits for approval is refused", async () => {
      const id = await start("[sim:approval]")
      await statusOf(c, id, "waiting_for_approval")
      expect((await c.post(`/v1/runs/${id}/steer`, { input: "x" })).json.error.code).toBe("run_not_accepting_steer")
      await c.post(`/v1/runs/${id}/stop`, {})
    })

    it("stop: stopping, then cancelled; a terminal run keeps its status (older builds: 404); unknown is 404", async () => {
      const id = await start("[sim:slow=5000]")
      await statusOf(c, id, "running")
      expect((await c.post(`/v1/runs/${id}/stop`, {})).json).toEqual({ run_id: id, status: "stopping" })
      await statusOf(c, id, "cancelled")
      const again = await c.post(`/v1/runs/${id}/stop`, {})
      if (generation === "new") expect(again.json).toEqual({ run_id: id, status: "cancelled" })
      else expect([again.status, again.json.error.code]).toEqual([404, "run_not_found"])
      expect((await c.post("/v1/runs/run_0123456789abcdef0123456789abcdef/stop", {})).status).toBe(404)
    })

    it("clarification: only for runs that opt in; answered with {clarify_id, response}", async () => {
      const without = await start("[sim:clarify]")
      expect((await statusOf(c, without, "completed")).output).toContain("clarification unavailable")
      const id = await start("[sim:clarify]", { clarify: true })
      const waiting = await statusOf(c, id, "waiting_for_clarification")
      expect(waiting.clarification).toMatchObject({
        clarify_id: expect.stringMatching(/^[0-9a-f]{32}$/), question: expect.any(String), choices: ["staging", "production"], multi_select: false
      })
      const wrong = await c.post(`/v1/runs/${id}/clarify`, { clarify_id: "0".repeat(32), response: "x" })
      expect([wrong.status, wrong.json.error.code]).toEqual([409, "clarify_not_pending"])
      const ok = await c.post(`/v1/runs/${id}/clarify`, { clarify_id: waiting.clarification.clarify_id, response: "staging" })
      expect(ok.json).toEqual({ object: "hermes.run.clarify_response", run_id: id, clarify_id: waiting.clarification.clarify_id, resolved: true })
      expect((await statusOf(c, id, "completed")).output).toContain("You chose: staging")
    })
  })
}

describe("simulator builds without clarification, and the fork's clarify body", () => {
  it("has no clarify route and no run_clarify flag without clarification", async () => {
    const sim = await startSimulatorAsync({ clarify: false })
    try {
      const c = rawClient(sim.url, sim.profile("default").key)
      expect((await c.get("/v1/capabilities")).json.features.run_clarify).toBeUndefined()
      const id = (await c.post("/v1/runs", { input: "[sim:clarify]", clarify: true })).json.run_id
      expect((await c.post(`/v1/runs/${id}/clarify`, { clarify_id: "x", response: "y" })).status).toBe(404)
      expect((await statusOf(c, id, "completed")).output).toContain("clarification unavailable")
    } finally {
      await sim.close()
    }
  })

  it("the fork variant takes {clarify_id, responses: [...]} and says so in endpoints.run_clarify", async () => {
    const sim = await startSimulatorAsync({ clarifyResponsesVariant: true })
    try {
      const c = rawClient(sim.url, sim.profile("default").key)
      expect(JSON.stringify((await c.get("/v1/capabilities")).json.endpoints.run_clarify)).toContain("responses")
      const id = (await c.post("/v1/runs", { input: "[sim:clarify=multi]", clarify: true })).json.run_id
      const waiting = await statusOf(c, id, "waiting_for_clarification")
      expect(waiting.clarification.multi_select).toBe(true)
      expect((await c.post(`/v1/runs/${id}/clarify`, { clarify_id: waiting.clarification.clarify_id, response: "x" })).status).toBe(400)
      await c.post(`/v1/runs/${id}/clarify`, { clarify_id: waiting.clarification.clarify_id, responses: ["staging", "production"] })
      expect((await statusOf(c, id, "completed")).output).toContain("You chose: staging, production")
    } finally {
      await sim.close()
    }
  })
})

describe("simulator fault injection", () => {
  it("answers the injected status, envelope and Retry-After the given number of times", async () => {
    const sim = await startSimulatorAsync({})
    try {
      const c = rawClient(sim.url, sim.profile("default").key)
      await sim.injectFault({ route: "models", status: 502, code: "upstream", retryAfterSeconds: 2, times: 2 })
      const a = await c.get("/v1/models")
      expect([a.status, a.json.error.code, a.headers["retry-after"]]).toEqual([502, "upstream", "2"])
      expect((await c.get("/v1/models")).status).toBe(502)
      expect((await c.get("/v1/models")).status).toBe(200)
      await sim.injectFault({ route: "health", destroy: true })
      await expect(c.get("/health")).rejects.toThrow()
      const log = await sim.requests()
      expect(log.filter((r) => r.path === "/v1/models")).toHaveLength(3)
    } finally {
      await sim.close()
    }
  })
})
