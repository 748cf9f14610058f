/**
 * `InboxTest`: an in-memory Inbox for run-service tests: only the run-approval half (open, expire,
 * pending, and a `decide` that answers Hermes like the real one); it records its rows in `rows`.
 * The skill half is not used by runs (the real inbox over `InboxStoreTest` has it).
 */
import { Effect, Layer, Option, Stream } from "effect"
import type { HermesClientShape } from "../../hermes/client/HermesClient.ts"
import { Inbox, type InboxRow, type InboxShape, type RunApprovalRow } from "./Inbox.ts"
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
      decide: (id, decision) =>
        Effect.gen(function* () {
          const entry = [...rows.entries()].find(([, r]) => r.id === id)
          if (entry === undefined) return yield* Effect.die(`no row ${id}`)
          const [k, row] = entry
          const choice = decision.approve ? (decision.choice ?? "once") : "deny"
          const decided: RunApprovalRow = { ...row, state: decision.approve ? "approved" : "denied", decided_by: decision.by, choice }
          rows.set(k, decided)
          const profile = yield* Effect.orDie(hermes.profile(row.agent))
          yield* Effect.orDie(hermes.approval(profile, row.hermes_run_id, { choice, ...(row.request_id === null ? {} : { requestId: row.request_id }) }))
          return decided
        })
    }
    return { shape, layer: Layer.succeed(Inbox, shape), rows }
  })
