/**
 * A run approval's two moments in the daemon's log, at info, through the redacting logger: its
 * arrival (run, profile, what it asks, Hermes's `pattern_key`) and its decision (who, from the
 * inbox page or the CLI, which choice, or that Hermes no longer waited). One line each.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Logger, LogLevel, Option } from "effect"
import { HermesStatus } from "../../src/hermes/client/failure.ts"
import { Redactor } from "../../src/common/Redactor.ts"
import { redactedLogger } from "../../src/daemon/logging.ts"
import { Inbox, type RunApprovalInput } from "../../src/services/inbox/Inbox.ts"
import { approvalOf } from "../../src/domain/runs/events.ts"
import { parseDecision } from "../../src/edge/inbox/actions.ts"
import { makeStack } from "./skillFixtures.ts"
import { approvalRequest } from "./approvalRequest.ts"

const SECRET = "sk-proj-Zq8vR2mN5tY7wX1cB4dF6gH9jK3lP0sA"

// Hermes's own wording of a dangerous command, with the pattern it matched.
const request = (over: Partial<RunApprovalInput> = {}): RunApprovalInput =>
  approvalRequest({ description: "delete in root path", pattern_key: "recursive_delete", ...over })

/** The daemon's JSON logger (formatter, then the Redactor), its lines kept for the test. */
const capturing = (lines: Array<Record<string, unknown>>) =>
  Layer.unwrapEffect(
    Effect.map(Redactor, (redactor) =>
      Layer.merge(
        Logger.replace(
          Logger.defaultLogger,
          Logger.map(redactedLogger("json", (line) => redactor.text(line)), (line) => {
            lines.push(JSON.parse(line) as Record<string, unknown>)
          })
        ),
        Logger.minimumLogLevel(LogLevel.Info)
      )
    )
  )

const named = (lines: ReadonlyArray<Record<string, unknown>>, message: string) => lines.filter((l) => l.message === message)

describe("run approvals in the log", () => {
  it.effect("arrival: one info line with run, profile, command, description and pattern_key (a re-opened request logs nothing)", () => {
    const stack = makeStack()
    const lines: Array<Record<string, unknown>> = []
    return Effect.gen(function* () {
      const i = yield* Inbox
      const row = yield* i.openRunApproval(request({ command: `curl -H 'Authorization: Bearer ${SECRET}' https://example.test` }))
      yield* i.openRunApproval(request())
      const arrived = named(lines, "run approval requested")
      expect(arrived).toHaveLength(1)
      expect(arrived[0]).toMatchObject({
        logLevel: "INFO",
        annotations: {
          run_id: "run_0123456789abcdef0123456789abcdef", hermes_run_id: "hr_1", client: "alice", agent: "hermes/coder",
          request_id: "req_1", inbox_row: row.id, description: "delete in root path", pattern_key: "recursive_delete"
        }
      })
      const command = (arrived[0]?.annotations as Record<string, unknown>).command
      expect(command).toContain("curl -H")
      // The line passed through the Redactor: the bearer token in the command is masked.
      expect(JSON.stringify(lines)).not.toContain(SECRET)
    }).pipe(Effect.provide(capturing(lines)), Effect.provide(stack.layer))
  })

  it.effect("decision: who (the operator, from the page or the CLI), which choice, the row's state", () => {
    const stack = makeStack()
    const lines: Array<Record<string, unknown>> = []
    return Effect.gen(function* () {
      const i = yield* Inbox
      const a = yield* i.openRunApproval(request())
      const b = yield* i.openRunApproval(request({ request_id: "req_2" }))
      yield* i.decide(a.id, { approve: true, choice: "session", by: "admin", via: "page" })
      yield* i.decide(b.id, { approve: false, by: "admin", via: "cli" })
      const decided = named(lines, "run approval decided")
      expect(decided.map((l) => l.annotations)).toEqual([
        expect.objectContaining({ inbox_row: a.id, run_id: a.run_id, agent: "hermes/coder", request_id: "req_1", decided_by: "admin", via: "page", choice: "session", state: "approved" }),
        expect.objectContaining({ inbox_row: b.id, request_id: "req_2", decided_by: "admin", via: "cli", choice: "deny", state: "denied" })
      ])
      expect(decided.every((l) => l.logLevel === "INFO")).toBe(true)
    }).pipe(Effect.provide(capturing(lines)), Effect.provide(stack.layer))
  })

  it.effect("a decision Hermes no longer waited for is logged as expired, with no choice sent", () => {
    const stack = makeStack(() => Effect.fail(new HermesStatus({ agent: "hermes/coder", route: "POST /v1/runs/{id}/approval", status: 409, code: "approval_not_pending", detail: null, retryAfter: Option.none() })))
    const lines: Array<Record<string, unknown>> = []
    return Effect.gen(function* () {
      const i = yield* Inbox
      const a = yield* i.openRunApproval(request())
      yield* i.decide(a.id, { approve: true, by: "admin", via: "page" })
      expect(named(lines, "run approval decided").map((l) => l.annotations)).toEqual([
        expect.objectContaining({ inbox_row: a.id, decided_by: "admin", via: "page", state: "expired", choice: null })
      ])
    }).pipe(Effect.provide(capturing(lines)), Effect.provide(stack.layer))
  })

  it.live("Hermes's confirmation of the operator's answer, seen while the decision is still closing its row, is not logged as Hermes's decision", () => {
    // Hermes has taken the answer (its approval.responded is on the stream) but the row is not yet
    // closed: the follower's expiry of that request is the operator's answer, not Hermes's.
    const answered = Effect.runSync(Deferred.make<void>())
    const release = Effect.runSync(Deferred.make<void>())
    const stack = makeStack(() => Deferred.succeed(answered, undefined).pipe(Effect.zipRight(Deferred.await(release))))
    const lines: Array<Record<string, unknown>> = []
    return Effect.gen(function* () {
      const i = yield* Inbox
      const a = yield* i.openRunApproval(request())
      const decision = yield* Effect.fork(i.decide(a.id, { approve: true, by: "admin", via: "page" }))
      yield* Deferred.await(answered)
      expect(yield* i.expireRunApprovals(a.run_id, "req_1")).toEqual([])
      yield* Deferred.succeed(release, undefined)
      expect((yield* Fiber.join(decision)).state).toBe("approved")
      expect(named(lines, "run approval decided").map((l) => (l.annotations as Record<string, unknown>).decided_by)).toEqual(["admin"])
    }).pipe(Effect.provide(capturing(lines)), Effect.provide(stack.layer))
  })

  it("the follower's view of approval.request carries Hermes's pattern_key (a string; anything else is left out)", () => {
    const base = { event: "approval.request" as const, command: "rm -rf /", description: "delete in root path" }
    expect(approvalOf({ ...base, pattern_key: "recursive_delete" }).pattern_key).toBe("recursive_delete")
    expect(approvalOf({ ...base, pattern_key: 7 }).pattern_key).toBeNull()
    expect(approvalOf(base).pattern_key).toBeNull()
  })

  it("the inbox page's decisions say they came from the page (the CLI's say cli: cli/inbox.ts)", () => {
    for (const value of ["approve", "deny", "session"]) expect(parseDecision(value, "run_approval")).toMatchObject({ by: "admin", via: "page" })
  })
})
