/**
 * What the operator's console (the `/inbox/runs` and `/inbox/clients` pages, `agent-bridge runs`)
 * reads: one summary row per run and per client, straight from the ledger's tables. These are the
 * operator's views over every client; nothing here is reachable from an MCP tool.
 *
 * Tokens come from Hermes's `usage` as the ledger keeps it (`total_tokens`, else input + output).
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { createHash } from "node:crypto"
import { RunStatus } from "../../domain/runs/view.ts"
import { IsoFromEpochMs } from "../../common/time.ts"

export interface RunSummary {
  readonly runId: string
  readonly client: string
  readonly agent: string
  readonly profile: string
  readonly status: RunStatus
  readonly createdAt: number
  readonly updatedAt: number
  readonly endedAt: number | null
  readonly lastEventType: string | null
  readonly lastEventAt: number | null
  readonly tokens: number | null
  readonly usage: Record<string, unknown> | null
  /** The operator's stop request, if any: null, "pending", or its outcome. */
  readonly operatorStop: string | null
}

export interface RunFilter {
  readonly client?: string | undefined
  readonly status?: RunStatus | undefined
  readonly agent?: string | undefined
  readonly limit: number
}

export interface ClientSummary {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
  readonly liveRuns: number
  readonly runs24h: number
  readonly tokens24h: number
}

/** At most this many runs in one listing. */
export const MAX_RUNS_LISTED = 500
export const DAY_MS = 24 * 60 * 60 * 1000

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
/** Usage as the console shows it: an object, or null when the run has none or it does not parse (the page still lists the run). */
const parseUsage = (text: string | null): Record<string, unknown> | null =>
  text === null ? null : Option.getOrNull(Schema.decodeUnknownOption(Schema.parseJson(JsonObject))(text))

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null)

/** The tokens a run used, from Hermes's usage: `total_tokens`, else input + output; null when unknown. */
export const tokensOf = (usage: Record<string, unknown> | null): number | null => {
  if (usage === null) return null
  const total = num(usage["total_tokens"])
  if (total !== null) return total
  const input = num(usage["input_tokens"])
  const output = num(usage["output_tokens"])
  return input === null && output === null ? null : (input ?? 0) + (output ?? 0)
}

/** A run's summary row, decoded: the status through the one status Schema, times as epoch ms. */
const RunRow = Schema.Struct({
  run_id: Schema.String,
  client: Schema.String,
  agent: Schema.String,
  profile: Schema.String,
  status: RunStatus,
  created_at: Schema.Int,
  updated_at: Schema.Int,
  ended_at: Schema.NullOr(Schema.Int),
  usage: Schema.NullOr(Schema.String),
  last_type: Schema.NullOr(Schema.String),
  last_at: Schema.NullOr(Schema.Int),
  stop_done_at: Schema.NullOr(Schema.Int),
  stop_requested_at: Schema.NullOr(Schema.Int),
  stop_outcome: Schema.NullOr(Schema.String)
})
type RunRow = typeof RunRow.Type
const decodeRuns = Schema.decodeUnknown(Schema.Array(RunRow))
/** A client's row: times from epoch ms (migration 0007) to the ISO text the console shows. */
const ClientRow = Schema.Struct({
  name: Schema.String,
  scopes: Schema.String,
  created_at: IsoFromEpochMs,
  last_used_at: Schema.NullOr(IsoFromEpochMs),
  revoked_at: Schema.NullOr(IsoFromEpochMs)
})
const decodeClients = Schema.decodeUnknown(Schema.Array(ClientRow))
const decodeCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ client: Schema.String, n: Schema.Int })))
const decodeUsages = Schema.decodeUnknown(Schema.Array(Schema.Struct({ client: Schema.String, usage: Schema.NullOr(Schema.String) })))
const decodeValues = Schema.decodeUnknown(Schema.Array(Schema.Struct({ v: Schema.String })))

const toSummary = (r: RunRow): RunSummary => {
  const usage = parseUsage(r.usage)
  return {
    runId: r.run_id,
    client: r.client,
    agent: r.agent,
    profile: r.profile,
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    endedAt: r.ended_at,
    lastEventType: r.last_type,
    lastEventAt: r.last_at,
    tokens: tokensOf(usage),
    usage,
    operatorStop: r.stop_requested_at === null ? null : r.stop_done_at === null ? "pending" : r.stop_outcome
  }
}

