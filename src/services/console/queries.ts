/**
 * What the operator's console (the `/inbox/runs` and `/inbox/clients` pages, `agent-bridge runs`)
 * reads: one summary row per run and per client, read through each table's owner (the ledger's runs
 * and events, the stop requests, Auth's clients). These are the operator's views over every client;
 * nothing here is reachable from an MCP tool.
 *
 * Tokens come from Hermes's `usage` as the ledger keeps it (`total_tokens`, else input + output).
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option, Schema, type Scope, Stream } from "effect"
import type { ParseError } from "effect/ParseResult"
import { createHash } from "node:crypto"
import { ChangeFeed, type Topic } from "../../storage/ChangeFeed.ts"
import { Clients } from "../auth/Clients.ts"
import { type BriefFilter, Ledger, type LedgerError, type RunBrief } from "../runs/Ledger.ts"
import { type StopRequest, StopRequests } from "./stopRequests.ts"
import { queuePlace } from "../../domain/runs/queuePlace.ts"
import { DAY_MS } from "../../domain/limits.ts"

/** A run as the console shows it: the ledger's brief, with its tokens, usage and the operator's stop. */
export interface RunSummary extends Omit<RunBrief, "usageText"> {
  readonly tokens: number | null
  readonly usage: Record<string, unknown> | null
  /** The operator's stop request, if any: null, "pending", or its outcome. */
  readonly operatorStop: string | null
}

/** The queue for Hermes's capacity as the console shows it. */
export interface RunQueue {
  readonly depths: ReadonlyArray<{ readonly profile: string; readonly n: number }>
  /** Each waiting run's place in its profile's queue (1: next). */
  readonly places: ReadonlyMap<string, number>
}

/** The console's runs filter is the ledger's (`limit` is bounded by MAX_RUNS_LISTED here). */
export type RunFilter = BriefFilter

export interface ClientSummary {
  readonly name: string
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: string
  readonly lastUsedAt: string | null
  readonly revokedAt: string | null
  /** How it connected: null for a key, else the host its OAuth grant came from. */
  readonly oauthHost: string | null
  readonly liveRuns: number
  readonly runs24h: number
  readonly tokens24h: number
}

/** At most this many runs in one listing. */
export const MAX_RUNS_LISTED = 500

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

const toSummary = ({ usageText, ...brief }: RunBrief, stop: StopRequest | undefined): RunSummary => {
  const usage = parseUsage(usageText)
  return {
    ...brief,
    tokens: tokensOf(usage),
    usage,
    operatorStop: stop === undefined ? null : stop.doneAt === null ? "pending" : stop.outcome
  }
}

/** What a console read fails with: the ledger's error, or the stop requests' and clients' own. */
export type ConsoleReadError = LedgerError | SqlError | ParseError

/** The change feed's topics that may move the console's version. */
const WATCHED: ReadonlyArray<Topic> = ["runs", "stops", "keys"]

