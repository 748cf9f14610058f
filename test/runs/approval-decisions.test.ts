/**
 * A run approval the operator decides while the run's follower closes the row (it saw Hermes
 * resolve the request, or the run end): the decision stays the operator's, with their choice, and
 * `agent-bridge inbox approve` exits 0. The interleaving is fixed with latches, never with sleeps.
 * Also: a request Hermes named no id for (Hermes 0.20) is stored and answered without one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option, Ref, Schema } from "effect"
import { parseArgs } from "../../src/cli/args.ts"
import { inboxMain } from "../../src/cli/inbox.ts"
import { approvalOf, reduceBatch } from "../../src/domain/runs/events.ts"
import { fieldsOf, HermesEventData, makeEvent } from "../../src/domain/runs/hermesEvents.ts"
import { Inbox, type RunApprovalInput } from "../../src/services/inbox/Inbox.ts"
import { makeStack } from "../teach/skillFixtures.ts"

const RUN = "run_0123456789abcdef0123456789abcdef"
const request = (over: Partial<RunApprovalInput> = {}): RunApprovalInput => ({
  run_id: RUN,
  client: "alice",
  agent: "hermes",
  hermes_run_id: "hr_1",
  request_id: null,
  command: "rm -rf /tmp/x",
  description: "delete in root path",
  choices: ["once", "session", "always", "deny"],
  ...over
})

/**
 * A Hermes double whose approval call signals `entered` and then waits for `release`: the test
 * runs the follower's expiry in between, as if `approval.responded` (or the run's end) was
 * committed before Hermes's 200 reached the deciding process.
 */
const racing = Effect.gen(function* () {
  const entered = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const stack = makeStack(() => Deferred.succeed(entered, undefined).pipe(Effect.zipRight(Deferred.await(release))))
  return { entered, release, stack }
})

describe("an operator's decision racing the follower's expiry", () => {
  it.live("is recorded as the operator's, with their choice", () =>
    Effect.gen(function* () {
      const { entered, release, stack } = yield* racing
      yield* Effect.gen(function* () {
        const inbox = yield* Inbox
        const row = yield* inbox.openRunApproval(request({ request_id: "req_1" }))
        const decision = yield* Effect.fork(inbox.decide(row.id, { approve: true, choice: "session", by: "admin" }))
        yield* Deferred.await(entered)
        // The follower: Hermes resolved the request (approval.responded), then the run completed.
        yield* inbox.expireRunApprovals(RUN, "req_1")
        yield* inbox.expireRunApprovals(RUN)
        expect(Option.getOrThrow(yield* inbox.get(row.id)).state).toBe("expired")
        yield* Deferred.succeed(release, undefined)
        const decided = yield* Fiber.join(decision)
        expect(decided).toMatchObject({ state: "approved", choice: "session", decided_by: "admin" })
        expect(Option.getOrThrow(yield* inbox.get(row.id))).toMatchObject({ state: "approved", choice: "session", decided_by: "admin" })
      }).pipe(Effect.provide(stack.layer))
    }))

  it.live("`inbox approve` exits 0 and prints the operator's decision", () =>
    Effect.gen(function* () {
      const { entered, release, stack } = yield* racing
      yield* Effect.gen(function* () {
        const inbox = yield* Inbox
        const row = yield* inbox.openRunApproval(request())
        const cli = yield* Effect.fork(inboxMain(parseArgs(["inbox", "approve", row.id, "--choice", "always"])))
        yield* Deferred.await(entered)
        yield* inbox.expireRunApprovals(RUN)
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(cli)).toBe(0)
        expect(Option.getOrThrow(yield* inbox.get(row.id))).toMatchObject({ state: "approved", choice: "always", decided_by: "admin" })
      }).pipe(Effect.provide(stack.layer))
    }))

  it.live("a row another decider closed first still stands: the second decision is refused", () =>
    Effect.gen(function* () {
      const { entered, release, stack } = yield* racing
      yield* Effect.gen(function* () {
        const inbox = yield* Inbox
        const row = yield* inbox.openRunApproval(request())
        const first = yield* Effect.fork(inbox.decide(row.id, { approve: false, by: "page" }))
        yield* Deferred.await(entered)
        yield* Deferred.succeed(release, undefined)
        expect(yield* Fiber.join(first)).toMatchObject({ state: "denied", decided_by: "page" })
        const second = yield* Effect.flip(inbox.decide(row.id, { approve: true, by: "admin" }))
        expect(second._tag).toBe("NoPendingRequest")
        expect(Option.getOrThrow(yield* inbox.get(row.id))).toMatchObject({ state: "denied", decided_by: "page" })
      }).pipe(Effect.provide(stack.layer))
    }))
})

describe("a request Hermes named no id for", () => {
  it.effect("is stored without one, answered without one, and a replay is the same row", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const inbox = yield* Inbox
      const a = yield* inbox.openRunApproval(request())
      expect(a.request_id).toBeNull()
      expect((yield* inbox.openRunApproval(request())).id).toBe(a.id)
      yield* inbox.decide(a.id, { approve: true, by: "admin" })
      const calls = yield* Ref.get(stack.calls)
      expect(calls).toHaveLength(1)
      expect(calls[0]?.requestId).toBeUndefined()
      // The run's next approval (also without id) is a row of its own.
      const b = yield* inbox.openRunApproval(request({ command: "rm -rf /tmp/y" }))
      expect(b.id).not.toBe(a.id)
      expect(b.state).toBe("pending")
    }).pipe(Effect.provide(stack.layer))
  })

  it("Hermes 0.20's approval.request and approval.responded carry no request_id: none is invented", () => {
    // The frames exactly as Hermes 0.20 sent them (keys in its order), decoded as the SSE edge does.
    const frame = (json: string) => makeEvent(null, Schema.decodeUnknownSync(Schema.parseJson(HermesEventData))(json))
    const requested = frame(
      `{"command": "rm -rf /", "pattern_key": "delete in root path", "pattern_keys": ["delete in root path"], "description": "delete in root path", "allow_permanent": true, "allow_session": true, "event": "approval.request", "run_id": "run_x", "timestamp": 1.5, "choices": ["once", "session", "always", "deny"]}`
    )
    const fields = fieldsOf(requested, "approval.request")
    if (fields === null) throw new Error("not decoded as an approval request")
    expect(approvalOf(fields)).toEqual({
      request_id: null, command: "rm -rf /", description: "delete in root path", pattern_key: "delete in root path", choices: ["once", "session", "always", "deny"]
    })
    const responded = frame(`{"event": "approval.responded", "run_id": "run_x", "choice": "once", "resolved": 1}`)
    const r = reduceBatch({ status: "running", pending: null }, [requested, responded])
    // No id: whatever the run had pending is resolved.
    expect(r.approvalsResolved.map((a) => a.request_id)).toEqual([null])
    expect(r.state.status).toBe("running")
  })
})
