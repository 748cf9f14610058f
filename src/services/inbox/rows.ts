/**
 * Inbox rows as SQLite stores them (migration 0003) and as the `Inbox` interface shows them. The
 * kind-specific fields travel in the `payload` JSON; the columns the rules query are real columns.
 */
import type { InboxRow, InboxState, RunApprovalInput, RunApprovalRow, SkillCard } from "./Inbox.ts"

export interface InboxDbRow {
  readonly id: string
  readonly kind: "skill_put" | "skill_delete" | "run_approval"
  readonly client: string
  readonly state: InboxState
  readonly created_at: string
  readonly decided_at: string | null
  readonly decided_by: string | null
  readonly name: string | null
  readonly content_key: string | null
  readonly run_id: string | null
  readonly request_id: string | null
  readonly payload: string
}

interface RunPayload {
  readonly agent: string
  readonly hermes_run_id: string
  readonly command: string
  readonly description: string
  readonly choices: ReadonlyArray<string>
  readonly choice: string | null
}

/**
 * What makes two skill changes "the same content": a put's card digest, or a delete. Two rows with
 * one key propose the same outcome; a skill never has two different keys pending.
 */
export const putContentKey = (digest: string) => `put:${digest}`
export const DELETE_CONTENT_KEY = "delete"

export const toRow = (r: InboxDbRow): InboxRow => {
  const base = {
    id: r.id,
    client: r.client,
    state: r.state,
    created_at: r.created_at,
    decided_at: r.decided_at,
    decided_by: r.decided_by
  }
  switch (r.kind) {
    case "skill_put":
      return { ...base, kind: "skill_put", name: r.name ?? "", card: (JSON.parse(r.payload) as { card: SkillCard }).card }
    case "skill_delete":
      return { ...base, kind: "skill_delete", name: r.name ?? "" }
    case "run_approval": {
      const p = JSON.parse(r.payload) as RunPayload
      return {
        ...base,
        kind: "run_approval",
        run_id: r.run_id ?? "",
        request_id: r.request_id,
        agent: p.agent,
        hermes_run_id: p.hermes_run_id,
        command: p.command,
        description: p.description,
        choices: p.choices,
        choice: p.choice
      }
    }
  }
}

/** The columns and payload of a row. */
export const toDb = (row: InboxRow): InboxDbRow => {
  const base = {
    id: row.id,
    kind: row.kind,
    client: row.client,
    state: row.state,
    created_at: row.created_at,
    decided_at: row.decided_at,
    decided_by: row.decided_by
  }
  switch (row.kind) {
    case "skill_put":
      return { ...base, name: row.name, content_key: putContentKey(row.card.digest), run_id: null, request_id: null, payload: JSON.stringify({ card: row.card }) }
    case "skill_delete":
      return { ...base, name: row.name, content_key: DELETE_CONTENT_KEY, run_id: null, request_id: null, payload: "{}" }
    case "run_approval": {
      const payload: RunPayload = {
        agent: row.agent,
        hermes_run_id: row.hermes_run_id,
        command: row.command,
        description: row.description,
        choices: row.choices,
        choice: row.choice
      }
      return { ...base, name: null, content_key: null, run_id: row.run_id, request_id: row.request_id, payload: JSON.stringify(payload) }
    }
  }
}

/** The content key of a pending skill row (null for run approvals). */
export const contentKeyOf = (row: InboxRow): string | null =>
  row.kind === "skill_put" ? putContentKey(row.card.digest) : row.kind === "skill_delete" ? DELETE_CONTENT_KEY : null

/** A new, pending run-approval row for a Hermes approval request. */
export const pendingRunApproval = (input: RunApprovalInput, id: string, createdAt: string): RunApprovalRow => ({
  kind: "run_approval",
  id,
  client: input.client,
  state: "pending",
  created_at: createdAt,
  decided_at: null,
  decided_by: null,
  run_id: input.run_id,
  agent: input.agent,
  hermes_run_id: input.hermes_run_id,
  request_id: input.request_id,
  command: input.command,
  description: input.description,
  choices: input.choices,
  choice: null
})
