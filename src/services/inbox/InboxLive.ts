/**
 * `Inbox` over SQLite: run approvals opened by the run followers, skill changes queued by
 * `SkillProposals`, and the operator's decisions. Decisions run one at a time; a row is closed only
 * after what it proposes has happened (the skill is written, Hermes has the answer), so a failure
 * leaves it pending for another try.
 */
import { Effect, Layer, Option } from "effect"
import { nowIso } from "../../common/time.ts"
import { type BridgeError, NoPendingRequest } from "../../domain/errors.ts"
import { HermesClient } from "../../hermes/client/HermesClient.ts"
import { type Decision, Inbox, type InboxRow, type InboxState, type RunApprovalInput, type RunApprovalRow } from "./Inbox.ts"
import { pendingRunApproval } from "./rows.ts"
import { SkillStore } from "../skill-store/SkillStore.ts"
import { answerRunApproval } from "./decideRun.ts"
import { logApprovalDecided, logApprovalRequested } from "./approvalLog.ts"
import { carryOutSkillRow } from "./decideSkill.ts"
import { InboxChanges, InboxChangesLive } from "./InboxChanges.ts"
import { InboxStore, InboxStoreLive, newInboxId } from "./InboxStore.ts"
import { SkillProposalsLive } from "./SkillProposals.ts"

const notPending = (id: string, state?: InboxState) =>
  new NoPendingRequest({ message: state === undefined ? `no inbox row '${id}'` : `inbox row '${id}' is already ${state}` })

