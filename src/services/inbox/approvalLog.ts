/**
 * A run approval's two moments in the daemon's log, one `info` line each: Hermes asking (what, on
 * which run and profile, under which of its rules) and its decision: the operator's (who, from
 * where, which choice went to Hermes), or, for a request resolved in Hermes without the operator
 * (its `approvals.timeout` denied it, or one of Hermes's own clients answered it), Hermes's
 * (`decided_by: "hermes"`, the choice its event named). The operator reads these to see who let a command run; the lines
 * pass through the redacting logger like every other (a command may quote a secret), so nothing
 * is masked or cut here (a cut could leave half a secret the Redactor no longer recognises).
 */
import { Effect } from "effect"
import type { Decision, InboxRow, RunApprovalRow } from "./Inbox.ts"

const ids = (row: RunApprovalRow) => ({
  inbox_row: row.id, run_id: row.run_id, hermes_run_id: row.hermes_run_id, client: row.client, agent: row.agent, request_id: row.request_id
})

/** A new row for a Hermes approval request (a request seen again finds its row and logs nothing). */
export const logApprovalRequested = (row: RunApprovalRow, patternKey: string | null) =>
  Effect.logInfo("run approval requested").pipe(
    Effect.annotateLogs({ ...ids(row), command: row.command, description: row.description, pattern_key: patternKey })
  )

/**
 * A request Hermes reported resolved (`approval.responded`) while its row was still pending: the
 * operator did not decide it, Hermes did. `choice` is what Hermes's event named (null when the
 * resolution was inferred from Hermes's status, which does not say: `inferred: true`).
 */
export const logApprovalResolvedInHermes = (row: RunApprovalRow, choice: string | null, inferred: boolean) =>
  Effect.logInfo("run approval decided").pipe(
    Effect.annotateLogs({ ...ids(row), decided_by: "hermes", via: "hermes", choice, state: row.state, ...(inferred ? { inferred: true } : {}) })
  )

/**
 * The decision as it ended: `choice` is what Hermes was sent and took (null when Hermes no longer
 * waited and the row closed as expired), `state` the row's.
 */
export const logApprovalDecided = (row: InboxRow, decision: Decision, choice: string | null) =>
  row.kind !== "run_approval"
    ? Effect.void
    : Effect.logInfo("run approval decided").pipe(
        Effect.annotateLogs({ ...ids(row), decided_by: decision.by, via: decision.via ?? "unknown", choice, state: row.state })
      )
