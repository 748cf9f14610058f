/**
 * `/healthz`: liveness and readiness in one JSON answer (anyone may read it; it carries no secret).
 * Ready means the daemon is past start-up, the ledger answers, and it is not draining.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Agents } from "../../services/Agents.ts"
import { Lifecycle } from "../../services/Lifecycle.ts"

export const healthReport = Effect.gen(function* () {
  const phase = yield* (yield* Lifecycle).phase
  const sql = yield* SqlClient.SqlClient
  const ledger = yield* sql`SELECT 1 AS ok`.pipe(
    Effect.as("ok" as const),
    Effect.catchAll(() => Effect.succeed("unavailable" as const))
  )
  const agents = yield* Agents.list
  const hermes = agents.agents.flatMap((a) => ("health" in a ? [{ agent: a.name, health: a.health, keyed: a.keyed }] : []))
  const ready = phase === "ready" && ledger === "ok"
  return { status: ready ? "ok" : phase === "ready" ? "degraded" : phase, ready, phase, ledger, hermes }
})
