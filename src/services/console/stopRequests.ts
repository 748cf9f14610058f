/**
 * The operator's stop requests (migration 0006): a row per run the operator asked to stop. The CLI
 * only writes the row (the daemon may be down); the daemon carries rows out (`OperatorStops`) and
 * records the outcome, so the request survives a daemon that is not running when it is made.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Context, type Duration, Effect, Layer, Option, Schema, Stream } from "effect"
import type { ParseError } from "effect/ParseResult"
import type { StopActor } from "../runs/Runs.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"

export interface StopRequest {
  readonly runId: string
  readonly requestedBy: string
  readonly via: StopActor["via"]
  readonly requestedAt: number
  readonly doneAt: number | null
  /** What became of it: "stopping", "already_ended", "gone", or "failed: <why>". */
  readonly outcome: string | null
}

/** A `run_stop_requests` row, decoded (a row that does not is a `ParseError`, never a wrong value). */
const Row = Schema.Struct({
  run_id: Schema.String,
  requested_by: Schema.String,
  via: Schema.Literal("cli", "page"),
  requested_at: Schema.Int,
  done_at: Schema.NullOr(Schema.Int),
  outcome: Schema.NullOr(Schema.String)
})
type Row = typeof Row.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(Row))

const toRequest = (r: Row): StopRequest => ({
  runId: r.run_id,
  requestedBy: r.requested_by,
  via: r.via,
  requestedAt: r.requested_at,
  doneAt: r.done_at,
  outcome: r.outcome
})

/** Rows carried out per pass; more wait for the next pass (the queue is drained in order). */
export const STOPS_PER_PASS = 100

export interface StopRequestsShape {
  /** Records (or re-opens, if an earlier one is done) the operator's request to stop `runId`. */
  readonly request: (runId: string, via: StopActor["via"]) => Effect.Effect<StopRequest, SqlError | ParseError>
  readonly get: (runId: string) => Effect.Effect<Option.Option<StopRequest>, SqlError | ParseError>
  /** Requests not yet carried out, oldest first. */
  readonly pending: Effect.Effect<ReadonlyArray<StopRequest>, SqlError | ParseError>
  readonly finish: (runId: string, outcome: string) => Effect.Effect<void, SqlError | ParseError>
  /** The requests of these runs, by run id (runs without one are absent). */
  readonly forRuns: (runIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, StopRequest>, SqlError | ParseError>
  /** The run ids of every request kept (one row per run an operator stopped, within the runs' retention). */
  readonly runIds: Effect.Effect<ReadonlyArray<string>, SqlError | ParseError>
  /** Deletes the requests of these runs; answers how many went. */
  readonly forget: (runIds: ReadonlyArray<string>) => Effect.Effect<number, SqlError>
  /** Text that changes when a request is made or carried out (the console's version). */
  readonly version: Effect.Effect<string, SqlError | ParseError>
}

/** The stop requests' store as a service: the console reads through it (`makeStopRequests` builds it). */
export class StopRequests extends Context.Tag("agent-bridge/console/StopRequests")<StopRequests, StopRequestsShape>() {}

const decodeValues = Schema.decodeUnknown(Schema.Array(Schema.Struct({ v: Schema.String })))

export const makeStopRequests: Effect.Effect<StopRequestsShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // A request made or carried out here is told to this process's subscribers of `stops` (the
  // console's page); other processes hear the commit through their change feed.
  const feed = yield* Effect.serviceOption(ChangeFeed)
  const announce = (runId: string) => (Option.isSome(feed) ? feed.value.notify("stops", runId) : Effect.void)
  const get = (runId: string) =>
    sql`SELECT * FROM run_stop_requests WHERE run_id = ${runId}`.pipe(
      Effect.flatMap(decodeRows),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRequest))
    )
  return {
    request: (runId, via) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        // A request still pending stays as it is (its first time and channel); a finished one is re-opened.
        yield* sql`INSERT INTO run_stop_requests (run_id, requested_by, via, requested_at) VALUES (${runId}, 'operator', ${via}, ${now})
          ON CONFLICT (run_id) DO UPDATE SET via = excluded.via, requested_at = excluded.requested_at, done_at = NULL, outcome = NULL
          WHERE run_stop_requests.done_at IS NOT NULL`
        const stored = yield* get(runId)
        if (Option.isNone(stored)) return yield* Effect.dieMessage(`the stop request of ${runId} was written but cannot be read back`)
        yield* announce(runId)
        return stored.value
      }),
    get,
    pending: sql`SELECT * FROM run_stop_requests WHERE done_at IS NULL ORDER BY requested_at LIMIT ${STOPS_PER_PASS}`.pipe(
      Effect.flatMap(decodeRows),
      Effect.map((rows) => rows.map(toRequest))
    ),
    finish: (runId, outcome) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        sql`UPDATE run_stop_requests SET done_at = ${now}, outcome = ${outcome} WHERE run_id = ${runId} AND done_at IS NULL`
      ).pipe(Effect.zipRight(announce(runId))),
    forRuns: (runIds) =>
      runIds.length === 0
        ? Effect.succeed(new Map())
        : sql`SELECT * FROM run_stop_requests WHERE ${sql.in("run_id", runIds)}`.pipe(
          Effect.flatMap(decodeRows),
          Effect.map((rows) => new Map(rows.map((r) => [r.run_id, toRequest(r)])))
        ),
    runIds: sql`SELECT run_id FROM run_stop_requests`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.Struct({ run_id: Schema.String })))),
      Effect.map((rows) => rows.map((r) => r.run_id))
    ),
    forget: (runIds) =>
      runIds.length === 0
        ? Effect.succeed(0)
        : sql`DELETE FROM run_stop_requests WHERE ${sql.in("run_id", runIds)} RETURNING run_id`.pipe(Effect.map((rows) => rows.length)),
    version: sql`SELECT count(*) || '.' || coalesce(max(requested_at), 0) || '.' || coalesce(max(done_at), 0) AS v FROM run_stop_requests`.pipe(
      Effect.flatMap(decodeValues),
      Effect.map((rows) => rows[0]?.v ?? "")
    )
  }
})

/** The stop requests over the `SqlClient` in context. */
export const StopRequestsLive = Layer.effect(StopRequests, makeStopRequests)

/**
 * The outcome of `runId`'s stop request once a daemon carried it out (`agent-bridge runs stop`
 * reports it): `None` when it was not carried out within `within` (no daemon running, or a slow
 * one). Reads the request now, then again at each change of the change feed's `stops` topic (the
 * daemon's commit; subscribed before the first read, so none is missed), never on a poll.
 */
export const awaitOutcome = (store: StopRequestsShape, runId: string, within: Duration.DurationInput): Effect.Effect<Option.Option<string | null>, SqlError | ParseError> =>
  Effect.gen(function* () {
    const feed = yield* Effect.serviceOption(ChangeFeed)
    const changes = Option.isSome(feed) ? yield* feed.value.subscribe("stops") : Stream.never
    const outcome = Effect.map(store.get(runId), Option.flatMap((r) => (r.doneAt === null ? Option.none() : Option.some(r.outcome))))
    const now = yield* outcome
    if (Option.isSome(now)) return now
    const later = yield* changes.pipe(
      Stream.buffer({ capacity: 1, strategy: "sliding" }),
      Stream.mapEffect(() => outcome),
      Stream.filterMap((o) => o),
      Stream.runHead
    )
    return later
  }).pipe(Effect.scoped, Effect.timeoutOption(within), Effect.map(Option.flatten))
