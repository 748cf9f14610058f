/**
 * The simulator against Hermes's protocol (docs/SIMULATOR.md), "Connection" and "Discovery", over real HTTP, both
 * generations: auth and its 401 envelope, the bare 403 for an Origin, multiplexed profiles with
 * their own keys, the live-run cap (429 + Retry-After), draining (503), the 10 MB body limit,
 * `/health`, `/v1/models`, `/v1/capabilities`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { eventually, rawClient } from "./support/raw.ts"

for (const generation of ["old", "new"] as const) {
  describe(`simulator (${generation} build): connection and discovery`, () => {
    let sim: SimulatorAsync
    beforeAll(async () => {
      sim = await startSimulatorAsync({ generation, profiles: [{ name: "default" }, { name: "coder" }], maxConcurrentRuns: 2 })
    })
    afterAll(() => sim.close())
    const as = (name: string, key?: string) => rawClient(sim.profile(name).url, key ?? sim.profile(name).key)

    it("asks for the bearer key everywhere but /health and /v1/health", async () => {
      const anon = rawClient(sim.url)
      expect((await anon.get("/health")).status).toBe(200)
      expect((await anon.get("/v1/health")).status).toBe(200)
      for (const path of ["/v1/models", "/v1/capabilities", "/v1/runs/run_x"]) {
        const r = await anon.get(path)
        expect(r.status).toBe(401)
        // Each build's 401 body as a real one writes it (no `param`).
        expect(r.json).toEqual(generation === "old"
          ? { error: { message: "Invalid API key", type: "invalid_request_error", code: "invalid_api_key" } }
          : { error: { message: "Invalid gateway API key (API_SERVER_KEY)", type: "gateway_auth_error", code: "gateway_auth_failed" } })
      }
      expect((await anon.post("/v1/runs", { input: "x" })).status).toBe(401)
      expect((await as("default", "wrong").get("/v1/models")).status).toBe(401)
    })

    it("answers a request with an Origin header with a bare 403, /health included", async () => {
      for (const r of [await as("default").get("/v1/models", { origin: "http://evil.example" }), await rawClient(sim.url).get("/health", { origin: "http://127.0.0.1" })]) {
        expect(r.status).toBe(403)
        expect(r.text).toBe("")
      }
    })

    it("answers a route it lacks with the framework's plain-text 404, a wrong method with 405 and Allow", async () => {
      const unknown = await as("default").get("/v1/nothing-here")
      expect([unknown.status, unknown.text, unknown.headers["content-type"]]).toEqual([404, "404: Not Found", "text/plain"])
      const wrong = await as("default").get("/v1/runs/run_x/stop")
      expect([wrong.status, wrong.text, wrong.headers["allow"]]).toEqual([405, "405: Method Not Allowed", "POST"])
      // Steering is a newer build's route.
      const steer = await as("default").post("/v1/runs/run_x/steer", { input: "x" })
      if (generation === "old") expect([steer.status, steer.text]).toEqual([404, "404: Not Found"])
      else expect(steer.json.error.code).toBe("run_not_found")
    })

    it("writes JSON as Python does: \", \" and \": \" separators, non-ASCII escaped", async () => {
      const r = await as("default").get("/v1/models")
      expect(r.text).toMatch(/^\{"object": "list", "data": \[\{"id": "hermes-agent", /)
    })

    it("serves each profile under /p/<profile> with its own key; a run of one profile is 404 under another", async () => {
      const coderKeyOnDefault = rawClient(sim.url, sim.profile("coder").key)
      expect((await coderKeyOnDefault.get("/v1/models")).status).toBe(401)
      expect((await as("coder").get("/v1/models")).json.data[0].id).toBe("coder")
      const started = await as("coder").post("/v1/runs", { input: "hi" })
      expect(started.status).toBe(202)
      expect((await as("coder").get(`/v1/runs/${started.json.run_id}`)).status).toBe(200)
      const elsewhere = await as("default").get(`/v1/runs/${started.json.run_id}`)
      expect(elsewhere.status).toBe(404)
      expect(elsewhere.json.error.code).toBe("run_not_found")
      expect((await rawClient(`${sim.url}/p/nobody`, "k").get("/v1/models")).status).toBe(404)
    })

    it("/health: status ok, platform and version", async () => {
      const r = await rawClient(sim.url).get("/health")
      expect(r.json).toEqual({ status: "ok", platform: "hermes-agent", version: generation === "new" ? "0.20.4" : "0.20.0" })
    })

    it("/v1/models: a list whose id is the profile name, else hermes-agent", async () => {
      const r = await as("default").get("/v1/models")
      expect(r.json).toMatchObject({ object: "list", data: [{ id: "hermes-agent", object: "model" }] })
    })

    it("/v1/capabilities: the flags of this build, steering and idempotency only on newer ones", async () => {
      const r = await as("default").get("/v1/capabilities")
      expect(r.json).toMatchObject({
        object: "hermes.api_server.capabilities",
        platform: "hermes-agent",
        model: "hermes-agent",
        features: {
          run_submission: true, run_status: true, run_events_sse: true, run_stop: true,
          run_approval_response: true, run_clarify: true, tool_progress_events: true, approval_events: true,
          session_key_header: "X-Hermes-Session-Key", cors: false
        },
        endpoints: { runs: { method: "POST", path: "/v1/runs" } }
      })
      expect(r.json.features.run_steer).toBe(generation === "new" ? true : undefined)
      expect(r.json.endpoints.run_steer === undefined).toBe(generation === "old")
      if (generation === "new") expect(r.json.features.runs_idempotency).toEqual({ supported: true, durable: true, retention_seconds: 86400 })
      else expect(r.json.features.runs_idempotency).toBeUndefined()
    })

    it("caps live runs across profiles: 429 rate_limit_exceeded with Retry-After: 1", async () => {
      await eventually(() => (sim.handle.state.liveRuns() === 0 ? true : undefined))
      const a = await as("default").post("/v1/runs", { input: "[sim:slow=3000]" })
      const b = await as("coder").post("/v1/runs", { input: "[sim:slow=3000]" })
      expect([a.status, b.status]).toEqual([202, 202])
      const c = await as("default").post("/v1/runs", { input: "third" })
      expect(c.status).toBe(429)
      expect(c.headers["retry-after"]).toBe("1")
      expect(c.json.error.code).toBe("rate_limit_exceeded")
      await as("default").post(`/v1/runs/${a.json.run_id}/stop`, {})
      await as("coder").post(`/v1/runs/${b.json.run_id}/stop`, {})
    })

    it("while draining, starts answer 503 gateway_draining with Retry-After: 1", async () => {
      await sim.setDraining(true)
      const r = await as("default").post("/v1/runs", { input: "x" })
      await sim.setDraining(false)
      expect(r.status).toBe(503)
      expect(r.headers["retry-after"]).toBe("1")
      expect(r.json.error.code).toBe("gateway_draining")
    })

    it("refuses a body over 10 MB with 413", async () => {
      const r = await as("default").post("/v1/runs", { input: "x".repeat(10 * 1024 * 1024 + 10) })
      expect(r.status).toBe(413)
    })
  })
}

describe("simulator: one listener per profile when not multiplexed", () => {
  it("gives each profile its own port, served at /", async () => {
    const sim = await startSimulatorAsync({ multiplex: false, profiles: [{ name: "default" }, { name: "writer" }] })
    try {
      const writer = sim.profile("writer")
      expect(writer.url).not.toContain("/p/")
      expect(writer.url).not.toBe(sim.url)
      expect((await rawClient(writer.url, writer.key).get("/v1/models")).json.data[0].id).toBe("writer")
      expect((await rawClient(`${sim.url}`, writer.key).get("/v1/models")).status).toBe(401)
    } finally {
      await sim.close()
    }
  })
})
