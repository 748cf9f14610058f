/**
 * Following a run without a timer (`Runs.watch`, and the faces that follow runs through it): on the
 * TestClock, which never moves here, a change reaches each follower at once. A face that polled
 * (a 500 ms read of every open task, a 500 ms sleep at a question) would see nothing, and fail.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream } from "effect"
import type { BridgeError } from "../../src/domain/errors.ts"
import { makeTaskStream, type StreamStep } from "../../src/edge/a2a/taskStream.ts"
import { makeTasksBridge } from "../../src/edge/mcp/tasks/tasksExtension.ts"
import { TASKS_EXTENSION_ID } from "../../src/edge/mcp/tasks/protocol.ts"
import { Caller } from "../../src/request/Caller.ts"
import { Runs } from "../../src/services/runs/Runs.ts"
import { sseWebResponse } from "../../src/edge/sse.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventuallyUnderTestClock, harness, statusIs } from "./support/harness.ts"

const alice = as("alice")

/** Event-loop turns only (the clock stays where it is): what a change set off gets to run. */
const turns = (n = 20) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, 5 * n)))

/** Until the watch has taken the run's signal (a change from now on reaches it), the clock standing still. */
const subscribed = (h: { readonly signals: { readonly size: Effect.Effect<number> } }) =>
  eventuallyUnderTestClock(h.signals.size, (n) => n >= 1, "the watch subscribed")

/** `fiber`'s result within `ms` of wall time, without moving the clock; fails the test otherwise. */
const joinWithin = <A, E>(fiber: Fiber.Fiber<A, E>, what: string, ms = 5_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return yield* Fiber.join(fiber)
      yield* turns(2)
    }
    return yield* Effect.dieMessage(`${what}: nothing arrived while the clock stood still`)
  })

/** A run of alice's waiting on her answer to "Which?" (the follower's flush needs the clock: moved before the test's part). */
const askingRun = Effect.gen(function* () {
  const h = yield* harness()
  const view = yield* alice(h.runs.start({ agent: "hermes", input: "deploy" }))
  const hid = [...h.hermes.runs.keys()][0]!
  yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Which?", choices: null, multi_select: false })
  const asking = yield* eventuallyUnderTestClock(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_clarification"), "the question")
  return { h, asking }
})

describe("watching a run, with the clock standing still", () => {
  it.scoped("Runs.watch: the view now, then the change, then the end", () =>
    Effect.gen(function* () {
      const { h, asking } = yield* askingRun
      const seen: Array<string> = []
      const watching = yield* alice(h.runs.watch(asking.run_id).pipe(
        Stream.tap((v) => Effect.sync(() => seen.push(v.status))),
        Stream.runCollect
      )).pipe(Effect.fork)
      yield* eventuallyUnderTestClock(Effect.sync(() => seen.length), (n) => n >= 1, "the first view")
      yield* alice(h.runs.answer(asking.run_id, "c1", "staging"))
      yield* eventuallyUnderTestClock(Effect.sync(() => seen.at(-1)), (s) => s === "running", "the answer")
      yield* alice(h.runs.stop(asking.run_id))
      const views = Chunk.toReadonlyArray(yield* joinWithin(watching, "the end"))
      expect(views[0]!.status).toBe("waiting_for_clarification")
      expect(views.map((v) => v.status)).toContain("running")
      expect(["cancelled", "stopping"]).toContain(views.at(-1)!.status)
    }).pipe(Effect.provide(TestDb)))

  it.scoped("a shutdown ends a watch with bridge.unavailable", () =>
    Effect.gen(function* () {
      const { h, asking } = yield* askingRun
      const watching = yield* alice(Stream.runDrain(h.runs.watch(asking.run_id))).pipe(Effect.flip, Effect.fork)
      yield* subscribed(h)
      yield* h.lifecycle.set("draining")
      const ended = yield* joinWithin(watching, "the shutdown")
      expect(ended._tag).toBe("Unavailable")
    }).pipe(Effect.provide(TestDb)))

  it.scoped("an unknown run fails the watch at once, as status does", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const failed = yield* alice(Stream.runCollect(h.runs.watch("run_" + "0".repeat(32)))).pipe(Effect.flip)
      expect(failed._tag).toBe("RunNotFound")
    }).pipe(Effect.provide(TestDb)))

  it.scoped("A2A SubscribeToTask at the client's turn: the answer is the next step, with no clock step", () =>
    Effect.gen(function* () {
      const { h, asking } = yield* askingRun
      const env = <A>(e: Effect.Effect<A, BridgeError, any>) =>
        alice(Effect.provideService(e, Runs, h.runs)) as Effect.Effect<A, BridgeError>
      const stream = makeTaskStream(asking.run_id, "subscribe", undefined)
      const first: StreamStep = yield* env(stream.first(asking))
      expect(first.done).toBe(false)
      const next = yield* Effect.fork(env(stream.next))
      yield* subscribed(h)
      yield* alice(h.runs.answer(asking.run_id, "c1", "staging"))
      const step = yield* joinWithin(next, "the A2A step")
      const states = step.events.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : []))
      expect(states.length).toBe(1)
    }).pipe(Effect.provide(TestDb)))

  it.scoped("MCP Tasks subscriptions/listen: a change is the next notification, with no clock step", () =>
    Effect.gen(function* () {
      const { h, asking } = yield* askingRun
      const runtime = yield* Effect.runtime<never>()
      const bridge = makeTasksBridge(() => () => Promise.reject(new Error("no task methods here")), 86_400_000)
      const body = {
        jsonrpc: "2.0", id: 7, method: "subscriptions/listen",
        params: { notifications: { taskIds: [asking.run_id] }, _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS_EXTENSION_ID]: {} } } } }
      }
      const serve = (frames: Stream.Stream<string, never, any>) =>
        sseWebResponse(Stream.provideService(frames as Stream.Stream<string, never, Runs>, Runs, h.runs), runtime, {})
      const res = bridge.listen(body, Caller.client("alice"), { token: undefined, client: "alice" }, serve)!
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
      const frame = () => Effect.promise(() => reader.read()).pipe(Effect.map((r) => r.value ?? ""))
      expect(yield* frame()).toContain("notifications/subscriptions/acknowledged")
      const next = yield* Effect.fork(frame())
      yield* subscribed(h)
      yield* alice(h.runs.answer(asking.run_id, "c1", "staging"))
      const changed = yield* joinWithin(next, "the task notification")
      expect(changed).toContain("notifications/tasks")
      expect(changed).toContain("\"status\":\"working\"")
      // The end, with the final result.
      const ending = yield* Effect.fork(frame())
      yield* h.hermes.complete([...h.hermes.runs.keys()][0]!, "done")
      let ended = yield* joinWithin(ending, "the end")
      while (!ended.includes("\"status\":\"completed\"")) ended = yield* joinWithin(yield* Effect.fork(frame()), "the end")
      expect(ended).toContain("structuredContent")
      yield* Effect.promise(() => reader.cancel())
    }).pipe(Effect.provide(TestDb)))
})