/** The console's reads, each through its table's owner: the ledger, the stop requests, Auth's clients. */
export const makeConsoleQueries = Effect.gen(function* () {
  const ledger = yield* Ledger
  const stops = yield* StopRequests
  const clientsTable = yield* Clients
  const feed = yield* Effect.serviceOption(ChangeFeed)

  const withStops = (briefs: ReadonlyArray<RunBrief>) =>
    Effect.map(stops.forRuns(briefs.map((b) => b.runId)), (byRun) => briefs.map((b) => toSummary(b, byRun.get(b.runId))))

  /** Live runs first, then the newest. */
  const runs = (filter: RunFilter): Effect.Effect<ReadonlyArray<RunSummary>, ConsoleReadError> =>
    ledger.briefs({ ...filter, limit: Math.min(Math.max(1, Math.trunc(filter.limit)), MAX_RUNS_LISTED) }).pipe(Effect.flatMap(withStops))

  const run = (runId: string): Effect.Effect<RunSummary | null, ConsoleReadError> =>
    ledger.brief(runId).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.succeed(null),
        onSome: (b) => Effect.map(withStops([b]), (rows) => rows[0] ?? null)
      }))
    )

  /** Every client with its run counts; `now` in epoch ms (Effect's Clock at the caller). */
  const clients = (now: number): Effect.Effect<ReadonlyArray<ClientSummary>, ConsoleReadError> =>
    Effect.gen(function* () {
      const rows = yield* clientsTable.list
      const live = yield* ledger.liveByClient
      const recent = yield* ledger.usageSince(now - DAY_MS)
      // Counted per client and face: a client's live runs are the sum over its faces.
      const liveBy = new Map<string, number>()
      for (const r of live) liveBy.set(r.client, (liveBy.get(r.client) ?? 0) + r.n)
      const runsBy = new Map<string, number>()
      const tokensBy = new Map<string, number>()
      for (const r of recent) {
        runsBy.set(r.client, (runsBy.get(r.client) ?? 0) + 1)
        tokensBy.set(r.client, (tokensBy.get(r.client) ?? 0) + (tokensOf(parseUsage(r.usage)) ?? 0))
      }
      return rows.map((r) => ({
        name: r.name,
        scopes: r.scopes,
        createdAt: r.createdAt,
        lastUsedAt: r.lastUsedAt,
        revokedAt: r.revokedAt,
        oauthHost: r.oauthHost,
        liveRuns: liveBy.get(r.name) ?? 0,
        runs24h: runsBy.get(r.name) ?? 0,
        tokens24h: tokensBy.get(r.name) ?? 0
      }))
    })

  /** The clients and agents that have runs (the filters' choices). */
  const filterChoices = ledger.runChoices

  /**
   * Changes whenever anything a console page shows may have changed: a run written (live runs by
   * their last write, ended ones by count and newest end), a stop request, a client added, used,
   * revoked or rotated. Cheap: the live-runs and ended indexes, and two small tables.
   */
  const version = Effect.all([ledger.version, stops.version, clientsTable.version]).pipe(
    // Hashed: the raw text holds key digests, and the page carries the version in its markup.
    Effect.map((parts) => createHash("sha256").update(parts.join(":")).digest("hex").slice(0, 16))
  )

  /**
   * The queue for Hermes's capacity: runs waiting per profile, and each waiting run's place
   * (the run view's `queue_position`, in the queue's round-robin order).
   */
  const queue: Effect.Effect<RunQueue, ConsoleReadError> = Effect.gen(function* () {
    const depths = yield* ledger.queueDepths
    const places = new Map<string, number>()
    for (const d of depths) {
      const queued = yield* ledger.queuedOf(d.profile)
      for (const q of queued) places.set(q.runId, queuePlace(queued, q.runId) ?? 0)
    }
    return { depths, places }
  })

  /**
   * Subscribes now to what may move `version`: each run inserted or written in this process (the
   * ledger's `written`), and the change feed's `runs`, `stops` and `keys` topics (another process's
   * commit; a stop request or a key changed here). What none of them announces (a client's last
   * use, written at most once a minute per client; the retention sweep) waits for the caller's own
   * safety read.
   */
  const changes: Effect.Effect<Stream.Stream<void>, never, Scope.Scope> = Effect.gen(function* () {
    const here = yield* ledger.written
    const topics = Option.isSome(feed) ? yield* Effect.forEach(WATCHED, (t) => feed.value.subscribe(t)) : []
    const all: ReadonlyArray<Stream.Stream<void>> = [here, ...topics].map((s: Stream.Stream<unknown>) => Stream.as(s, undefined))
    return Stream.mergeAll(all, { concurrency: "unbounded" })
  })

  return { runs, run, clients, filterChoices, version, changes, queue }
})

export type ConsoleQueries = Effect.Effect.Success<typeof makeConsoleQueries>
