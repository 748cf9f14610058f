/**
 * A stop whose answer Hermes sends after the run's `run.cancelled`: the follower may see the run end
 * while the stop is still waiting for Hermes. The stop's own record (`run.stopping`, with the
 * operator as its actor) must still be stored, before the end, and the stop must answer the run.
 * Likewise an answer whose reply Hermes sends after its `clarify.responded` echo: the client's
 * `clarify.answered` (with the answer) is the one recorded, not a bare echo without it. Both hold
 * when the run's follower is in another process (a replica), and an answer Hermes refused is never
 * the one recorded.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Fiber, Option, Scope, TestClock } from "effect"
import { Caller } from "../../src/request/Caller.ts"
import { TestDb } from "../support/testDb.ts"
import { makeRunLocks } from "../../src/services/runs/runLocks.ts"
import { as, type Built, buildRuns, eventually, harness, statusIs } from "./support/harness.ts"

const admin = as(Caller.admin)
type Harness = Effect.Effect.Success<ReturnType<typeof harness>>

/**
 * A second daemon on the harness's database and Hermes (a replica behind the same load balancer),
 * built before any run exists, so it follows none of them.
 */
const anotherProcess = (h: Harness) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return yield* buildRuns(h.hermes, h.inbox, h.options, scope)
  })

/**
 * A run started on `h` that asks which environment, answered "staging" by its client through
 * `answerer` (`h`, or another process), then completed: the answer's view and the run's
 * `clarify.answered` events.
 */
const answeredStaging = (h: Harness, answerer: Built) =>
  Effect.gen(function* () {
    const alice = as("alice")
    const view = yield* alice(h.runs.start({ agent: "hermes", input: "deploy" }))
    const hid = [...h.hermes.runs.keys()][0]!
    yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Which environment?", choices: ["staging", "production"], multi_select: false })
    yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_clarification"), "asked")
    const answered = yield* alice(answerer.runs.answer(view.run_id, "c1", "staging"))
    yield* h.hermes.complete(hid, "deployed to staging")
    yield* eventually(alice(answerer.runs.status(view.run_id, 0)), statusIs("completed"), "completed")
    const events = (yield* alice(answerer.runs.events(view.run_id, 0, 100))).events.filter((e) => e.type === "clarify.answered")
    return { answered, events }
  })

/** A run started on `h` and stopped by the operator through `stopper` (`h`, or another process): its events once it is cancelled. */
const operatorStopped = (h: Harness, stopper: Built) =>
  Effect.gen(function* () {
    const view = yield* as("alice")(h.runs.start({ agent: "hermes", input: "long task" }))
    yield* eventually(admin(h.runs.status(view.run_id, 0)), statusIs("running"), "running")
    const stopped = yield* admin(stopper.runs.stop(view.run_id, { by: "operator", via: "cli" }))
    expect(["stopping", "cancelled"]).toContain(stopped.status)
    yield* eventually(admin(stopper.runs.status(view.run_id, 0)), statusIs("cancelled"), "cancelled")
    return (yield* admin(stopper.runs.events(view.run_id, 0, 100))).events
  })

