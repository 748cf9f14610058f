/**
 * The order rows were inserted in, for a query to break ties between rows written in the same
 * millisecond (`ORDER BY created_at DESC, <this> DESC`): each dialect's own (`sqlite/rowOrderSqlite.ts`, `pg/rowOrderPg.ts`).
 * A dialect without one is a defect at the query, named here, never a silently different order.
 */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { insertSeqOrder } from "./pg/rowOrderPg.ts"
import { rowidOrder } from "./sqlite/rowOrderSqlite.ts"

export const insertionOrder = (sql: SqlClient.SqlClient, table?: string): Fragment =>
  sql.onDialectOrElse({
    sqlite: () => rowidOrder(sql, table),
    pg: () => insertSeqOrder(sql, table),
    orElse: () => {
      throw new Error("no insertion order for this database's dialect yet (storage/rowOrder.ts)")
    }
  })
