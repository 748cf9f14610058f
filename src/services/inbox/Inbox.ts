/**
 * The operator's inbox: rows a person approves or denies. Run approvals (from Hermes) and skill changes
 * (from `agent_skill_put` / `agent_skill_delete`) persist here; nothing a row proposes happens until an
 * admin decides it. This file is the interface; `InboxLive` implements it over SQLite.
 */
import type { Effect, Option, Stream } from "effect"
import { Context } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import type { ApproveChoice } from "../../domain/approvals.ts"
import type { SkillCard } from "../../domain/skills/card.ts"

export type { SkillCard, SkillFileCard } from "../../domain/skills/card.ts"

export type InboxState = "pending" | "approved" | "denied" | "expired" | "withdrawn"

interface RowBase {
  readonly id: string
  readonly client: string
  readonly state: InboxState
  readonly created_at: string
  readonly decided_at: string | null
  readonly decided_by: string | null
}

export interface SkillPutRow extends RowBase {
  readonly kind: "skill_put"
  readonly name: string
  readonly card: SkillCard
}
export interface SkillDeleteRow extends RowBase {
  readonly kind: "skill_delete"
  readonly name: string
}
/** What the follower knows when Hermes asks for an approval. */
export interface RunApprovalInput {
  readonly run_id: string
  readonly client: string
  readonly agent: string
  readonly hermes_run_id: string
  /** Hermes's request id; null when Hermes named none (then none is sent back with the answer). */
  readonly request_id: string | null
  readonly command: string
  readonly description: string
  /** Hermes's name for the rule that asked: logged at arrival, not kept in the row. */
  readonly pattern_key?: string | null | undefined
  readonly choices: ReadonlyArray<string>
}

export interface RunApprovalRow extends RowBase, RunApprovalInput {
  readonly kind: "run_approval"
  /** The choice sent to Hermes when approved ("deny" when denied). */
  readonly choice: string | null
}
export type InboxRow = SkillPutRow | SkillDeleteRow | RunApprovalRow

export interface Decision {
  readonly approve: boolean
  /** For run approvals: the choice to send (none: the default of `choiceOf`, `domain/approvals.ts`). */
  readonly choice?: ApproveChoice | undefined
  readonly by: string
  /** Where the operator decided (the log's `via`): the inbox page or `agent-bridge inbox`. */
  readonly via?: "page" | "cli" | undefined
}

export interface InboxShape {
  /** Opens a pending row for a Hermes approval request; the same (run, request) is the same row. */
  readonly openRunApproval: (input: RunApprovalInput) => Effect.Effect<RunApprovalRow, BridgeError>
  /** Closes the run's pending approval rows (or the one for `requestId`) as `expired`. */
  readonly expireRunApprovals: (runId: string, requestId?: string) => Effect.Effect<ReadonlyArray<RunApprovalRow>, BridgeError>
  /** The run's pending approval row, if any (the run view's `awaiting_approval`). */
  readonly pendingRunApproval: (runId: string) => Effect.Effect<Option.Option<RunApprovalRow>, BridgeError>
  readonly list: (filter?: { readonly state?: InboxState | undefined }) => Effect.Effect<ReadonlyArray<InboxRow>, BridgeError>
  readonly get: (id: string) => Effect.Effect<Option.Option<InboxRow>, BridgeError>
  /** Approves or denies a pending row and carries it out (writes the skill, answers Hermes). */
  readonly decide: (id: string, decision: Decision) => Effect.Effect<InboxRow, BridgeError>
  /**
   * The change feed: a version number, the current one first, then a new one after every change of
   * the rows (opened, queued, decided, expired, withdrawn, deleted by retention), including those
   * another process (`agent-bridge inbox`) commits to the same database, which the daemon notices
   * within about a second. It only says that something changed: read the rows to see what.
   */
  readonly changes: Stream.Stream<number>
}

export class Inbox extends Context.Tag("agent-bridge/Inbox")<Inbox, InboxShape>() {}
