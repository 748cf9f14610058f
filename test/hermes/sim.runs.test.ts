/**
 * The simulator against Hermes's protocol (docs/SIMULATOR.md), "Runs: start and status", over real HTTP, both generations:
 * the 202 answers, input and history validation, session keys, idempotency (newer builds only),
 * the status object, terminal retention, restarts, and the run-input directives' outcomes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { RESTART_ERROR } from "../../src/hermes/sim/run.ts"
import { fillerText, SIM_FAKE_SECRETS } from "../../src/hermes/sim/script.ts"
import { eventually, rawClient, type RawClient } from "./support/raw.ts"

const RUN_ID = /^run_[0-9a-f]{32}$/

const settled = (c: RawClient, id: string) =>
  eventually(async () => {
    const r = await c.get(`/v1/runs/${id}`)
    return ["completed", "failed", "cancelled", "interrupted"].includes(r.json?.status) ? r.json : undefined
  })

for (const generation of ["old", "new"] as const) {
  describe(`simulator (${generation} build): runs`, () => {
    let sim: SimulatorAsync
    let c: RawClient
    beforeAll(async () => {
      sim = await startSimulatorAsync({ generation })
      c = rawClient(sim.url, sim.profile("default").key)
    })
    afterAll(() => sim.close())

    it("starts with 202 {run_id, status: started}; newer builds add replayed", async () => {
      const r = await c.post("/v1/runs", { input: "hello", unknown_key: 1 })
      expect(r.status).toBe(202)
      expect(r.json.run_id).toMatch(RUN_ID)
      expect(r.json).toEqual(generation === "new" ? { run_id: r.json.run_id, status: "started", replayed: false } : { run_id: r.json.run_id, status: "started" })
    })

    it("refuses a start without input (400 Missing 'input' field) or with a bad history", async () => {
      const r = await c.post("/v1/runs", { instructions: "x" })
      expect(r.status).toBe(400)
      expect(r.json.error.message).toBe("Missing 'input' field")
      expect((await c.post("/v1/runs", { input: "x", conversation_history: [{ role: 1 }] })).status).toBe(400)
      expect((await c.post("/v1/runs", "not json")).status).toBe(400)
      expect((await c.post("/v1/runs", { input: "x" }, { "x-hermes-session-key": "k".repeat(257) })).status).toBe(400)
    })

    it("reports the status object, with float timestamps, output and usage once completed", async () => {
      const started = await c.post("/v1/runs", { input: "status please", session_id: "s-1" })
      const s = await settled(c, started.json.run_id)
      expect(s).toMatchObject({
        object: "hermes.run", run_id: started.json.run_id, status: "completed", session_id: "s-1", model: "hermes-agent",
        last_event: "run.completed", output: expect.stringContaining("status please"),
        usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) }
      })
      expect(s.created_at).toBeGreaterThan(1_600_000_000)
      expect(Number.isInteger(s.updated_at * 1000)).toBe(true)
      const unknown = await c.get("/v1/runs/run_0123456789abcdef0123456789abcdef")
      expect(unknown.status).toBe(404)
      expect(unknown.json.error.code).toBe("run_not_found")
    })

    it(generation === "new"
      ? "replays a start with the same Idempotency-Key and body; a different body is 409"
      : "ignores Idempotency-Key (no idempotency on older builds)", async () => {
      const key = { "idempotency-key": `key-${generation}-1` }
      const a = await c.post("/v1/runs", { input: "once" }, key)
      const b = await c.post("/v1/runs", { input: "once" }, key)
      if (generation === "old") {
        expect(b.json.run_id).not.toBe(a.json.run_id)
        return
      }
      expect(b.status).toBe(202)
      expect(b.json).toMatchObject({ run_id: a.json.run_id, replayed: true })
      expect(b.headers["idempotency-replayed"]).toBe("true")
      const conflict = await c.post("/v1/runs", { input: "twice" }, key)
      expect(conflict.status).toBe(409)
      expect(conflict.json.error.code).toBe("idempotency_key_conflict")
      const invalid = await c.post("/v1/runs", { input: "x" }, { "idempotency-key": "has space" })
      expect(invalid.status).toBe(400)
      expect(invalid.json.error.code).toBe("invalid_idempotency_key")
    })

    it("a failing run ends failed with its error; an unknown directive fails the run saying so", async () => {
      const f = await settled(c, (await c.post("/v1/runs", { input: "[sim:fail=disk on fire]" })).json.run_id)
      expect(f).toMatchObject({ status: "failed", error: "disk on fire" })
      const typo = await settled(c, (await c.post("/v1/runs", { input: "[sim:aproval]" })).json.run_id)
      expect(typo.error).toContain("unknown directive")
    })

    it("output=N, secrets and unicode directives shape the output", async () => {
      const big = await settled(c, (await c.post("/v1/runs", { input: "[sim:output=16k]" })).json.run_id)
      expect(big.output).toBe(fillerText(16 * 1024))
      const secret = await settled(c, (await c.post("/v1/runs", { input: "[sim:secrets]" })).json.run_id)
      for (const s of SIM_FAKE_SECRETS) expect(secret.output).toContain(s)
      const uni = await c.post("/v1/runs", { input: "[sim:unicode]" })
      await settled(c, uni.json.run_id)
      const raw = await c.get(`/v1/runs/${uni.json.run_id}`)
      expect(raw.text).toMatch(/^[\x20-\x7e]*$/)
      expect(raw.json.output).toContain("東京 🚀")
    })

    it("forgets terminal runs only after the retention time", async () => {
      const short = await startSimulatorAsync({ generation, terminalRetentionMs: 100 })
      try {
        const sc = rawClient(short.url, short.profile("default").key)
        const id = (await sc.post("/v1/runs", { input: "x" })).json.run_id
        await settled(sc, id)
        await eventually(async () => ((await sc.get(`/v1/runs/${id}`)).status === 404 ? true : undefined))
      } finally {
        await short.close()
      }
    })

    it(generation === "new"
      ? "after a restart, keeps statuses: an unsettled run is interrupted, idempotency survives"
      : "after a restart, knows no run at all", async () => {
      const live = await c.post("/v1/runs", { input: "[sim:slow=5000]" }, { "idempotency-key": `restart-${generation}` })
      const done = await c.post("/v1/runs", { input: "quick" })
      await settled(c, done.json.run_id)
      await sim.restart()
      const liveAfter = await c.get(`/v1/runs/${live.json.run_id}`)
      const doneAfter = await c.get(`/v1/runs/${done.json.run_id}`)
      if (generation === "old") {
        expect([liveAfter.status, doneAfter.status]).toEqual([404, 404])
        return
      }
      expect(liveAfter.json).toMatchObject({ status: "interrupted", error: RESTART_ERROR })
      expect(doneAfter.json.status).toBe("completed")
      const replay = await c.post("/v1/runs", { input: "[sim:slow=5000]" }, { "idempotency-key": `restart-${generation}` })
      expect(replay.json).toMatchObject({ run_id: live.json.run_id, replayed: true })
      // The in-memory event buffers are gone with the old process.
      expect((await c.sse(`/v1/runs/${done.json.run_id}/events`)).status).toBe(404)
    })

    it("restart({loseRuns: true}) forgets every run whatever the build", async () => {
      const id = (await c.post("/v1/runs", { input: "x" })).json.run_id
      await settled(c, id)
      await sim.restart({ loseRuns: true })
      expect((await c.get(`/v1/runs/${id}`)).status).toBe(404)
    })

    it("a [sim:restart] run takes the whole simulated Hermes down and back up", async () => {
      const id = (await c.post("/v1/runs", { input: "[sim:restart,slow=200]" })).json.run_id
      const after = await eventually(async () => {
        const r = await c.get(`/v1/runs/${id}`).catch(() => undefined)
        return r !== undefined && (r.status === 404 || r.json?.status === "interrupted") ? r : undefined
      })
      expect(after.status).toBe(generation === "old" ? 404 : 200)
    })
  })
}

describe("simulator variant answering a start with the whole status", () => {
  it("answers 202 with the status object", async () => {
    const sim = await startSimulatorAsync({ startReturnsStatus: true })
    try {
      const r = await rawClient(sim.url, sim.profile("default").key).post("/v1/runs", { input: "x" })
      expect(r.status).toBe(202)
      expect(r.json).toMatchObject({ object: "hermes.run", run_id: expect.stringMatching(RUN_ID), status: expect.any(String) })
    } finally {
      await sim.close()
    }
  })
})
