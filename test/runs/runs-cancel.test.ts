/**
 * A start whose tool call is cancelled (the MCP client sent notifications/cancelled, or dropped the
 * connection) while Hermes is accepting the run: the run Hermes accepted must not be lost. It is
 * recorded and followed like any other, so the client finds it in its list (and an idempotent retry
 * gets it back), instead of running in Hermes with no ledger row or no follower.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Scope } from "effect"
import { HermesClient } from "../../src/hermes/client/HermesClient.ts"
import { TestDb } from "../support/testDb.ts"
import { as, buildRuns, eventually } from "./support/harness.ts"
import { makeFakeHermes } from "../../src/hermes/client/fakeHermes.ts"
import { InboxTest } from "../../src/services/inbox/InboxTest.ts"

const alice = as("alice")

describe("a cancelled start", () => {
  it.live("a start cancelled while Hermes accepts the run still records and follows that run", () =>
    Effect.gen(function* () {
      const hermes = yield* makeFakeHermes()
      const inbox = yield* InboxTest(hermes.shape)
      // Hermes has accepted the run but its answer is still on the way: the test cancels the call then.
      const reached = yield* Deferred.make<void>()
      const answer = yield* Deferred.make<void>()
      const slow = {
        ...hermes,
        layer: Layer.succeed(HermesClient, {
          ...hermes.shape,
          start: (p, req) =>
            hermes.shape.start(p, req).pipe(
              Effect.tap(() => Deferred.succeed(reached, undefined)),
              Effect.tap(() => Deferred.await(answer))
            )
        })
      }
      const scope = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
      const built = yield* buildRuns(slow, inbox, {}, scope)

      const call = yield* Effect.fork(alice(built.runs.start({ agent: "hermes", input: "task", idempotency_key: "k1" })))
      yield* Deferred.await(reached)
      // The client gives up on the call while Hermes is still answering.
      const interrupted = yield* Effect.fork(Fiber.interrupt(call))
      yield* Deferred.succeed(answer, undefined)
      yield* Fiber.join(interrupted)

      // Hermes accepted exactly one run; the bridge knows it, follows it, and did not stop it.
      expect(hermes.runs.size).toBe(1)
      const [hermesRun] = [...hermes.runs.values()]
      // The start goes on in the service's fiber after the call is gone: its row lands soon after.
      const listed = yield* eventually(alice(built.runs.list({ limit: 10 })), (l) => l.runs.length > 0, "the recorded run")
      expect(listed.runs.length).toBe(1)
      const runId = listed.runs[0]!.run_id
      yield* eventually(built.supervisor.isFollowed(runId), (followed) => followed, "the follower")
      expect(hermes.calls.stop).toEqual([])
      // The idempotent retry answers that same run, and the run goes on to its end.
      const retried = yield* alice(built.runs.start({ agent: "hermes", input: "task", idempotency_key: "k1" }))
      expect(retried.run_id).toBe(runId)
      yield* hermes.complete(hermesRun!.id, "done")
      const done = yield* eventually(alice(built.runs.status(runId, 0)), (v) => v.status === "completed", "completion")
      expect(done.output).toBe("done")
    }).pipe(Effect.scoped, Effect.provide(TestDb)))
})