/** `Inbox` over a provided `InboxStore` and change feed (`InboxLive` brings both). */
export const InboxOnStore = Layer.effect(
  Inbox,
  Effect.gen(function* () {
    const store = yield* InboxStore
    const skills = yield* SkillStore
    const hermes = yield* HermesClient
    const changes = yield* InboxChanges
    const decisions = yield* Effect.makeSemaphore(1)

    const openRunApproval = (input: RunApprovalInput) =>
      Effect.gen(function* () {
        const existing = yield* store.runApproval(input.run_id, input.request_id)
        if (Option.isSome(existing)) return existing.value as RunApprovalRow
        const row = pendingRunApproval(input, newInboxId(), yield* nowIso)
        yield* store.insert(row)
        yield* logApprovalRequested(row, input.pattern_key ?? null)
        return row
      })

    /**
     * Rows whose decision this process is carrying out now (Hermes asked, its answer not yet
     * written back): Hermes's `approval.responded` for such a row is the operator's answer.
     */
    const deciding = new Set<string>()

    /**
     * Closes the run's pending approval rows (or the named request's) as expired: Hermes resolved
     * them, or the run ended. Returns the rows closed that no decision of this process is carrying
     * out: those Hermes resolved without the operator (a decision in flight closes its row itself,
     * over this expiry, and logs itself).
     */
    const expireRunApprovals = (runId: string, requestId?: string) =>
      Effect.gen(function* () {
        const at = yield* nowIso
        const closed: Array<RunApprovalRow> = []
        for (const row of yield* store.pendingRunApprovals(runId, requestId)) {
          if (row.kind !== "run_approval") continue
          const done = yield* store.close(row.id, { state: "expired", at, by: null })
          if (done && !deciding.has(row.id)) closed.push({ ...row, state: "expired", decided_at: at, decided_by: null })
        }
        return closed
      })

    const reread = (id: string) => Effect.flatMap(store.get(id), Option.match({ onNone: () => Effect.fail(notPending(id)), onSome: Effect.succeed }))

    /** Closes a pending row; someone else closing it first is reported, not overwritten. */
    const close = (row: InboxRow, state: InboxState, by: string | null, choice?: string | null, overFollowerExpiry = false) =>
      Effect.gen(function* () {
        const closed = yield* store.close(row.id, {
          state, at: yield* nowIso, by, ...(choice === undefined ? {} : { choice }), overFollowerExpiry
        })
        const after = yield* reread(row.id)
        return closed ? after : yield* Effect.fail(notPending(row.id, after.state))
      })

    const takeBack = (undo: Effect.Effect<void, BridgeError>) =>
      undo.pipe(
        Effect.zipRight(Effect.logWarning("an approved skill change was taken back: its inbox row could not be closed")),
        Effect.catchAll((e) => Effect.logError("an approved skill change could not be taken back after its row failed to close", e))
      )

    const decideSkillRow = (id: string, decision: Decision) =>
      store.exclusive(
        Effect.gen(function* () {
          // Read again under the lock: a push may have withdrawn the row meanwhile.
          const row = yield* reread(id)
          if (row.state !== "pending") return yield* notPending(id, row.state)
          if (row.kind === "run_approval") return row
          if (!decision.approve) return yield* close(row, "denied", decision.by)
          const undo = yield* carryOutSkillRow(skills, row)
          // The row could not be closed (storage): take the change back, so the skill and the row
          // agree and the operator can approve again once storage is back.
          return yield* close(row, "approved", decision.by).pipe(
            Effect.tapErrorTag("StoreUnavailable", () => takeBack(undo)),
            Effect.tapErrorTag("Internal", () => takeBack(undo))
          )
        })
      )

    /**
     * Hermes took the answer: the decision is the operator's, with their choice, even when the
     * run's follower saw Hermes resolve the request (or the run end) and expired the row while the
     * answer was on its way; only another decider's close stands. Hermes no longer waiting closes it
     * as expired, which a follower may have done already.
     */
    const decideRunRow = (row: RunApprovalRow, decision: Decision) =>
      Effect.acquireUseRelease(
        Effect.sync(() => deciding.add(row.id)),
        () => answerAndClose(row, decision),
        () => Effect.sync(() => deciding.delete(row.id))
      )

    const answerAndClose = (row: RunApprovalRow, decision: Decision) =>
      Effect.gen(function* () {
        const answer = yield* answerRunApproval(hermes, row, decision)
        if (answer.outcome === "answered") {
          const closed = yield* close(row, decision.approve ? "approved" : "denied", decision.by, answer.choice, true)
          return yield* Effect.as(logApprovalDecided(closed, decision, answer.choice), closed)
        }
        const after = yield* reread(row.id)
        const expired = after.state === "expired" ? after : yield* close(row, "expired", null)
        return yield* Effect.as(logApprovalDecided(expired, decision, null), expired)
      })

    const decide = (id: string, decision: Decision): Effect.Effect<InboxRow, BridgeError> =>
      decisions.withPermits(1)(
        // Held across processes too (replicas, the CLI): the row is read again under the lock, so a
        // decision someone else made first is reported, and Hermes hears one answer.
        store.decisionLock(id, Effect.gen(function* () {
          const row = yield* reread(id)
          if (row.state !== "pending") return yield* notPending(id, row.state)
          return row.kind === "run_approval" ? yield* decideRunRow(row, decision) : yield* decideSkillRow(id, decision)
        })).pipe(Effect.annotateLogs({ inbox_row: id, decided_by: decision.by }))
      )

    return Inbox.of({
      openRunApproval,
      expireRunApprovals,
      pendingRunApproval: (runId) =>
        Effect.map(store.pendingRunApprovals(runId), (rows) => Option.fromNullable(rows[0] as RunApprovalRow | undefined)),
      list: (filter) => store.list(filter?.state),
      get: store.get,
      decide,
      changes: changes.changes
    })
  })
)

/**
 * The inbox with its SQLite store, its change feed and the skill proposal queue (for `SkillsLive`)
 * in one layer. Needs `SqlClient`, `SkillStore` and `HermesClient`. The feed sees this process's
 * writes; add `watchOtherConnections` (and a `ChangeFeed`) for another process's (the daemon does,
 * in `TeachServices`).
 */
export const InboxLive = Layer.mergeAll(InboxOnStore, SkillProposalsLive).pipe(
  Layer.provideMerge(InboxStoreLive),
  Layer.provideMerge(InboxChangesLive)
)
