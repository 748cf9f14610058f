/**
 * One contract suite, three Hermeses: the same scenarios against the simulator's two generations
 * (`contract.sim.old.test.ts` and `contract.sim.new.test.ts`, in `npm test`) and the real Hermes (`test/hermes-real/`, in
 * `npm run test:hermes`). Each scenario drives the bridge's HermesClient and, where the bridge
 * depends on a wire fact, plain HTTP. What differs between builds is decided by what the build
 * advertises (its capabilities), and each target says which generation it claims to be, so a
 * target that changes generation fails the first scenario instead of passing vacuously.
 */
import { Duration, Effect, Either, ManagedRuntime, Option, Redacted, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HermesClient, type HermesClientShape, type HermesEvent, type HermesProfile } from "../../../src/hermes/client/HermesClient.ts"
import { HermesClientWith } from "../../../src/hermes/client/HermesClientLive.ts"
import { featureGaps, optionalFeatures } from "../../../src/hermes/client/features.ts"
import { eventually, rawClient, type RawClient, sleep } from "../support/raw.ts"
import { type Relay, startRelay } from "./relay.ts"
import { bridgeHermes } from "../../../src/services/hermes-failures/bridgeHermes.ts"
import { type Generation, GENERATIONS } from "./generations.ts"

export type { Generation } from "./generations.ts"


export interface ContractTarget {
  readonly url: string
  readonly key: string
  /** Inputs that make this Hermes's model do each thing. */
  readonly inputs: {
    readonly plain: string
    readonly unicode: string
    readonly tool: string
    readonly approval: string
    /** A run that streams for a few seconds. */
    readonly slow: string
    /** A run that stays live for at least 20 s unless stopped. */
    readonly hold: string
    /** The model provider fails (with a key in its message). */
    readonly fail: string
    /** A run of more frames than the build keeps for replay (needed where the generation has a backlog limit). */
    readonly long?: string | undefined
    /** A run that delegates to a sub-agent (`subagent.*` events). */
    readonly subagent?: string | undefined
  }
  /** Restarts this Hermes on the same address with the same state on disk (the suite's last scenarios). */
  readonly restart?: (() => Promise<void>) | undefined
  /** The unicode text the `unicode` run's answer contains. */
  readonly unicodeText: string
  /** A secret the provider's error quoted, which Hermes must not pass on whole. */
  readonly providerSecret: string | null
  readonly close: () => Promise<void>
}

export interface ContractSpec {
  readonly name: string
  /** The generation this target claims; checked against its capabilities. */
  readonly generation: Generation
  /** Upper bound for one run (the real Hermes's first run after start takes up to 15 s). */
  readonly runTimeoutMs: number
  /** The target has `restart`: the restart scenario runs (last, since it empties Hermes's memory). */
  readonly restartable?: boolean | undefined
  readonly start: () => Promise<ContractTarget>
}

/** Bridge defects a scenario shows; each is fixed on the bridge side (its scenario is `it.fails`). */

const UNKNOWN = "run_0123456789abcdef0123456789abcdef"
const TERMINAL = new Set(["run.completed", "run.failed", "run.cancelled", "run.interrupted"])

const profileOf = (url: string, key: string | null): HermesProfile => ({
  name: "default", agent: "hermes", agentId: "hermes", baseUrl: url,
  key: key === null ? Option.none() : Option.some(Redacted.make(key))
})

const deltas = (events: ReadonlyArray<HermesEvent>) =>
  events.filter((e) => e.event === "message.delta").map((e) => String(e.data.delta)).join("")

