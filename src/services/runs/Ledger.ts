/**
 * The run ledger: every run, its newest events, its output and its idempotency key, in the store.
 * Text is stored raw (the database is 0600) and only ever redacted on the way out. Every write is
 * one transaction; `modify` reads the run inside that transaction (or writes only while the row is
 * at the version its caller holds), so concurrent writers (the follower, stop, answer) never
 * overwrite each other's changes.
 *
 * This file is the interface; `LedgerSql.ts` implements it. Tests swap in failing doubles.
 */
import type { Effect, Option, Scope, Stream } from "effect"
import { Context, Data, Schema } from "effect"
import type { NewEvent } from "../../domain/runs/events.ts"
import type { OutputSlice } from "../../domain/runs/window.ts"
import { PendingClarification, RunStatus } from "../../domain/runs/view.ts"
import type { RunFace } from "../../domain/runs/face.ts"

export type { RunFace }

/**
 * A run as stored, declared once: this Schema's Type is the record the ledger hands out, and its
 * Encoded side what each `runs` column holds (`storage/rows.ts` derives the columns, by the fields'
 * names in snake_case, the decode and the INSERT and UPDATE values from it, on both dialects).
 * Times are epoch milliseconds; keys are stored prefixed (`<client>:<key>`); `usage` and `pending`
 * are JSON text. The queue's `admitted_at` (`ledgerQueue.ts`) and PostgreSQL's `insert_seq` are
 * columns of the table, not of the record.
 */