describe("a stop racing the run's end", () => {
  it.live("records the operator's run.stopping before Hermes's run.cancelled, though Hermes answers the stop late", () =>
    Effect.gen(function* () {
      const h = yield* harness({ stopAnswerDelayMs: 400 })
      const types = yield* operatorStopped(h, h)
      const stopping = types.findIndex((e) => e.type === "run.stopping")
      const cancelled = types.findIndex((e) => e.type === "run.cancelled")
      expect(stopping, JSON.stringify(types.map((e) => e.type))).toBeGreaterThanOrEqual(0)
      expect(types[stopping]!.data).toEqual({ by: "operator", via: "cli" })
      expect(cancelled).toBeGreaterThan(stopping)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("a stop through another process than the run's follower (a replica)", () => {
  // The run's permit is a process's own (runLocks.ts): the follower in the other process commits
  // Hermes's run.cancelled whenever it comes, here before this stop's answer from Hermes. The stop
  // stored what it asks before asking, so that commit stores the stop's run.stopping first.
  it.live("keeps the stop's run.stopping, with its actor, though the follower elsewhere stored the run's end first", () =>
    Effect.gen(function* () {
      // Hermes answers the stop 3 s after its run.cancelled: the follower has stored the end by
      // then even on a loaded machine, so the race goes its way every time.
      const h = yield* harness({ stopAnswerDelayMs: 3_000 })
      const events = yield* operatorStopped(h, yield* anotherProcess(h))
      const types = JSON.stringify(events.map((e) => e.type))
      expect(events.filter((e) => e.type === "run.stopping").map((e) => e.data), types).toEqual([{ by: "operator", via: "cli" }])
      expect(events.filter((e) => e.type === "run.cancelled"), types).toHaveLength(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("an answer through another process than the run's follower", () => {
  it.live("records the client's answer, once, though the follower elsewhere stored Hermes's echo (without it) first", () =>
    Effect.gen(function* () {
      const h = yield* harness({ clarifyAnswerDelayMs: 400 })
      const { answered, events } = yield* answeredStaging(h, yield* anotherProcess(h))
      expect(answered.pending).toBeNull()
      // The follower stored the echo first, as the client's answer the answer had stored on the run.
      expect(events.map((e) => e.data)).toEqual([{ request_id: "c1", answer: "staging", via: "client" }])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("an answer through another process, the run ended before the answer's own record", () => {
  it.live("records the client's answer before the run's end, and nothing after it", () =>
    Effect.gen(function* () {
      const h = yield* harness({ clarifyAnswerDelayMs: 400 })
      const elsewhere = yield* anotherProcess(h)
      const alice = as("alice")
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "deploy" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Which environment?", choices: ["staging", "production"], multi_select: false })
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_clarification"), "asked")
      // The answer goes through the other process; Hermes's echo reaches the follower, and the run
      // ends, while that process still waits for Hermes's reply.
      const answering = yield* Effect.fork(alice(elsewhere.runs.answer(view.run_id, "c1", "staging")))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("running"), "the echo stored")
      yield* h.hermes.complete(hid, "deployed to staging")
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("completed"), "completed")
      yield* Fiber.join(answering)
      const events = (yield* alice(h.runs.events(view.run_id, 0, 100))).events
      expect(events.at(-1)!.type, JSON.stringify(events.map((e) => e.type))).toBe("run.completed")
      expect(events.filter((e) => e.type === "clarify.answered").map((e) => e.data)).toEqual([{ request_id: "c1", answer: "staging", via: "client" }])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("an answer racing Hermes's echo of it", () => {
  it.live("records the client's answer, once, though Hermes echoes it before its reply to the answer", () =>
    Effect.gen(function* () {
      const h = yield* harness({ clarifyAnswerDelayMs: 400 })
      const { answered, events } = yield* answeredStaging(h, h)
      expect(answered.status).toBe("running")
      expect(answered.pending).toBeNull()
      expect(events.map((e) => e.data)).toEqual([{ request_id: "c1", answer: "staging", via: "client" }])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("two answers to one question through two other processes", () => {
  it.live("never stores the answer Hermes refused: the one it took, or its echo without an answer", () =>
    Effect.gen(function* () {
      // Each answer reaches Hermes 300 ms after it is sent, and Hermes replies 400 ms after its echo:
      // both answers are on their way at once, and the follower stores the echo before either's record.
      const h = yield* harness({ clarifyReachDelayMs: 300, clarifyAnswerDelayMs: 400 })
      const [first, second] = [yield* anotherProcess(h), yield* anotherProcess(h)]
      const alice = as("alice")
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "deploy" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Which environment?", choices: ["staging", "production"], multi_select: false })
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_clarification"), "asked")
      const staging = yield* Effect.fork(Effect.either(alice(first.runs.answer(view.run_id, "c1", "staging"))))
      // The second is sent once the first is on its way (stored on the run), so Hermes takes the first.
      yield* eventually(h.ledger.get(view.run_id), (r) => Option.isSome(r) && r.value.answerAsked !== null, "the first answer on its way")
      const production = yield* Effect.either(alice(second.runs.answer(view.run_id, "c1", "production")))
      const took = yield* Fiber.join(staging)
      expect(Either.isRight(took)).toBe(true)
      expect(Either.isLeft(production) && production.left._tag).toBe("NoPendingRequest")
      expect(h.hermes.calls.clarify).toEqual(["staging"])
      const answered = (yield* alice(h.runs.events(view.run_id, 0, 100))).events.filter((e) => e.type === "clarify.answered").map((e) => e.data)
      expect(answered).toEqual([{ request_id: "c1", outcome: "answered", via: "hermes" }])
      expect(Option.map(yield* h.ledger.get(view.run_id), (r) => r.answerAsked)).toEqual(Option.some(null))
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("an answer Hermes refuses", () => {
  it.live("is refused as not pending, and what it stored on the run before asking is withdrawn", () =>
    Effect.gen(function* () {
      const h = yield* harness()
      const alice = as("alice")
      const view = yield* alice(h.runs.start({ agent: "hermes", input: "deploy" }))
      const hid = [...h.hermes.runs.keys()][0]!
      yield* h.hermes.emit(hid, "clarify.request", { clarify_id: "c1", question: "Which environment?", choices: ["staging", "production"], multi_select: false })
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_clarification"), "asked")
      // Hermes dropped the question without a word on the stream: it refuses the answer.
      h.hermes.runs.get(hid)!.pendingClarify = null
      const refused = yield* Effect.flip(alice(h.runs.answer(view.run_id, "c1", "staging")))
      expect(refused._tag).toBe("NoPendingRequest")
      const stored = yield* h.ledger.get(view.run_id)
      expect(Option.map(stored, (r) => r.answerAsked)).toEqual(Option.some(null))
      // A later echo of that request (an answer given in Hermes itself) is stored as Hermes's.
      yield* h.hermes.emit(hid, "clarify.responded", { clarify_id: "c1" })
      const answered = yield* eventually(alice(h.runs.events(view.run_id, 0, 100)), (p) => p.events.some((e) => e.type === "clarify.answered"), "the echo")
      expect(answered.events.filter((e) => e.type === "clarify.answered").map((e) => e.data["via"])).toEqual(["hermes"])
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})

describe("run locks", () => {
  // On the TestClock: the order is the locks' doing, not the timing of a loaded machine (with real
  // sleeps of 10 and 80 ms, "r1 first" once finished before "r2" started, and the waiter ran
  // before its interrupt).
  it.effect("serialise the steps of one run, not of two, and leave no entry behind (interrupted waiters included)", () =>
    Effect.gen(function* () {
      const locks = makeRunLocks()
      const order: Array<string> = []
      const step = (name: string, ms: number) => Effect.sleep(`${ms} millis`).pipe(Effect.zipRight(Effect.sync(() => order.push(name))))
      const a = yield* Effect.fork(locks.withRun("r1", step("r1 first", 80)))
      yield* TestClock.adjust("10 millis")
      const b = yield* Effect.fork(locks.withRun("r1", step("r1 second", 1)))
      const c = yield* Effect.fork(locks.withRun("r2", step("r2", 1)))
      const waiting = yield* Effect.fork(locks.withRun("r1", step("never", 1)))
      yield* TestClock.adjust("20 millis")
      yield* Fiber.join(c)
      expect(order).toEqual(["r2"])
      yield* Fiber.interrupt(waiting)
      yield* TestClock.adjust("100 millis")
      yield* Fiber.join(a)
      yield* TestClock.adjust("10 millis")
      yield* Fiber.join(b)
      expect(order).toEqual(["r2", "r1 first", "r1 second"])
      expect(locks.size()).toBe(0)
    }))
})
