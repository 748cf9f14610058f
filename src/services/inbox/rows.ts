/**
 * Inbox rows as SQLite stores them (migrations 0003, 0007) and as the `Inbox` interface shows them.
 * The kind-specific fields travel in the `payload` JSON; the columns the rules query are real
 * columns. Times are stored as epoch milliseconds and shown as ISO text (`common/time.ts`). A row is
 * decoded with Schema, payload included: one the bridge could not have written (an unknown state,
 * a payload of the wrong shape) is a `ParseError`, which the store reports as `bridge.internal`.
 */
import { Effect, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { IsoFromEpochMs } from "../../common/time.ts"
import type { InboxRow, RunApprovalInput, RunApprovalRow, SkillCard } from "./Inbox.ts"

/** The columns of an `inbox` row; `Encoded` is what SQLite holds, `Type` has the times as ISO text. */
export const InboxColumns = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("skill_put", "skill_delete", "run_approval"),
  client: Schema.String,
  state: Schema.Literal("pending", "approved", "denied", "expired", "withdrawn"),
  created_at: IsoFromEpochMs,
  decided_at: Schema.NullOr(IsoFromEpochMs),
  decided_by: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  content_key: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  request_id: Schema.NullOr(Schema.String),
  payload: Schema.String
})
export type InboxColumns = typeof InboxColumns.Type

const SkillFileCard = Schema.Struct({ size: Schema.Number, sha256: Schema.String, content: Schema.String })
/** The stored card: what `makeSkillCard` made when the change was pushed. */
const StoredSkillCard = Schema.Struct({
  name: Schema.String,
  preview: Schema.String,
  preview_truncated: Schema.Literal(false),
  files: Schema.Record({ key: Schema.String, value: SkillFileCard }),
  bytes: Schema.Number,
  digest: Schema.String
})
const PutPayload = Schema.parseJson(Schema.Struct({ card: StoredSkillCard }))

const RunPayloadFields = Schema.Struct({
  agent: Schema.String,
  hermes_run_id: Schema.String,
  command: Schema.String,
  description: Schema.String,
  choices: Schema.Array(Schema.String),
  choice: Schema.NullOr(Schema.String)
})
const RunPayload = Schema.parseJson(RunPayloadFields)

const decodeColumns = Schema.decodeUnknown(InboxColumns)
const encodeColumns = Schema.encode(InboxColumns)
const decodePut = Schema.decodeUnknown(PutPayload)
const decodeRun = Schema.decodeUnknown(RunPayload)
const encodeRun = Schema.encode(RunPayload)

/**
 * What makes two skill changes "the same content": a put's card digest, or a delete. Two rows with
 * one key propose the same outcome; a skill never has two different keys pending.
 */
export const putContentKey = (digest: string) => `put:${digest}`
export const DELETE_CONTENT_KEY = "delete"

/** A row as SQLite returned it, decoded. */
export const toRow = (raw: unknown): Effect.Effect<InboxRow, ParseError> =>
  Effect.gen(function* () {
    const r = yield* decodeColumns(raw)
    const base = {
      id: r.id,
      client: r.client,
      state: r.state,
      created_at: r.created_at,
      decided_at: r.decided_at,
      decided_by: r.decided_by
    }
    switch (r.kind) {
      case "skill_put": {
        const card: SkillCard = (yield* decodePut(r.payload)).card
        return { ...base, kind: "skill_put", name: r.name ?? "", card }
      }
      case "skill_delete":
        return { ...base, kind: "skill_delete", name: r.name ?? "" }
      case "run_approval": {
        const p = yield* decodeRun(r.payload)
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
  })

/** Rows as SQLite returned them, decoded. */
export const toRows = (raw: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<InboxRow>, ParseError> => Effect.forEach(raw, toRow)

/** The columns and payload of a row, as SQLite stores them. */
export const toDb = (row: InboxRow): Effect.Effect<typeof InboxColumns.Encoded, ParseError> => {
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
      return encodeColumns({ ...base, name: row.name, content_key: putContentKey(row.card.digest), run_id: null, request_id: null, payload: JSON.stringify({ card: row.card }) })
    case "skill_delete":
      return encodeColumns({ ...base, name: row.name, content_key: DELETE_CONTENT_KEY, run_id: null, request_id: null, payload: "{}" })
    case "run_approval": {
      const payload = {
        agent: row.agent,
        hermes_run_id: row.hermes_run_id,
        command: row.command,
        description: row.description,
        choices: row.choices,
        choice: row.choice
      }
      return Effect.flatMap(encodeRun(payload), (text) =>
        encodeColumns({ ...base, name: null, content_key: null, run_id: row.run_id, request_id: row.request_id, payload: text }))
    }
  }
}

/** An ISO time as the integer column stores it. */
export const epochMsColumn = Schema.encode(IsoFromEpochMs)

/** A stored run-approval payload with the choice sent to Hermes recorded in it. */
export const withChoice = (payload: string, choice: string | null): Effect.Effect<string, ParseError> =>
  Effect.flatMap(decodeRun(payload), (p) => encodeRun({ ...p, choice }))

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
