/**
 * The daemon's log lines: a run's life at info (start with client, agent and ids; end with status
 * and duration), each Hermes trouble at warn (route, status, what the bridge does next), one line
 * each, redacted, in the configured format and from the configured level.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Deferred, Effect, Either, HashMap, Layer, List, Logger, LogLevel, Stream } from "effect"
import { loadConfig } from "../../src/config/load.ts"
import { logLevelOf, loggingLayer } from "../../src/daemon/logging.ts"
import { makeHermesClient } from "../../src/hermes/client/HermesClientLive.ts"
import { Redactor, RedactorWith } from "../../src/common/Redactor.ts"
import { makeRunSupervisor } from "../../src/services/runs/RunSupervisor.ts"
import { TestDb } from "../support/testDb.ts"
import { hermes020 } from "../hermes/support/hermes020.ts"
import { as, eventually, harness } from "./support/harness.ts"

interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** A logger that keeps every entry (as the daemon's would see it) for the test to read. */
const capture = () => {
  const lines: Array<Line> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    const text = List.isList(message) ? List.toArray(message as List.List<unknown>).join(" ") : Array.isArray(message) ? message.join(" ") : String(message)
    lines.push({ level: logLevel.label, message: text, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

const RUN = "run_0123456789abcdef0123456789abcdef"

describe("run life at info", () => {
  it.live("a run's start names client, agent and both ids; its end its status and duration", () => {
    const log = capture()
    return Effect.gen(function* () {
      const h = yield* harness()
      const view = yield* as("alice")(h.runs.start({ agent: "hermes/coder", input: "write a haiku" }))
      const hermesId = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.complete(hermesId, "done")
      yield* eventually(Effect.sync(() => log.lines.some((l) => l.message === "run ended")), (b) => b, "the end line")
      const started = log.lines.find((l) => l.message === "run started")
      expect(started).toMatchObject({ level: "INFO", annotations: { run_id: view.run_id, hermes_run_id: hermesId, client: "alice", agent: "hermes/coder" } })
      const ended = log.lines.find((l) => l.message === "run ended")
      expect(ended).toMatchObject({ level: "INFO", annotations: { run_id: view.run_id, status: "completed", client: "alice" } })
      expect(typeof ended?.annotations.duration_ms).toBe("number")
      expect(log.lines.filter((l) => l.message === "run ended")).toHaveLength(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb), Effect.provide(log.layer))
  })
})

describe("a run's follower's lines", () => {
  it.live("carry the run's id, restarts included, and the fiber that attached the run carries none", () => {
    const log = capture()
    return Effect.gen(function* () {
      let attempts = 0
      const done = yield* Deferred.make<void>()
      const followOnce = (_runId: string) =>
        Effect.suspend(() => (++attempts < 2
          ? Effect.zipRight(Effect.logInfo("following"), Effect.fail("dropped"))
          : Effect.zipRight(Effect.logInfo("following again"), Deferred.succeed(done, undefined))))
      const supervisor = yield* makeRunSupervisor(followOnce)
      yield* supervisor.attach("run_a")
      yield* Deferred.await(done)
      yield* Effect.logInfo("after attaching")
      const byMessage = (m: string) => log.lines.filter((l) => l.message.startsWith(m)).map((l) => l.annotations["runId"])
      expect(byMessage("following")).toEqual(["run_a", "run_a"])
      expect(byMessage("run follower failed; restarting")).toEqual(["run_a"])
      expect(byMessage("after attaching")).toEqual([undefined])
    }).pipe(Effect.scoped, Effect.provide(log.layer))
  })
})

describe("Hermes trouble at warn", () => {
  it.live("a stream that ends early, the 404 on reconnect and the fall-back to polling: one line each, with route and what comes next", () => {
    const log = capture()
    return Effect.gen(function* () {
      const h = yield* hermes020
      h.runs.set(RUN, { frames: [{ event: "message.delta", run_id: RUN, delta: "Hel" }], status: { status: "completed", output: "Hello" } })
      const hermes = yield* makeHermesClient([h.profile], { timeout: "2 seconds", pollInterval: "20 millis" })
      yield* Stream.runDrain(hermes.follow(h.profile, RUN))
      const warns = log.lines.filter((l) => l.level === "WARN")
      expect(warns.map((w) => w.annotations.next)).toEqual([
        "reconnecting the event stream after a backoff",
        "polling the run's status instead of its event stream"
      ])
      expect(warns[0]?.annotations).toMatchObject({ route: "GET /v1/runs/{id}/events", hermes_run_id: RUN })
      expect(warns[1]?.annotations).toMatchObject({ route: "GET /v1/runs/{id}/events", hermes_status: 404, problem: "status 404 run_not_found" })
    }).pipe(Effect.provide(NodeHttpClient.dispatcherLayer), Effect.scoped, Effect.provide(log.layer))
  })

  it.live("a steer on a build without run_steer is logged with its route and the answer given", () => {
    const log = capture()
    return Effect.gen(function* () {
      const h = yield* hermes020
      const hermes = yield* makeHermesClient([h.profile], { timeout: "2 seconds" })
      yield* Effect.flip(hermes.steer(h.profile, RUN, "left"))
      const [warn] = log.lines.filter((l) => l.level === "WARN")
      expect(warn?.message).toContain("run_steer")
      expect(warn?.annotations).toMatchObject({ route: "POST /v1/runs/{id}/steer", hermes_run_id: RUN, next: "answering bridge.agent_refused" })
    }).pipe(Effect.provide(NodeHttpClient.dispatcherLayer), Effect.scoped, Effect.provide(log.layer))
  })
})

describe("the daemon's logger", () => {
  /** Runs `body` under the daemon's logging layer and returns the stderr lines it wrote. */
  const written = (level: LogLevel.LogLevel, format: "text" | "json", body: Effect.Effect<void, never, Redactor>) =>
    Effect.gen(function* () {
      const out: Array<string> = []
      // Effect's Console with its `unsafe` console's `error` (what withConsoleError writes to) captured.
      const current = yield* Effect.console
      const stderr = { ...current, unsafe: { ...current.unsafe, error: (...xs: ReadonlyArray<unknown>) => void out.push(xs.map(String).join(" ")) } }
      // A layer value of its own (not Layer.fresh: provideMerge would then build two redactors).
      const redactor = RedactorWith([])
      yield* Effect.gen(function* () {
        const r = yield* Redactor
        yield* r.registerSecret("hermes-secret-key-0123456789")
        yield* body
      }).pipe(
        Effect.provide(loggingLayer(level, format).pipe(Layer.provideMerge(redactor))),
        Effect.withConsole(stderr)
      )
      return out
    })

  it.effect("json: one JSON object per line, the key masked, below the level nothing", () =>
    Effect.gen(function* () {
      const out = yield* written(logLevelOf("warn"), "json", Effect.gen(function* () {
        yield* Effect.logInfo("not written")
        yield* Effect.logWarning("Hermes trouble: refused hermes-secret-key-0123456789").pipe(Effect.annotateLogs({ route: "GET /v1/runs/{id}" }))
      }))
      expect(out).toHaveLength(1)
      const line = JSON.parse(out[0]!) as { message: unknown; logLevel: string; annotations: Record<string, unknown> }
      expect(line.logLevel).toBe("WARN")
      expect(line.annotations.route).toBe("GET /v1/runs/{id}")
      expect(out[0]).not.toContain("hermes-secret-key-0123456789")
    }))

  it.effect("text: logfmt, one line, from info up by default", () =>
    Effect.gen(function* () {
      const out = yield* written(logLevelOf("info"), "text", Effect.gen(function* () {
        yield* Effect.logDebug("not written")
        yield* Effect.logInfo("run started").pipe(Effect.annotateLogs({ client: "alice" }))
      }))
      expect(out).toHaveLength(1)
      expect(out[0]).toMatch(/level=INFO .*message="run started".* client=alice/)
      expect(out[0]).not.toContain("\n")
    }))

  it("bridge.log_level and bridge.log_format default to info and text; the environment overrides them; bad values are refused", () => {
    const base = { cwd: "/nonexistent-dir-for-config-test" }
    const plain = loadConfig({ ...base, env: {} })
    expect(Either.isRight(plain) && [plain.right.bridge.log_level, plain.right.bridge.log_format]).toEqual(["info", "text"])
    const env = loadConfig({ ...base, env: { AGENT_BRIDGE_BRIDGE_LOG_LEVEL: "debug", AGENT_BRIDGE_BRIDGE_LOG_FORMAT: "json" } })
    expect(Either.isRight(env) && [env.right.bridge.log_level, env.right.bridge.log_format]).toEqual(["debug", "json"])
    const bad = loadConfig({ ...base, env: { AGENT_BRIDGE_BRIDGE_LOG_LEVEL: "loud" } })
    expect(Either.isLeft(bad) && bad.left.message).toContain("log_level")
  })
})
