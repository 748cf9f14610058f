/**
 * Every schema migration, in order. Each area owns its own file; the key prefix is the version.
 * Never edit an applied migration: add a new one.
 */
import type { Effect } from "effect"
import type { SqlClient } from "@effect/sql"
import identity from "./0001_identity.ts"
import ledger from "./0002_ledger.ts"
import inbox from "./0003_inbox.ts"
import memory from "./0004_memory.ts"
import inboxHistory from "./0005_inbox_history.ts"
import consoleStops from "./0006_console.ts"
import epochMs from "./0007_epoch_ms.ts"

export const migrations: Record<string, Effect.Effect<unknown, unknown, SqlClient.SqlClient>> = {
  "0001_identity": identity,
  "0002_ledger": ledger,
  "0003_inbox": inbox,
  "0004_memory": memory,
  "0005_inbox_history": inboxHistory,
  "0006_console": consoleStops,
  "0007_epoch_ms": epochMs
}
