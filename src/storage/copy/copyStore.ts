/**
 * `agent-bridge storage copy`'s work, between two open databases: refuses a target that holds any
 * bridge row, then in ONE transaction on the target copies every table of `COPY_PLAN` in batches,
 * moves identity sequences past the copied values, runs the derivations the caller gives (the
 * memory's search vectors), and verifies row for row (the counts, and a SHA-256 over every row's
 * values in key order, on both sides) before it commits. Any failure rolls the target back empty.
 *
 * The target is migrated before (its Db layer does that); the source is read as it is.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { createHash } from "node:crypto"
import { Context, Data, Effect } from "effect"
import { countPg, insertPg, movePastPg, pgTables, readPgBatch } from "../pg/copyTargetPg.ts"
import { countSqlite, readSqliteBatch } from "../sqlite/copySourceSqlite.ts"
import { COPY_BATCH, COPY_PLAN, type CopyTable, NOT_COPIED_PREFIXES } from "./plan.ts"

/** The copy stopped: `message` is one sentence for the operator (no URL, no row values). */
export class CopyFailed extends Data.TaggedError("CopyFailed")<{ readonly message: string }> {}

export interface CopiedTable {
  readonly table: string
  readonly rows: number
  readonly digest: string
}

type Row = Record<string, unknown>

/**
 * Runs a source read outside the target's transaction: `@effect/sql` keeps the open transaction's
 * connection under one tag for every client, so inside `target.withTransaction` a SQLite statement
 * would otherwise be sent down the PostgreSQL connection.
 */
const onSource = <A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.mapInputContext(read, (context: Context.Context<never>) => Context.omit(SqlClient.TransactionConnection)(context) as Context.Context<never>)

/** The digest of rows read in key order, `columns` in order; bytes as hex, so both drivers agree. */
const digestOf = (
  read: (offset: number, limit: number) => Effect.Effect<ReadonlyArray<Row>, SqlError>,
  columns: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const hash = createHash("sha256")
    let rows = 0
    for (let offset = 0; ; offset += COPY_BATCH) {
      const batch = yield* read(offset, COPY_BATCH)
      for (const row of batch) {
        hash.update(JSON.stringify(columns.map((c) => {
          const v = row[c]
          return v instanceof Uint8Array ? { bytes: Buffer.from(v).toString("hex") } : v ?? null
        })))
        hash.update("\n")
      }
      rows += batch.length
      if (batch.length < COPY_BATCH) break
    }
    return { rows, digest: hash.digest("hex") }
  })

export const copyStore = (options: {
  readonly source: SqlClient.SqlClient
  readonly target: SqlClient.SqlClient
  /** Fills derived columns on the target, inside the copy's transaction (before the check). */
  readonly derive: Effect.Effect<void, SqlError>
}): Effect.Effect<ReadonlyArray<CopiedTable>, CopyFailed | SqlError> =>
  Effect.gen(function* () {
    const { source, target } = options
    const tables = yield* pgTables(target)
    const unknown = [...tables.keys()].filter((t) => !COPY_PLAN.some((p) => p.name === t) && !NOT_COPIED_PREFIXES.some((x) => t.startsWith(x)))
    if (unknown.length > 0) {
      return yield* new CopyFailed({ message: `the target holds tables the copy does not know (${unknown.join(", ")}); it copies only into an empty database of this bridge version` })
    }
    for (const t of COPY_PLAN) {
      if (!tables.has(t.name)) return yield* new CopyFailed({ message: `the target has no table ${t.name} after its migrations` })
      const [{ n } = { n: 0 }] = yield* countPg(target, t.name)
      if (n > 0) return yield* new CopyFailed({ message: `the target is not empty (${t.name} holds ${n} rows); copy only into an empty database` })
    }
    const columnsOf = (t: CopyTable) => tables.get(t.name)!.filter((c) => !(t.derived ?? []).includes(c.name))
    return yield* target.withTransaction(
      Effect.gen(function* () {
        for (const t of COPY_PLAN) {
          const names = columnsOf(t).map((c) => c.name)
          for (let offset = 0; ; offset += COPY_BATCH) {
            const batch = yield* onSource(readSqliteBatch(source, t, names, offset, COPY_BATCH))
            if (batch.length > 0) yield* insertPg(target, t.name, batch)
            if (batch.length < COPY_BATCH) break
          }
          if (t.identity !== undefined) yield* movePastPg(target, t.name, t.identity)
        }
        yield* options.derive
        const copied: Array<CopiedTable> = []
        for (const t of COPY_PLAN) {
          const columns = columnsOf(t)
          const names = columns.map((c) => c.name)
          const from = yield* digestOf((o, l) => onSource(readSqliteBatch(source, t, names, o, l)), names)
          const to = yield* digestOf((o, l) => readPgBatch(target, t, columns, o, l), names)
          const [{ n } = { n: 0 }] = yield* onSource(countSqlite(source, t.name))
          if (from.rows !== n || to.rows !== n || from.digest !== to.digest) {
            return yield* new CopyFailed({ message: `the copy of ${t.name} does not match the source (${n} rows there, ${to.rows} copied, digests ${from.digest === to.digest ? "equal" : "differ"}); nothing was kept` })
          }
          copied.push({ table: t.name, rows: n, digest: to.digest })
        }
        return copied
      })
    )
  })
