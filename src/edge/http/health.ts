/**
 * `/healthz`: liveness and readiness in one JSON answer. Anyone may ask; only a request with the
 * admin key or the metrics token as its bearer reads this whole report (http/app.ts), anyone else
 * `{status, ready}` (no profile names, no storage place, no database address).
 * Ready means the daemon is past start-up, the ledger answers, and it is not draining. `storage`
 * says whether the bridge can still write (database room, data and skills folders); a problem there
 * makes the status `degraded` (reads still work) and lists each place with what is wrong. A database
 * that does not answer a `SELECT 1` within `PROBE_TIMEOUT` (a PostgreSQL server down or
 * restarting; the pool would otherwise wait its whole connect timeout) makes `storage: "degraded"`
 * (the words issue 24 gave operators to watch for), `ledger: "unavailable"`, the database listed in
 * `storage_problems` as `unavailable` by its place (`host:port/db`, never the URL), the status
 * `degraded` and not ready, until it answers again.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { databasePlace } from "../../storage/Db.ts"
import { databaseAnswers, storageProblems } from "../../storage/probe.ts"
import { Agents } from "../../services/agents/Agents.ts"
import { Lifecycle } from "../../common/Lifecycle.ts"

/** How long `/healthz` waits for the database's answer. */
export const PROBE_TIMEOUT = Duration.seconds(2)

export const healthReport = Effect.gen(function* () {
  const phase = yield* (yield* Lifecycle).phase
  const sql = yield* SqlClient.SqlClient
  const answers = yield* databaseAnswers(sql, PROBE_TIMEOUT)
  const config = yield* AppConfig
  const database = databasePlace(config)
  const problems = answers
    ? yield* storageProblems(sql, database, [config.dataDir, config.dropinDir])
    : [{ path: database, state: "unavailable" as const }]
  // The ledger answers but cannot grow (its page limit, or its folder's disk): say so here too.
  const ledgerProblem = problems.find((p) => p.path === database) ?? problems.find((p) => p.path === config.dataDir)
  const ledger = answers ? (ledgerProblem?.state ?? "ok") : "unavailable"
  const storage = answers ? (problems[0]?.state ?? "ok") : "degraded"
  const agents = yield* Agents.list
  const hermes = agents.agents.flatMap((a) => ("health" in a ? [{ agent: a.name, health: a.health, keyed: a.keyed }] : []))
  const ready = phase === "ready" && answers
  const status = ready && storage === "ok" ? "ok" : phase === "ready" ? "degraded" : phase
  return { status, ready, phase, ledger, storage, ...(problems.length > 0 ? { storage_problems: problems } : {}), hermes }
})