export const makeConsoleQueries = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const runSelect = sql`SELECT r.run_id, r.client, r.agent, r.profile, r.status, r.created_at, r.updated_at, r.ended_at, r.usage,
      (SELECT e.type FROM run_events e WHERE e.run_id = r.run_id ORDER BY e.seq DESC LIMIT 1) AS last_type,
      (SELECT e.at FROM run_events e WHERE e.run_id = r.run_id ORDER BY e.seq DESC LIMIT 1) AS last_at,
      s.requested_at AS stop_requested_at, s.done_at AS stop_done_at, s.outcome AS stop_outcome
    FROM runs r LEFT JOIN run_stop_requests s ON s.run_id = r.run_id`

  /** Live runs first, then the newest. */
  const runs = (filter: RunFilter): Effect.Effect<ReadonlyArray<RunSummary>, SqlError | ParseError> => {
    const where = [
      ...(filter.client === undefined ? [] : [sql`r.client = ${filter.client}`]),
      ...(filter.status === undefined ? [] : [sql`r.status = ${filter.status}`]),
      ...(filter.agent === undefined ? [] : [sql`r.agent = ${filter.agent}`])
    ]
    const limit = Math.min(Math.max(1, Math.trunc(filter.limit)), MAX_RUNS_LISTED)
    return sql`${runSelect} WHERE ${sql.and(where)}
        ORDER BY (r.ended_at IS NULL) DESC, r.created_at DESC, r.rowid DESC LIMIT ${limit}`.pipe(Effect.flatMap(decodeRuns), Effect.map((rows) => rows.map(toSummary)))
  }

  const run = (runId: string) =>
    sql`${runSelect} WHERE r.run_id = ${runId}`.pipe(
      Effect.flatMap(decodeRuns),
      Effect.map((rows) => (rows[0] === undefined ? null : toSummary(rows[0])))
    )

  /** Every client with its run counts; `now` in epoch ms (Effect's Clock at the caller). */
  const clients = (now: number): Effect.Effect<ReadonlyArray<ClientSummary>, SqlError | ParseError> =>
    Effect.gen(function* () {
      const rows = yield* sql`SELECT name, scopes, created_at, last_used_at, revoked_at FROM clients ORDER BY name`.pipe(Effect.flatMap(decodeClients))
      const live = yield* sql`SELECT client, count(*) AS n FROM runs WHERE ended_at IS NULL GROUP BY client`.pipe(Effect.flatMap(decodeCounts))
      const recent = yield* sql`SELECT client, usage FROM runs WHERE created_at >= ${now - DAY_MS}`.pipe(Effect.flatMap(decodeUsages))
      const liveBy = new Map(live.map((r) => [r.client, r.n]))
      const runsBy = new Map<string, number>()
      const tokensBy = new Map<string, number>()
      for (const r of recent) {
        runsBy.set(r.client, (runsBy.get(r.client) ?? 0) + 1)
        tokensBy.set(r.client, (tokensBy.get(r.client) ?? 0) + (tokensOf(parseUsage(r.usage)) ?? 0))
      }
      return rows.map((r) => ({
        name: r.name,
        scopes: r.scopes.split(",").filter((s) => s.length > 0),
        createdAt: r.created_at,
        lastUsedAt: r.last_used_at,
        revokedAt: r.revoked_at,
        liveRuns: liveBy.get(r.name) ?? 0,
        runs24h: runsBy.get(r.name) ?? 0,
        tokens24h: tokensBy.get(r.name) ?? 0
      }))
    })

  /** The clients and agents that have runs (the filters' choices). */
  const filterChoices = Effect.all({
    clients: sql`SELECT DISTINCT client AS v FROM runs ORDER BY v`.pipe(Effect.flatMap(decodeValues), Effect.map((rows) => rows.map((r) => r.v))),
    agents: sql`SELECT DISTINCT agent AS v FROM runs ORDER BY v`.pipe(Effect.flatMap(decodeValues), Effect.map((rows) => rows.map((r) => r.v)))
  })

  /**
   * Changes whenever anything a console page shows may have changed: a run written (live runs by
   * their last write, ended ones by count and newest end), a stop request, a client added, used,
   * revoked or rotated. Cheap: the live-runs and ended indexes, and two small tables.
   */
  const version = sql`SELECT
      (SELECT count(*) FROM runs) || ':' ||
      (SELECT coalesce(max(ended_at), 0) FROM runs WHERE ended_at IS NOT NULL) || ':' ||
      (SELECT coalesce(sum(updated_at % 1000003), 0) || '.' || count(*) FROM runs WHERE ended_at IS NULL) || ':' ||
      (SELECT count(*) || '.' || coalesce(max(requested_at), 0) || '.' || coalesce(max(done_at), 0) FROM run_stop_requests) || ':' ||
      (SELECT count(*) || '.' || coalesce(max(last_used_at), '') || '.' || coalesce(max(revoked_at), '') || '.' || group_concat(key_digest) FROM clients) AS v`.pipe(
    // Hashed: the raw text holds key digests, and the page carries the version in its markup.
    Effect.flatMap(decodeValues),
    Effect.map((rows) => createHash("sha256").update(rows[0]?.v ?? "").digest("hex").slice(0, 16))
  )

  return { runs, run, clients, filterChoices, version }
})

export type ConsoleQueries = Effect.Effect.Success<typeof makeConsoleQueries>
