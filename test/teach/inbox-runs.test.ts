/**
 * Run-approval rows: opened from Hermes's requests, decided by the operator (the answer goes to
 * Hermes with the profile of the row's agent), expired when Hermes no longer waits. Rows persist.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Option, Ref } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { HermesStatus, HermesTransport } from "../../src/hermes/client/failure.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { InboxLive } from "../../src/services/inbox/InboxLive.ts"
import { SkillStoreWith } from "../../src/services/skill-store/SkillStore.ts"
import { TestDbFor } from "../support/testDb.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { testConfig } from "../support/daemon.ts"
import { makeDirs, makeStack } from "./skillFixtures.ts"
import { approvalRequest } from "./approvalRequest.ts"
import { type ApprovalCall, HermesClientApprovals } from "../../src/hermes/client/HermesClientApprovals.ts"

const request = approvalRequest
const inbox = Inbox

describe("run approvals", () => {
  it.effect("the same (run, request) is the same row; the run's pending approval is found", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request())
      const b = yield* i.openRunApproval(request())
      expect(b.id).toBe(a.id)
      expect(a).toMatchObject({ kind: "run_approval", state: "pending", client: "alice", command: "rm -rf ./build", choice: null })
      const other = yield* i.openRunApproval(request({ request_id: "req_2" }))
      expect(other.id).not.toBe(a.id)
      expect(Option.getOrThrow(yield* i.pendingRunApproval(request().run_id)).id).toBe(a.id)
      expect(Option.isNone(yield* i.pendingRunApproval("run_other"))).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("approving sends the choice to Hermes with the row's profile, run and request", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request())
      const decided = yield* i.decide(a.id, { approve: true, choice: "session", by: "admin" })
      expect(decided).toMatchObject({ state: "approved", choice: "session", decided_by: "admin" })
      expect(yield* Ref.get(stack.calls)).toEqual<ReadonlyArray<ApprovalCall>>([
        { profile: "coder", hermesRunId: "hr_1", choice: "session", requestId: "req_1" }
      ])
      expect(Option.isNone(yield* i.pendingRunApproval(a.run_id))).toBe(true)
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("approve defaults to once; deny sends deny", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request({ agent: "hermes" }))
      const b = yield* i.openRunApproval(request({ agent: "hermes", request_id: "req_2" }))
      expect(yield* i.decide(a.id, { approve: true, by: "admin" })).toMatchObject({ state: "approved", choice: "once" })
      const d = yield* i.decide(b.id, { approve: false, by: "admin" })
      expect(d).toMatchObject({ state: "denied", choice: "deny" })
      expect((yield* Ref.get(stack.calls)).map((c) => [c.profile, c.choice])).toEqual([["default", "once"], ["default", "deny"]])
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a choice the request does not offer is refused and nothing is sent", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request({ choices: ["once", "deny"] }))
      expect((yield* Effect.flip(i.decide(a.id, { approve: true, choice: "always", by: "admin" })))._tag).toBe("InvalidInput")
      expect(yield* Ref.get(stack.calls)).toEqual([])
      expect(Option.getOrThrow(yield* i.get(a.id)).state).toBe("pending")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("Hermes no longer waiting (not pending, not running, run gone) closes the row as expired", () =>
    Effect.gen(function* () {
      const route = "POST /v1/runs/{id}/approval"
      const refusal = (status: number, code: string) =>
        new HermesStatus({ agent: "hermes/coder", route, status, code, detail: null, retryAfter: Option.none() })
      for (const answer of [refusal(409, "approval_not_pending"), refusal(409, "run_not_active"), refusal(404, "run_not_found")]) {
        const stack = makeStack(() => Effect.fail(answer))
        const row = yield* Effect.gen(function* () {
          const i = yield* inbox
          const a = yield* i.openRunApproval(request())
          return yield* i.decide(a.id, { approve: true, by: "admin" })
        }).pipe(Effect.provide(stack.layer))
        expect(row.state).toBe("expired")
        expect(row.decided_by).toBeNull()
      }
    }))

  it.effect("Hermes not answering fails the decision and leaves the row pending", () => {
    const stack = makeStack(() => Effect.fail(new HermesTransport({ agent: "hermes/coder", route: "POST /v1/runs/{id}/approval", detail: "ECONNREFUSED" })))
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request())
      expect((yield* Effect.flip(i.decide(a.id, { approve: true, by: "admin" })))._tag).toBe("AgentUnavailable")
      expect(Option.getOrThrow(yield* i.get(a.id)).state).toBe("pending")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("a bare 404 (no JSON saying run_not_found) is a refusal, not a gone run: the row stays pending", () => {
    const bare = new HermesStatus({ agent: "hermes/coder", route: "POST /v1/runs/{id}/approval", status: 404, code: null, detail: null, retryAfter: Option.none() })
    const stack = makeStack(() => Effect.fail(bare))
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request())
      const e = yield* Effect.flip(i.decide(a.id, { approve: true, by: "admin" }))
      expect(e).toMatchObject({ _tag: "AgentRefused", hermesStatus: 404 })
      expect(Option.getOrThrow(yield* i.get(a.id)).state).toBe("pending")
    }).pipe(Effect.provide(stack.layer))
  })

  it.effect("expireRunApprovals closes the run's pending rows, or only the named request", () => {
    const stack = makeStack()
    return Effect.gen(function* () {
      const i = yield* inbox
      const a = yield* i.openRunApproval(request())
      const b = yield* i.openRunApproval(request({ request_id: "req_2" }))
      const c = yield* i.openRunApproval(request({ run_id: "run_other" }))
      yield* i.expireRunApprovals(a.run_id, "req_2")
      expect(Option.getOrThrow(yield* i.get(b.id)).state).toBe("expired")
      expect(Option.getOrThrow(yield* i.get(a.id)).state).toBe("pending")
      yield* i.expireRunApprovals(a.run_id)
      expect(Option.getOrThrow(yield* i.get(a.id)).state).toBe("expired")
      expect(Option.getOrThrow(yield* i.get(c.id)).state).toBe("pending")
      // An expired row cannot be decided, and reopening the same request returns it as it is.
      expect((yield* Effect.flip(i.decide(a.id, { approve: true, by: "admin" })))._tag).toBe("NoPendingRequest")
      expect((yield* i.openRunApproval(request())).state).toBe("expired")
      expect(yield* Ref.get(stack.calls)).toEqual([])
    }).pipe(Effect.provide(stack.layer))
  })
})

describe("persistence", () => {
  it("inbox rows live in the SQLite file and survive a restart", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "teach-inbox-db-"))
    const dirs = makeDirs()
    const layer = () =>
      InboxLive.pipe(
        Layer.provideMerge(SkillStoreWith(dirs)),
        Layer.provideMerge(TestDbFor(dataDir)),
        Layer.provide(AppConfigLive(testConfig({ bridge: { data_dir: dataDir } }))),
        Layer.provide(HermesClientApprovals(Effect.runSync(Ref.make<ReadonlyArray<ApprovalCall>>([]))))
      )
    const first = ManagedRuntime.make(layer())
    const id = await first.runPromise(Effect.map(Effect.flatMap(Inbox, (i) => i.openRunApproval(request())), (r) => r.id))
    await first.dispose()
    const second = ManagedRuntime.make(layer())
    const row = await second.runPromise(Effect.flatMap(Inbox, (i) => i.get(id)))
    await second.dispose()
    expect(Option.getOrThrow(row)).toMatchObject({ id, state: "pending", command: "rm -rf ./build" })
  })
})
