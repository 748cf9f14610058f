/**
 * `agent-bridge runs`: the operator's view of runs from a terminal, over the daemon's database
 * (the daemon may be running or not).
 *
 *   runs list [--client C] [--status S] [--agent A] [--limit N] [--json]   live runs first, then the newest
 *   runs show ID [--events] [--since SEQ] [--offset N] [--json]            one run, redacted as clients see it
 *   runs stop ID [--json]                                                  the operator's stop
 *
 * A stop is recorded in the database and carried out by the daemon: at once when it is running
 * (it notices the commit within about a second; this waits a few seconds to report what happened),
 * else when it next starts.
 */
import { Clock, Duration, Effect, Option } from "effect"
import { type BridgeError, RunNotFound } from "../domain/errors.ts"
import { RunStatus } from "../domain/runs/view.ts"
import { Schema } from "effect"
import { OperatorStops } from "../services/console/OperatorStops.ts"
import { makeConsoleQueries } from "../services/console/queries.ts"
import { awaitOutcome, StopRequests } from "../services/console/stopRequests.ts"
import { Inbox } from "../services/inbox/Inbox.ts"
import { Redactor } from "../common/Redactor.ts"
import { Ledger } from "../services/runs/Ledger.ts"
import { makeViews } from "../services/runs/views.ts"
import { printedExit } from "./printedExit.ts"
import { flag, hasFlag, type ParsedArgs, UsageError } from "./args.ts"
import { eventsText, runDetail, runsTable } from "./runsFormat.ts"
import type { Clients } from "../services/auth/Clients.ts"
import { followerText, replicasOrSingle } from "../services/replicas/Replicas.ts"
import { isTerminal } from "../domain/runs/view.ts"

export const RUNS_USAGE = `usage: agent-bridge runs list [--client C] [--status S] [--agent A] [--limit N] [--json]
       agent-bridge runs show ID [--events] [--since SEQ] [--offset N] [--json]
       agent-bridge runs stop ID [--json]`

/** How long `runs stop` waits for a running daemon to carry the stop out before it just reports it recorded. */
export const STOP_REPORT_WAIT = Duration.seconds(5)
const EVENTS_SHOWN = 500

const json = (value: unknown) => JSON.stringify(value, null, 2)
const usage = (message: string) => Effect.fail(new UsageError(`${message}\n\n${RUNS_USAGE}`))
const isStatus = Schema.is(RunStatus)

const wholeNumber = (args: ParsedArgs, name: string, fallback: number): Effect.Effect<number, UsageError> => {
  const raw = flag(args, name)
  if (raw === undefined) return Effect.succeed(fallback)
  const n = Number(raw)
  return Number.isInteger(n) && n >= 0 ? Effect.succeed(n) : usage(`--${name} takes a whole number ≥ 0, not ${JSON.stringify(raw)}`)
}

const notFound = (id: string) => new RunNotFound({ message: `no run ${JSON.stringify(id.slice(0, 80))}` })

export type RunsCliEnv = Ledger | StopRequests | Clients | Redactor | Inbox | OperatorStops

export const runsCommand = (args: ParsedArgs): Effect.Effect<string, BridgeError | UsageError, RunsCliEnv> =>
  Effect.gen(function* () {
    const [, sub, id] = args.positionals
    const asJson = hasFlag(args, "json")
    const queries = yield* makeConsoleQueries
    const ledger = yield* Ledger
    const views = makeViews({ ledger, redactor: yield* Redactor, inbox: yield* Inbox })
    const db = <A, E>(e: Effect.Effect<A, E>) => Effect.orDie(e)
    switch (sub) {
      case "list": {
        const status = flag(args, "status")
        if (status !== undefined && !isStatus(status)) return yield* usage(`--status takes ${RunStatus.literals.join("|")}`)
        const limit = yield* wholeNumber(args, "limit", 100)
        const rows = yield* db(queries.runs({ client: flag(args, "client"), status, agent: flag(args, "agent"), limit: Math.max(1, limit) }))
        if (asJson) return json({ runs: rows })
        return rows.length === 0 ? "no runs" : runsTable(rows, yield* Clock.currentTimeMillis)
      }
      case "show": {
        if (id === undefined || id === "") return yield* usage("missing ID")
        const offset = yield* wholeNumber(args, "offset", 0)
        const since = yield* wholeNumber(args, "since", 0)
        const record = yield* Effect.flatMap(db(ledger.get(id)), Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
        const view = yield* db(views.runView(record, offset))
        const summary = yield* db(queries.run(id))
        const page = hasFlag(args, "events") ? yield* db(views.eventsPage(record, since, EVENTS_SHOWN)) : null
        // The replica that follows it (a live run only), as the cluster's records say.
        const replicas = yield* replicasOrSingle
        const follower = isTerminal(view.status)
          ? null
          : followerText((yield* db(replicas.followersOf([id]))).get(id), yield* db(replicas.list))
        if (asJson) {
          return json({ run: view, tokens: summary?.tokens ?? null, operator_stop: summary?.operatorStop ?? null, follower, ...(page === null ? {} : { events: page.events }) })
        }
        const detail = runDetail(view, summary, follower)
        return page === null ? detail : `${detail}\n\nevents after seq ${since}:\n${eventsText(page)}`
      }
      case "stop": {
        if (id === undefined || id === "") return yield* usage("missing ID")
        const stops = yield* OperatorStops
        const answer = yield* stops.request(id, "cli")
        if (answer._tag === "AlreadyEnded") {
          return asJson ? json({ run_id: id, stop: "already_ended", status: answer.status }) : `${id}: the run already ended (${answer.status}); nothing to stop.`
        }
        const store = yield* StopRequests
        // A running daemon carries it out within about a second; a stopped one when it starts.
        const outcome = yield* db(awaitOutcome(store, id, STOP_REPORT_WAIT)).pipe(Effect.map(Option.getOrNull))
        if (asJson) return json({ run_id: id, stop: outcome ?? "requested" })
        return outcome === null
          ? `${id}: stop recorded; the daemon carries it out when it is running (now, or when it next starts).`
          : outcome === "stopping"
            ? `${id}: stopped by the operator; the run is stopping.`
            : `${id}: stop carried out: ${outcome}.`
      }
      default:
        return yield* Effect.fail(new UsageError(RUNS_USAGE))
    }
  })

/** Runs `runsCommand`, prints its output or error, and answers the exit code (0, 1 or 2). */
export const runsMain = (args: ParsedArgs): Effect.Effect<number, never, RunsCliEnv> => printedExit(runsCommand(args))
