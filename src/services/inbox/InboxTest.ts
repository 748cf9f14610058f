/**
 * `InboxTest`: an in-memory Inbox for run-service tests: only the run-approval half (open, expire,
 * pending, and a `decide` that answers Hermes through the real decision, `answerRunApproval`); it
 * records its rows in `rows`.
 * The skill half is not used by runs (the real inbox over `InboxStoreTest` has it).
 */
import { Effect, Layer, Option, Stream } from "effect"
import type { HermesClientShape } from "../../hermes/client/HermesClient.ts"
import { Inbox, type InboxRow, type InboxShape, type RunApprovalRow } from "./Inbox.ts"
import { NoPendingRequest } from "../../domain/errors.ts"
import { answerRunApproval } from "./decideRun.ts"
import { pendingRunApproval } from "./rows.ts"

export const InboxTest = (hermes: HermesClientShape) =>
  Effect.sync(() => {
    const rows = new Map<string, RunApprovalRow>()
    // A request without id is the run's pending one without id (one approval at a time per run).
    const find = (runId: string, requestId: string | null) =>
      [...rows.values()].find((r) => r.run_id === runId && r.request_id === requestId && (requestId !== null || r.state === "pending"))
    let n = 0

    const shape: InboxShape = {
      // The runs tests never watch the inbox page.
      changes: Stream.make(0),
      openRunApproval: (input) =>
        Effect.sync(() => {
          const existing = find(input.run_id, input.request_id)
          if (existing !== undefined) return existing
          n += 1
          const row = pendingRunApproval(input, `apr_${n}`, new Date(0).toISOString())
          rows.set(row.id, row)
          return row
        }),
      expireRunApprovals: (runId, requestId) =>
        Effect.sync(() => {
          const closed: Array<RunApprovalRow> = []
          for (const [k, row] of rows) {
            if (row.run_id === runId && row.state === "pending" && (requestId === undefined || row.request_id === requestId)) {
              const expired: RunApprovalRow = { ...row, state: "expired" }
              rows.set(k, expired)
              closed.push(expired)
            }
          }
          return closed
        }),
      pendingRunApproval: (runId) =>
        Effect.sync(() => Option.fromNullable([...rows.values()].find((r) => r.run_id === runId && r.state === "pending"))),
      list: () => Effect.sync(() => [...rows.values()] as ReadonlyArray<InboxRow>),
      get: (id) => Effect.sync(() => Option.fromNullable([...rows.values()].find((r) => r.id === id) as InboxRow | undefined)),
      // The decision itself is production's (`answerRunApproval`: the default choice, the choices
      // the request offers, a request Hermes no longer holds closing the row as expired); only
      // where the row lives differs.
      decide: (id, decision) =>
        Effect.gen(function* () {
          const entry = [...rows.entries()].find(([, r]) => r.id === id)
          if (entry === undefined) return yield* new NoPendingRequest({ message: `no inbox row '${id}'` })
          const [k, row] = entry
          if (row.state !== "pending") return yield* new NoPendingRequest({ message: `inbox row '${id}' is already ${row.state}` })
          const answer = yield* answerRunApproval(hermes, row, decision)
          const decided: RunApprovalRow = answer.outcome === "answered"
            ? { ...row, state: decision.approve ? "approved" : "denied", decided_by: decision.by, choice: answer.choice }
            : { ...row, state: "expired" }
          rows.set(k, decided)
          return decided
        })
    }
    return { shape, layer: Layer.succeed(Inbox, shape), rows }
  })