export const RunRecord = Schema.Struct({
  runId: Schema.String,
  client: Schema.String,
  agent: Schema.String,
  profile: Schema.String,
  hermesRunId: Schema.String,
  status: RunStatus,
  input: Schema.String,
  instructions: Schema.NullOr(Schema.String),
  sessionKey: Schema.NullOr(Schema.String),
  reasoningEffort: Schema.NullOr(Schema.String),
  idempotencyKey: Schema.NullOr(Schema.String),
  fingerprint: Schema.String,
  error: Schema.NullOr(Schema.String),
  usage: Schema.NullOr(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  pending: Schema.NullOr(Schema.parseJson(PendingClarification)),
  lastSeq: Schema.Int,
  /** The output's length in UTF-8 bytes. */
  outputBytes: Schema.Int,
  /** The output's first OUTPUT_HEAD_CHARS characters (list previews with redaction context). */
  outputHead: Schema.String,
  /** The last Hermes SSE frame id recorded, to resume the stream after a restart. */
  hermesEventId: Schema.NullOr(Schema.Int),
  createdAt: Schema.Int,
  updatedAt: Schema.Int,
  endedAt: Schema.NullOr(Schema.Int),
  face: Schema.Literal("mcp", "a2a") satisfies Schema.Schema<RunFace>,
  /**
   * A stop the bridge is asking Hermes for: the data of its `run.stopping` event (who stopped the
   * run), stored before Hermes is asked and cleared once that event is stored or the run ends. Never
   * shown: it is how a cancellation stored by a follower in another process, before the stop's own
   * record, still carries the stop's record first (`planWrite` in `ledgerWrite.ts`). JSON text.
   */
  stopAsked: Schema.NullOr(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  /**
   * An answer the bridge is giving Hermes: the data of its client's `clarify.answered` (the
   * request's id, the answer), stored before Hermes is given it and cleared once it is recorded or
   * the run ends. Never shown: Hermes's echo of the answer (which carries no answer), stored by a
   * follower in another process before the answer's own record, is stored as this (`planWrite`). JSON text.
   */
  answerAsked: Schema.NullOr(Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  /**
   * The row's version: every UPDATE of the row adds one. A writer that holds the row as it last
   * wrote it (a run's follower) writes against this version without reading the row first; if
   * anyone wrote in between, the row is read and the write decided again (`modify`'s `expected`).
   */
  version: Schema.Int
})
export interface RunRecord extends Schema.Schema.Type<typeof RunRecord> {}

/**
 * The fields a start does not give: the ledger's writes fill them (`newRecord` in `ledgerWrite.ts`
 * starts them empty). Every other field of `RunRecord` is the start's to give, so a new column
 * written at start is in `NewRun` without a word here.
 */
export type RunWritten =
  | "error" | "usage" | "pending" | "lastSeq" | "outputBytes" | "outputHead" | "hermesEventId"
  | "createdAt" | "updatedAt" | "endedAt" | "stopAsked" | "answerAsked" | "version"

/** What a start records: the fields of `RunRecord` but those the writes fill. */
export interface NewRun extends Omit<RunRecord, RunWritten> {
  /** The first event (`run.started`), stored as seq 1. */
  readonly started: NewEvent
  /**
   * The client's cap on unfinished runs, checked again in the insert's transaction (with the
   * client's runs locked against other inserts): the service's check before the Hermes start counts
   * only this process's starts in flight, and replicas on one database start side by side.
   */
  readonly maxActive?: number
  /**
   * A queued run (`status: "queued"`, `hermesRunId: ""`): the client's cap on queued runs, checked
   * in the insert's transaction like `maxActive` (`ClientQueueFull` past it).
   */
  readonly maxQueued?: number
}

export interface StoredEvent {
  readonly seq: number
  readonly type: string
  readonly at: number
  readonly data: Record<string, unknown>
}

/** What one write changes; an omitted field stays as it is. */
export interface RunChange {
  readonly events?: ReadonlyArray<NewEvent>
  readonly status?: RunStatus
  readonly pending?: PendingClarification | null
  readonly error?: string | null
  readonly usage?: Record<string, unknown> | null
  readonly outputAppend?: string
  /** Replaces the whole output (Hermes's final text) when it differs from what is stored. */
  readonly outputReplace?: string | null
  readonly hermesEventId?: number | null
  /** Hermes's run id, once a queued run is started there (it is `""` until then). */
  readonly hermesRunId?: string
  /** The data of the `run.stopping` event of a stop being asked of Hermes (`RunRecord.stopAsked`); null: none. */
  readonly stopAsked?: Readonly<Record<string, unknown>> | null
  /** The data of the `clarify.answered` of an answer being given to Hermes (`RunRecord.answerAsked`); null: none. */
  readonly answerAsked?: Readonly<Record<string, unknown>> | null
}

export interface Modified<A> {
  readonly record: RunRecord
  readonly appended: ReadonlyArray<StoredEvent>
  readonly result: A
}

/** The database failed (the cause is kept for the log, never sent). */
export class LedgerError extends Data.TaggedError("LedgerError")<{ readonly operation: string; readonly cause: unknown }> {}
/** The (profile, idempotency key) pair is already taken: a concurrent start won the race. */
export class IdempotencyTaken extends Data.TaggedError("IdempotencyTaken")<{ readonly key: string }> {}
/** The insert found the client at its cap (`NewRun.maxActive`) already: another start, perhaps on another replica, filled it. */
export class ClientAtCap extends Data.TaggedError("ClientAtCap")<{ readonly client: string; readonly active: number }> {}
/** The insert of a queued run found the client's queue full (`NewRun.maxQueued`). */
export class ClientQueueFull extends Data.TaggedError("ClientQueueFull")<{ readonly client: string; readonly queued: number }> {}
/** `modify` of a run that is not in the ledger (deleted by retention, or never there). */
export class LedgerRunMissing extends Data.TaggedError("LedgerRunMissing")<{ readonly runId: string }> {}


export interface ListFilter {
  /** Only this client's runs; null for every client's (the admin). */
  readonly client: string | null
  readonly status?: RunStatus | undefined
  readonly limit: number
  /** Only runs in one of these statuses (with `status`, both must hold). */
  readonly statuses?: ReadonlyArray<RunStatus> | undefined
  /** Only runs of this stored (prefixed) session key. */
  readonly sessionKey?: string | undefined
  /** Only runs written at or after this time (ms). */
  readonly updatedSince?: number | undefined
  /**
   * The cursor: only runs listed after this one (newest first: older, or as old and inserted
   * before it). A run the ledger no longer holds lists nothing after it.
   */
  readonly after?: string | undefined
}

/**
 * A run as the operator's console lists it: the row's facts (the record's own fields, declared
 * there) and its newest event. `usageText` is Hermes's usage as stored (JSON text; the console
 * shows what parses).
 */
export const RunBrief = Schema.Struct({
  ...RunRecord.pick("runId", "client", "agent", "profile", "status", "createdAt", "updatedAt", "endedAt", "face").fields,
  usageText: Schema.NullOr(Schema.String),
  lastEventType: Schema.NullOr(Schema.String),
  lastEventAt: Schema.NullOr(Schema.Int)
})
export interface RunBrief extends Schema.Schema.Type<typeof RunBrief> {}

export interface BriefFilter {
  readonly client?: string | undefined
  readonly status?: RunStatus | undefined
  readonly agent?: string | undefined
  readonly limit: number
}

/** How loaded one Hermes profile is, over every replica: runs holding a Hermes slot, and runs queued. */
export interface ProfileLoad {
  readonly live: number
  readonly queued: number
}

/** A queued run as the queue orders it (oldest first). */
export interface QueuedRun {
  readonly runId: string
  readonly client: string
  readonly createdAt: number
}

export interface LedgerShape {
  /** Inserts a run and its first event (`run.started`, or `run.queued` for a queued run). */
  readonly insert: (run: NewRun) => Effect.Effect<RunRecord, LedgerError | IdempotencyTaken | ClientAtCap | ClientQueueFull>
  readonly get: (runId: string) => Effect.Effect<Option.Option<RunRecord>, LedgerError>
  /**
   * Subscribes now to this process's committed writes: the id of each run inserted or written
   * here from the moment this returns, until the scope closes (a sliding hub: a slow reader loses
   * old ids, never the newest). Other processes' writes are the change feed's (`runs` topic).
   */
  readonly written: Effect.Effect<Stream.Stream<string>, never, Scope.Scope>
  /**
   * The run when `client` owns it (`null`: whoever does, the admin's read), by id and owner in one
   * statement: another client's run id and an id nobody minted take the same path and the same
   * answer (none), so how long the answer takes tells nothing of which it was.
   */
  readonly getOwned: (runId: string, client: string | null) => Effect.Effect<Option.Option<RunRecord>, LedgerError>
  /** The run holding this prefixed idempotency key on this profile, whoever owns it. */
  readonly byIdempotencyKey: (profile: string, key: string) => Effect.Effect<Option.Option<RunRecord>, LedgerError>
  /** Runs of this client that have not ended and hold a Hermes slot (queued runs waiting are not counted). */
  readonly countActive: (client: string) => Effect.Effect<number, LedgerError>
  /** Newest first. */
  readonly list: (filter: ListFilter) => Effect.Effect<ReadonlyArray<RunRecord>, LedgerError>
  /** How many runs `list` would give with no limit and no cursor. */
  readonly count: (filter: Omit<ListFilter, "limit" | "after">) => Effect.Effect<number, LedgerError>
  /** Every run that has not ended (re-attached on start). */
  readonly active: Effect.Effect<ReadonlyArray<RunRecord>, LedgerError>
  /**
   * Reads the run, lets `f` decide the change from what is stored now, and writes it, all in one
   * transaction. Appended events get the next seqs; events beyond the newest EVENTS_KEPT are dropped.
   *
   * `expected`: the run as the caller last had it from the ledger (a follower's last commit). The
   * change is decided from it and written only if the row is still at its `version`, without
   * reading the row; otherwise (anyone wrote since) the row is read and `f` decides again. So `f`
   * may be called twice, and must decide from its argument alone.
   */
  readonly modify: <A>(
    runId: string,
    f: (current: RunRecord) => { readonly change: RunChange; readonly result: A },
    expected?: RunRecord
  ) => Effect.Effect<Modified<A>, LedgerError | LedgerRunMissing>
  /** Events with seq > afterSeq, oldest first, at most `limit`. */
  readonly eventsAfter: (runId: string, afterSeq: number, limit: number) => Effect.Effect<ReadonlyArray<StoredEvent>, LedgerError>
  /** Events with seq < beforeSeq, newest first, at most `limit`. */
  readonly eventsBefore: (runId: string, beforeSeq: number, limit: number) => Effect.Effect<ReadonlyArray<StoredEvent>, LedgerError>
  /** The stored output bytes overlapping [from, to), widened to whole stored chunks (`total` as given). */
  readonly outputSlice: (runId: string, from: number, to: number, total: number) => Effect.Effect<OutputSlice, LedgerError>
  /** The whole stored output (for a follower resuming a run; views read windows). */
  readonly output: (runId: string) => Effect.Effect<string, LedgerError>
  /**
   * Deletes runs that ended before `endedBefore` (ms), with their events and output. Returns how
   * many. Rows other owners keep per run (the operator's stop requests) go by their own sweep (`present`).
   */
  readonly sweep: (endedBefore: number) => Effect.Effect<number, LedgerError>

  // The operator's console and /metrics (ledgerBriefs.ts).
  /** Live runs first, then the newest, at most `limit`. */
  readonly briefs: (filter: BriefFilter) => Effect.Effect<ReadonlyArray<RunBrief>, LedgerError>
  readonly brief: (runId: string) => Effect.Effect<Option.Option<RunBrief>, LedgerError>
  /** How many runs each client has that have not ended (clients with none are absent). */
  readonly liveByClient: Effect.Effect<ReadonlyArray<{ readonly client: string; readonly face: RunFace; readonly n: number }>, LedgerError>
  /** Every run created at or after `since` (ms): its client and stored usage. */
  readonly usageSince: (since: number) => Effect.Effect<ReadonlyArray<{ readonly client: string; readonly usage: string | null }>, LedgerError>
  /** The clients and agents that have runs (the console's filter choices), sorted. */
  readonly runChoices: Effect.Effect<{ readonly clients: ReadonlyArray<string>; readonly agents: ReadonlyArray<string> }, LedgerError>
  /** Text that changes whenever a run is written, started or ended (compared, never shown). */
  readonly version: Effect.Effect<string, LedgerError>
  /** Which of these runs the ledger still holds (other owners' per-run rows follow the ledger's retention by it). */
  readonly present: (runIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, LedgerError>
  /** The rows kept: runs and events. */
  readonly totals: Effect.Effect<{ readonly runs: number; readonly events: number }, LedgerError>

  // The queue in front of Hermes's capacity (ledgerQueue.ts; the decisions are admission.ts's).
  readonly profileLoad: (profile: string) => Effect.Effect<ProfileLoad, LedgerError>
  /** The profile's queued runs, oldest first. */
  readonly queuedOf: (profile: string) => Effect.Effect<ReadonlyArray<QueuedRun>, LedgerError>
  /** Queued runs per profile (profiles with none are absent). */
  readonly queueDepths: Effect.Effect<ReadonlyArray<{ readonly profile: string; readonly n: number }>, LedgerError>
  /**
   * In one transaction holding the profile (against other replicas' claims): when fewer than
   * `capacity` runs hold a slot of the profile, takes the next queued run (round-robin by client:
   * the client admitted least recently on the profile, among clients below `clientCap` live runs;
   * its oldest queued run) and marks it claimed (`admitted_at`; still `queued`, without a Hermes run id). `live`:
   * the runs that held a slot of the profile before this claim.
   */
  readonly claimNext: (profile: string, capacity: number, clientCap: number) => Effect.Effect<Option.Option<{ readonly record: RunRecord; readonly live: number }>, LedgerError>
  /**
   * A start about to go to Hermes at once takes a slot of the profile, under the same lock and count
   * as a claim (live runs, claims and other such slots younger than `freshSince`); false: none free.
   */
  readonly reserveSlot: (profile: string, capacity: number, token: string, freshSince: number) => Effect.Effect<boolean, LedgerError>
  /** The slot's start was recorded or refused: its run (if any) counts from now on. */
  readonly releaseSlot: (token: string) => Effect.Effect<void, LedgerError>
  /** A claimed run Hermes did not admit goes back to the queue; false when it is no longer a claim. */
  readonly unclaim: (runId: string) => Effect.Effect<boolean, LedgerError>
  /** Claims (and slots) older than `claimedBefore` (ms) whose start never reached the ledger go back to the queue (are dropped); how many claims. */
  readonly requeueStale: (claimedBefore: number) => Effect.Effect<number, LedgerError>
}

export class Ledger extends Context.Tag("agent-bridge/runs/Ledger")<Ledger, LedgerShape>() {}

/** An unexpected ledger failure (as opposed to a domain answer such as IdempotencyTaken). */
export const isLedgerFailure = (u: unknown): u is LedgerError | LedgerRunMissing =>
  u instanceof LedgerError || u instanceof LedgerRunMissing

/** The chain of messages under a ledger failure (SqlError's own message is generic), for logs. */
export const ledgerFailureText = (e: LedgerError | LedgerRunMissing): string => {
  if (e._tag === "LedgerRunMissing") return `run ${e.runId} is not in the ledger`
  const messages: Array<string> = [`ledger ${e.operation} failed`]
  let cause: unknown = e.cause
  for (let depth = 0; depth < 5 && cause !== undefined && cause !== null; depth++) {
    messages.push(cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause))
    cause = (cause as { cause?: unknown }).cause
  }
  return messages.join(" ← ")
}
