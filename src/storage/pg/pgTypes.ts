/**
 * How PostgreSQL's values arrive in the stores: as the numbers the SQLite driver gives, so one
 * row Schema decodes both. node-postgres hands `bigint` (INT8: every time column, `insert_seq`,
 * `COUNT(*)`) and `numeric` (`SUM(...)`) over as strings, since they may exceed 2^53; the bridge's
 * values never do (epoch milliseconds, counts, byte offsets), so they are parsed as numbers here,
 * once for the pool. A value past the safe range stays a string, and the row's Schema refuses it
 * (a typed read error), never a silently rounded number.
 */
import pg from "pg"

const INT8_OID = 20
const NUMERIC_OID = 1700

const toNumber = (text: string): number | string => {
  const n = Number(text)
  return Number.isSafeInteger(n) || (Number.isFinite(n) && !Number.isInteger(n)) ? n : text
}

/** node-postgres's parsers, with INT8 and NUMERIC as numbers (`PgClient.layer({ types })`). */
export const bridgePgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    (oid === INT8_OID || oid === NUMERIC_OID) && format !== "binary" ? toNumber : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"]
}