export const contractSuite = (spec: ContractSpec): void => {
  describe(`Hermes contract: ${spec.name}`, () => {
    let target: ContractTarget
    let raw: RawClient
    let runtime: ManagedRuntime.ManagedRuntime<HermesClient, never>
    let p: HermesProfile
    const T = spec.runTimeoutMs
    const g = GENERATIONS[spec.generation]

    beforeAll(async () => {
      target = await spec.start()
      raw = rawClient(target.url, target.key)
      p = profileOf(target.url, target.key)
      runtime = ManagedRuntime.make(HermesClientWith([p], { timeout: "10 seconds", pollInterval: "100 millis", streamIdleTimeout: "5 seconds" }))
    }, 180_000)
    afterAll(async () => {
      await runtime?.dispose()
      await target?.close()
    }, 60_000)

    const run = <A, E>(f: (h: HermesClientShape) => Effect.Effect<A, E>): Promise<A> =>
      runtime.runPromise(Effect.flatMap(HermesClient, f))
    /** A failing call's error as the services see it (mapped to the bridge's errors). */
    const flip = <A, E>(f: (h: ReturnType<typeof bridgeHermes>) => Effect.Effect<A, E>): Promise<E> =>
      runtime.runPromise(Effect.flatMap(HermesClient, (h) => Effect.flip(f(bridgeHermes(h)))))
    const start = (input: string) => run((h) => h.start(p, { input })).then((r) => r.hermesRunId)
    /** One events connection until the terminal event, collected. */
    const events = (id: string, client: HermesClientShape | null = null) =>
      run((h) => Stream.runCollect((client ?? h).events(p, id).pipe(Stream.takeUntil((e) => TERMINAL.has(e.event))))).then((c) => [...c])
    /** Reads the events in the background; `upTo` resolves once an event matches. */
    const background = (id: string) => {
      const seen: Array<HermesEvent> = []
      const done = run((h) => Stream.runForEach(h.events(p, id).pipe(Stream.takeUntil((e) => TERMINAL.has(e.event))), (e) => Effect.sync(() => { seen.push(e) })))
        .then(() => seen)
      const upTo = (pred: (e: HermesEvent) => boolean) => eventually(() => seen.find(pred), T)
      return { seen, done, upTo }
    }
    const statusOf = (id: string, want: ReadonlyArray<string>) =>
      eventually(async () => {
        const s = await run((h) => h.status(p, id))
        return want.includes(s.status) ? s : undefined
      }, T, 50)

    it("health and capabilities: the runs API, and exactly what this generation has", async () => {
      const health = await rawClient(target.url).get("/health")
      expect(health.status).toBe(200)
      expect(health.json).toMatchObject({ status: "ok", platform: "hermes-agent", version: expect.any(String) })
      expect((await run((h) => h.health(p))).status).toBe("ok")
      const f = await run((h) => h.features(p))
      expect(f).toMatchObject({ runSubmission: true, runStatus: true, runEventsSse: true, runStop: true, runApprovalResponse: true, sessionKeyHeader: "X-Hermes-Session-Key" })
      expect({ steer: f.runSteer, idempotency: f.idempotency.supported, durable: f.idempotency.durable }).toEqual({ steer: g.steer, idempotency: g.durableIdempotency, durable: g.durableIdempotency })
    })

    it("start: 202 with a run id; a body without input, or not JSON, is 400", async () => {
      const r = await raw.post("/v1/runs", { input: target.inputs.plain })
      expect(r.status).toBe(202)
      expect(r.json).toMatchObject({ run_id: expect.stringMatching(/^run_[0-9a-f]{32}$/), status: "started" })
      const missing = await raw.post("/v1/runs", {})
      expect([missing.status, missing.json.error.message, missing.json.error.code]).toEqual([400, "Missing 'input' field", null])
      const bad = await raw.post("/v1/runs", "{not json")
      expect([bad.status, bad.json.error.message, bad.json.error.code]).toEqual([400, "Invalid JSON", null])
      await statusOf(r.json.run_id, ["completed"])
      // Without a session id or key, the run is its own session.
      const status = await raw.get(`/v1/runs/${r.json.run_id}`)
      expect(status.json).toMatchObject({ object: "hermes.run", run_id: r.json.run_id, session_id: r.json.run_id, status: "completed" })
    }, 60_000)

    it("a plain run streams to the end: the deltas are the output, the status agrees", async () => {
      const id = await start(target.inputs.plain)
      const all = await events(id)
      const last = all.at(-1)
      expect(last?.event).toBe("run.completed")
      expect(deltas(all).trim()).toBe(String(last?.data.output).trim())
      expect(last?.data.usage).toMatchObject({ total_tokens: expect.any(Number) })
      expect(all.map((e) => e.id)).toEqual(g.eventReplay ? all.map((_, i) => i) : all.map(() => null))
      const s = await statusOf(id, ["completed"])
      expect(s.output).toBe(last?.data.output)
    }, 60_000)

    it("unicode: ASCII-escaped on the wire, whole in the output", async () => {
      const id = await start(target.inputs.unicode)
      const wire = await raw.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes(": stream closed"), maxMs: T })
      expect(wire.status).toBe(200)
      expect(/^[\x00-\x7f]*$/.test(wire.text)).toBe(true)
      expect(wire.text).toContain("\\ud83d\\ude80")
      // JSON as Python writes it.
      expect(wire.text).toMatch(/(^|\n)data: \{"event": "/)
      const s = await statusOf(id, ["completed"])
      expect(s.output).toContain(target.unicodeText)
    }, 60_000)

    it("tool events: tool.started and tool.completed for terminal, before the answer", async () => {
      const id = await start(target.inputs.tool)
      const all = await events(id)
      const started = all.findIndex((e) => e.event === "tool.started")
      const completed = all.findIndex((e) => e.event === "tool.completed")
      expect(started).toBeGreaterThanOrEqual(0)
      expect(completed).toBeGreaterThan(started)
      expect(all[started]?.data).toMatchObject({ tool: "terminal", preview: expect.any(String) })
      expect(all[completed]?.data).toMatchObject({ tool: "terminal", duration: expect.any(Number), error: false })
      expect(all.at(-1)?.event).toBe("run.completed")
    }, 60_000)

    it("approval once: the request on the stream, waiting_for_approval, the answer, responded, completed; a second answer is no_pending_request", async () => {
      const id = await start(target.inputs.approval)
      const bg = background(id)
      const request = await bg.upTo((e) => e.event === "approval.request")
      expect(request.data).toMatchObject({
        command: expect.any(String), description: expect.any(String), pattern_key: expect.any(String), pattern_keys: expect.any(Array),
        choices: expect.arrayContaining(["once", "deny"])
      })
      // Builds from 0.20 on name the request; only some show it in the status.
      expect(typeof request.data.request_id === "string").toBe(g.approvalRequestId)
      const waiting = await statusOf(id, ["waiting_for_approval"])
      expect(waiting.approval === null).toBe(!g.statusShowsApproval)
      await run((h) => h.approval(p, id, { choice: "once", ...(g.approvalRequestId ? { requestId: String(request.data.request_id) } : {}) }))
      const all = await bg.done
      expect(all.find((e) => e.event === "approval.responded")?.data).toMatchObject({ choice: "once", resolved: 1 })
      expect(all.at(-1)?.event).toBe("run.completed")
      expect((await flip((h) => h.approval(p, id, { choice: "once" })))._tag).toBe("NoPendingRequest")
    }, 60_000)

    it("approval deny: the run goes on without the command and completes", async () => {
      const id = await start(target.inputs.approval)
      const bg = background(id)
      await bg.upTo((e) => e.event === "approval.request")
      await run((h) => h.approval(p, id, { choice: "deny" }))
      const all = await bg.done
      expect(all.find((e) => e.event === "approval.responded")?.data).toMatchObject({ choice: "deny" })
      expect(all.at(-1)?.event).toBe("run.completed")
    }, 60_000)

    it("stop a live run: stopping, then cancelled, and the stream ends with run.cancelled", async () => {
      const id = await start(target.inputs.slow)
      const bg = background(id)
      await bg.upTo((e) => e.event === "message.delta")
      await run((h) => h.stop(p, id))
      const all = await bg.done
      expect(all.at(-1)?.event).toBe("run.cancelled")
      expect((await statusOf(id, ["cancelled"])).status).toBe("cancelled")
    }, 60_000)

    it("stop a finished run: newer builds keep its status, older ones have no live task (run_not_found)", async () => {
      const id = await start(target.inputs.plain)
      await statusOf(id, ["completed"])
      const again = await runtime.runPromise(Effect.either(Effect.flatMap(HermesClient, (h) => bridgeHermes(h).stop(p, id))))
      expect(Either.isLeft(again) ? again.left._tag : "ok").toBe(g.stopFinishedKeepsStatus ? "ok" : "RunNotFound")
      expect((await run((h) => h.status(p, id))).status).toBe("completed")
    }, 60_000)

    it("an unknown run: status, stop and approval are run_not_found; its events are 404 (after about a second, where the build waits for a run to register)", async () => {
      expect((await flip((h) => h.status(p, UNKNOWN)))._tag).toBe("RunNotFound")
      expect((await flip((h) => h.stop(p, UNKNOWN)))._tag).toBe("RunNotFound")
      expect((await flip((h) => h.approval(p, UNKNOWN, { choice: "once" })))._tag).toBe("RunNotFound")
      const t0 = Date.now()
      const r = await raw.sse(`/v1/runs/${UNKNOWN}/events`)
      expect(r.status).toBe(404)
      // Upstream waits for a just-started run to register; the 0.22 fork answers an unknown run at once.
      if (g.unknownRunEventsWait) expect(Date.now() - t0).toBeGreaterThanOrEqual(900)
      else expect(Date.now() - t0).toBeLessThan(900)
      expect(JSON.parse(r.text).error.code).toBe("run_not_found")
    })

    it("a dropped stream: older builds answer the reconnect 404, newer ones replay; the follow ends with the whole output", async () => {
      const id = await start(target.inputs.slow)
      const first = await raw.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes("message.delta"), maxMs: T })
      expect(first.ending).toBe("stopped")
      // An older build notices the subscriber left at its next write, then forgets the queue.
      await sleep(1000)
      const again = await raw.sse(`/v1/runs/${id}/events`, { until: () => true, maxMs: 3000 })
      expect(again.status).toBe(g.eventReplay ? 200 : 404)
      if (!g.eventReplay) expect(JSON.parse(again.text).error.code).toBe("run_not_found")
      await statusOf(id, ["completed"])

      // The bridge's follow over a link that breaks in the middle of a run.
      let relay: Relay | null = null
      try {
        relay = await startRelay(target.url)
        const through = profileOf(relay.url, target.key)
        const id2 = await start(target.inputs.slow)
        const seen: Array<HermesEvent> = []
        const done = run((h) => Stream.runForEach(h.follow(through, id2, { pollInterval: "100 millis" }), (e) => Effect.sync(() => { seen.push(e) })))
        await eventually(() => (seen.some((e) => e.event === "message.delta") ? true : undefined), T)
        relay.cutAll()
        await done
        const final = await statusOf(id2, ["completed"])
        expect(seen.at(-1)?.event).toBe("run.completed")
        expect(seen.at(-1)?.data.output).toBe(final.output)
      } finally {
        await relay?.close()
      }
    }, 90_000)

    it("a second concurrent subscriber: newer builds give each every frame, older ones split one queue between them", async () => {
      const id = await start(target.inputs.slow)
      const opts = { until: (t: string) => t.includes(": stream closed"), maxMs: Math.min(T, 12_000) }
      const a = raw.sse(`/v1/runs/${id}/events`, opts)
      await sleep(300)
      const b = raw.sse(`/v1/runs/${id}/events`, opts)
      const [ra, rb] = await Promise.all([a, b])
      expect([ra.status, rb.status]).toEqual([200, 200])
      const final = await statusOf(id, ["completed"])
      const closed = [ra, rb].filter((r) => r.text.includes(": stream closed"))
      if (g.eventReplay) {
        expect(closed).toHaveLength(2)
      } else {
        // One of them got the end; every frame went to exactly one of them.
        expect(closed).toHaveLength(1)
        const frames = [...ra.frames, ...rb.frames]
        expect(new Set(frames.map((f) => f.data)).size).toBe(frames.length)
        const text = frames.filter((f) => f.json.event === "message.delta").sort((x, y) => x.json.timestamp - y.json.timestamp).map((f) => f.json.delta).join("")
        expect(text.trim()).toBe(String(final.output).trim())
      }
    }, 60_000)

    it("a re-attach while the dead subscriber is still registered: older builds answer 200, the dead one takes the next event and the queue with it; only the status tells the end", async () => {
      const id = await start(target.inputs.approval)
      // The first subscriber goes away while the run waits (no write is due: Hermes does not notice).
      const first = await raw.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes("approval.request"), maxMs: T })
      expect(first.ending).toBe("stopped")
      const request = first.frames.map((f) => f.json).find((j) => j.event === "approval.request")
      await statusOf(id, ["waiting_for_approval"])
      const again = raw.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes(": stream closed"), maxMs: g.eventReplay ? T : 8_000 })
      await sleep(500)
      await run((h) => h.approval(p, id, { choice: "once", ...(g.approvalRequestId ? { requestId: String(request?.request_id) } : {}) }))
      const final = await statusOf(id, ["completed"])
      const r = await again
      expect(r.status).toBe(200)
      if (g.eventReplay) {
        expect(r.frames.at(-1)?.json.event).toBe("run.completed")
      } else {
        // Not one event after the approval: they went to the dead connection, or to nobody.
        expect(r.frames).toEqual([])
        expect(r.text).not.toContain(": stream closed")
        expect(final.output).toEqual(expect.any(String))
      }
    }, 90_000)

    it("idempotent start: newer builds replay the same key and body, older ones ignore the key", async () => {
      const key = `contract-${Date.now()}`
      const body = { input: target.inputs.plain }
      const one = await raw.post("/v1/runs", body, { "idempotency-key": key })
      const two = await raw.post("/v1/runs", body, { "idempotency-key": key })
      expect([one.status, two.status]).toEqual([202, 202])
      expect(one.json.run_id === two.json.run_id).toBe(g.durableIdempotency)
      const viaClient = await run((h) => Effect.all([h.start(p, { input: target.inputs.plain, idempotencyKey: `${key}-c` }), h.start(p, { input: target.inputs.plain, idempotencyKey: `${key}-c` })]))
      expect(viaClient[1].replayed).toBe(g.durableIdempotency)
      expect(viaClient[0].hermesRunId === viaClient[1].hermesRunId).toBe(g.durableIdempotency)
      for (const id of [one.json.run_id, two.json.run_id, viaClient[0].hermesRunId, viaClient[1].hermesRunId]) await statusOf(id, ["completed"])
    }, 90_000)

    if (g.steer) {
      it("steer while running is accepted and confirmed by run.steered", async () => {
        const id = await start(target.inputs.slow)
        const bg = background(id)
        await bg.upTo((e) => e.event === "message.delta")
        await run((h) => h.steer(p, id, "also mention the tests"))
        const all = await bg.done
        expect(all.some((e) => e.event === "run.steered")).toBe(true)
      }, 60_000)
    } else {
      it("steer on a build without run_steer: the route is the framework's plain-text 404", async () => {
        const id = await start(target.inputs.slow)
        const r = await raw.post(`/v1/runs/${id}/steer`, { input: "x" })
        expect([r.status, r.text]).toEqual([404, "404: Not Found"])
        await run((h) => h.stop(p, id))
      }, 60_000)

      it("steer on a build without run_steer: the client says what this Hermes lacks, not that the run is unknown or over", async () => {
        const id = await start(target.inputs.slow)
        try {
          await statusOf(id, ["running"])
          const e = await flip((h) => h.steer(p, id, "x"))
          expect(["RunNotFound", "RunNotRunning"]).not.toContain(e._tag)
          expect(String((e as { message?: unknown }).message)).toMatch(/steer/i)
        } finally {
          await run((h) => h.stop(p, id)).catch(() => undefined)
        }
      }, 60_000)
    }

    it("a provider error: run.failed with an error that does not carry the provider's key whole", async () => {
      const id = await start(target.inputs.fail)
      const all = await events(id)
      const last = all.at(-1)
      expect(last?.event).toBe("run.failed")
      expect(last?.data.error).toEqual(expect.any(String))
      if (target.providerSecret !== null) expect(String(last?.data.error)).not.toContain(target.providerSecret)
      expect((await statusOf(id, ["failed"])).error).toEqual(expect.any(String))
    }, 60_000)

    it("401 for a wrong key, in Hermes's JSON envelope; the client calls it agent_refused", async () => {
      const r = await rawClient(target.url, "wrong-key-0123456789").get("/v1/capabilities")
      expect(r.status).toBe(401)
      // 0.19 says invalid_api_key, 0.20 gateway_auth_failed: the code is not tied to the generation.
      expect(r.json.error).toMatchObject({ message: expect.any(String), type: expect.any(String) })
      expect(r.json.error.code).toBe(g.authCode)
      const e = await flip((h) => h.status(profileOf(target.url, "wrong-key-0123456789"), UNKNOWN))
      expect(e._tag).toBe("AgentRefused")
    })

    it("any Origin header: a bare 403 with an empty body, /health included", async () => {
      for (const [path, c] of [["/health", rawClient(target.url)], ["/v1/capabilities", raw]] as const) {
        const r = await c.get(path, { origin: "http://127.0.0.1:1" })
        expect([r.status, r.text]).toEqual([403, ""])
      }
    })

    it("what the bridge detects: steer, event replay and durable idempotency exactly as this generation has them", async () => {
      // Event replay is known once a stream of the profile was read.
      await events(await start(target.inputs.plain))
      const detected = optionalFeatures(await run((h) => h.features(p)))
      expect(detected).toEqual({ steer: g.steer, event_replay: g.eventReplay, durable_idempotency: g.durableIdempotency })
      expect(featureGaps(detected).unknown).toEqual([])
    }, 60_000)

    if (g.eventReplay) {
      it("Last-Event-ID: a reconnect after frame N gets exactly the frames after it, and the bridge's follow resumes there", async () => {
        const id = await start(target.inputs.plain)
        const all = await events(id)
        const wire = await raw.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": "1" }, until: (t) => t.includes(": stream closed"), maxMs: T })
        expect(wire.status).toBe(200)
        expect(wire.frames.map((f) => f.id)).toEqual(all.slice(2).map((e) => String(e.id)))
        const resumed = await run((h) => Stream.runCollect(h.follow(p, id, { lastEventId: 1 }))).then((c) => [...c])
        expect(resumed.map((e) => e.id)).toEqual(all.slice(2).map((e) => e.id))
        expect(resumed.at(-1)?.data.output).toBe(all.at(-1)?.data.output)
      }, 60_000)
    }

    if (g.replayBacklog !== null) {
      it("a replay from before the backlog: replay.truncated with the oldest retained frame first; the bridge's follow still ends with the whole output", async () => {
        const long = target.inputs.long
        if (long === undefined) throw new Error(`this target keeps ${g.replayBacklog} frames for replay but has no long run to pass them`)
        const id = await start(long)
        const final = await statusOf(id, ["completed"])
        const wire = await raw.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": "0" }, until: (t) => t.includes(": stream closed"), maxMs: T })
        expect(wire.status).toBe(200)
        const first = wire.frames[0]?.json
        expect(first).toMatchObject({ event: "replay.truncated", oldest_retained_seq: expect.any(Number) })
        // The end of the stream takes one of the kept places.
        const retained = wire.frames.slice(1)
        expect(retained).toHaveLength((g.replayBacklog ?? 0) - 1)
        expect(retained[0]?.id).toBe(String(first.oldest_retained_seq))
        expect(retained.at(-1)?.json.event).toBe("run.completed")
        const resumed = await run((h) => Stream.runCollect(h.follow(p, id, { lastEventId: 0 }))).then((c) => [...c])
        expect(resumed.at(-1)?.event).toBe("run.completed")
        expect(resumed.at(-1)?.data.output).toBe(final.output)
      }, 120_000)
    }

    /** A start admitted, after waiting out any 429 as its Retry-After says (bounded by the run timeout). */
    const admitted = (input: string) =>
      eventually(async () => {
        const r = await raw.post("/v1/runs", { input })
        if (r.status === 202) return r.json.run_id as string
        expect(r.status).toBe(429)
        await sleep(1000 * Number(r.headers["retry-after"] ?? 1))
        return undefined
      }, T)

    it("the cap: with 10 runs live, a start is 429 rate_limit_exceeded with Retry-After: 1 and starts nothing; the client reads it as such", async () => {
      const held: Array<string> = []
      try {
        // Each of the ten is admitted, after the Retry-After of a 429 while an earlier scenario's run
        // still lets go of its slot.
        for (let i = 0; i < 10; i++) held.push(await admitted(target.inputs.hold))
        const r = await raw.post("/v1/runs", { input: target.inputs.plain })
        expect(r.status).toBe(429)
        expect(r.headers["retry-after"]).toBe("1")
        expect(r.json.error).toMatchObject({ message: "Too many concurrent runs (max 10)", type: "rate_limit_error", code: "rate_limit_exceeded" })
        const e = await run((h) => Effect.flip(h.start(p, { input: target.inputs.plain })))
        expect(e).toMatchObject({ _tag: "HermesStatus", status: 429, code: "rate_limit_exceeded" })
        expect(e._tag === "HermesStatus" ? Option.map(e.retryAfter, Duration.toMillis) : Option.none()).toEqual(Option.some(1000))
        expect((await flip((h) => h.start(p, { input: target.inputs.plain })))._tag).toBe("AgentRefused")
      } finally {
        for (const id of held) await run((h) => h.stop(p, id)).catch(() => undefined)
        for (const id of held) await statusOf(id, ["cancelled", "completed", "failed"])
      }
      // Slots freed: a start is admitted again, after the Retry-After of any 429 that still comes
      // (a real Hermes may report a stopped run cancelled a moment before its task lets go of the slot).
      await statusOf(await admitted(target.inputs.plain), ["completed"])
    }, 180_000)

    // After the cap: from 0.20 on the sub-agent goes on in the background after its run ended, so
    // it is kept away from the scenario that counts live runs.
    it("sub-agents: the subagent.* events this build sends on the run's stream (none on 0.19, only the start from 0.20 on), and the run completes", async () => {
      const input = target.inputs.subagent
      if (input === undefined) throw new Error("this target has no run that delegates to a sub-agent")
      const all = await events(await start(input))
      const names = all.map((e) => e.event)
      expect(names.filter((n) => n.startsWith("subagent."))).toEqual(
        g.subagentEvents === "none" ? [] : g.subagentEvents === "start" ? ["subagent.start"] : ["subagent.start", "subagent.complete"]
      )
      if (g.subagentEvents !== "none") expect(all.find((e) => e.event === "subagent.start")?.data).toMatchObject({ goal: expect.any(String) })
      if (g.subagentEvents !== "both") {
        // The sub-agent is a delegate_task tool call, around its start where there is one.
        const tool = names.indexOf("tool.started")
        expect(all[tool]?.data).toMatchObject({ tool: "delegate_task" })
        expect(names.indexOf("tool.completed")).toBeGreaterThan(g.subagentEvents === "start" ? names.indexOf("subagent.start") : tool)
      }
      expect(names.at(-1)).toBe("run.completed")
    }, 90_000)

    if (spec.restartable === true) {
      it("a Hermes restart: statuses and idempotency keys survive where the build keeps them, event backlogs never do", async () => {
        const restart = target.restart
        if (restart === undefined) throw new Error("this target claims to restart but has no restart")
        const key = `restart-${Date.now()}`
        const body = { input: target.inputs.plain }
        const keyed = (await raw.post("/v1/runs", body, { "idempotency-key": key })).json.run_id as string
        const unkeyed = await start(target.inputs.plain)
        await statusOf(keyed, ["completed"])
        await statusOf(unkeyed, ["completed"])
        const live = (await raw.post("/v1/runs", { input: target.inputs.hold }, { "idempotency-key": `${key}-live` })).json.run_id as string
        await statusOf(live, ["running"])
        await restart()
        const after = (id: string) =>
          runtime.runPromise(Effect.flatMap(HermesClient, (h) => Effect.either(bridgeHermes(h).status(p, id)))).then((e) => (Either.isRight(e) ? e.right.status : e.left._tag))
        expect({ keyed: await after(keyed), unkeyed: await after(unkeyed), live: await after(live) }).toEqual({
          keyed: g.restartKeeps === "none" ? "RunNotFound" : "completed",
          unkeyed: g.restartKeeps === "all" ? "completed" : "RunNotFound",
          // The run that was live when Hermes went down did not go on.
          live: g.restartKeeps === "none" ? "RunNotFound" : "interrupted"
        })
        if (g.restartKeeps !== "none") expect((await run((h) => h.status(p, live))).error).toBe("The gateway restarted before this run settled.")
        // Every build keeps event backlogs in memory only.
        expect((await raw.sse(`/v1/runs/${keyed}/events`, { until: () => true, maxMs: 5000 })).status).toBe(404)
        const again = await raw.post("/v1/runs", body, { "idempotency-key": key })
        expect(again.status).toBe(202)
        expect(again.json.run_id === keyed).toBe(g.durableIdempotency)
        await statusOf(again.json.run_id, ["completed"])
      }, 240_000)
    }
  })
}
