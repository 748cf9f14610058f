/**
 * One declaration per stored row (docs/ARCHITECTURE.md, "Storage"): the tables with a record
 * Schema (`storage/rows.ts`) are inserted through `sql.insert` of the Schema's values, never
 * through a column list written out, and the columns only the record writes appear in no source
 * file but their migrations. A column added to such a table is then one field of its Schema.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { columnOf } from "../../src/storage/rows.ts"
import { RunRecord } from "../../src/services/runs/Ledger.ts"

const SRC = path.resolve(import.meta.dirname, "../../src")

/** The tables declared once, by a record Schema. */
export const DECLARED = ["runs", "a2a_push_configs", "a2a_push_outbox", "memory_notes"] as const
/** Columns of `runs` no query filters or orders by: only the record (its decode, INSERT and UPDATE) touches them. */
const RECORD_ONLY = ["hermesEventId", "outputHead", "outputBytes"].map(columnOf)

const sources = (dir: string, rel = ""): Array<[string, string]> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e): Array<[string, string]> => {
    const r = rel === "" ? e.name : `${rel}/${e.name}`
    if (e.isDirectory()) return r === "storage/migrations" ? [] : sources(path.join(dir, e.name), r)
    return e.name.endsWith(".ts") ? [[r, fs.readFileSync(path.join(dir, e.name), "utf8")]] : []
  })

/** `file: what` for each INSERT with a written-out column list into a declared table, and each record-only column named. */
export const spelledRows = (files: ReadonlyArray<readonly [string, string]>): Array<string> =>
  files.flatMap(([rel, text]) => [
    ...DECLARED.filter((t) => new RegExp(`INSERT\\s+INTO\\s+${t}\\s*\\(`, "i").test(text)).map((t) => `${rel}: INSERT INTO ${t} (…)`),
    ...RECORD_ONLY.filter((c) => new RegExp(`\\b${c}\\b`).test(text)).map((c) => `${rel}: ${c}`)
  ])

/**
 * `file: statement` for each UPDATE of `runs` that does not change its `version`: every write of a
 * run's row must, or a writer holding the row at that version (`Ledger.modify`'s `expected`) would
 * write over a change it never saw.
 */
export const unversionedRunUpdates = (files: ReadonlyArray<readonly [string, string]>): Array<string> =>
  files.flatMap(([rel, text]) =>
    [...text.matchAll(/UPDATE\s+runs\s+SET\b[^`]*/gi)]
      .filter((m) => !/\bversion\b/.test(m[0]))
      .map((m) => `${rel}: ${m[0].replace(/\s+/g, " ").slice(0, 60)}`))

describe("stored rows are declared once", () => {
  it("no source spells a declared table's INSERT columns or a record-only column", () => {
    expect(spelledRows(sources(SRC))).toEqual([])
  })

  it("the record-only columns are columns of the record (the list is not stale)", () => {
    const columns = Object.keys(RunRecord.fields).map(columnOf)
    for (const c of RECORD_ONLY) expect(columns).toContain(c)
  })

  it("finds a written-out INSERT and a record-only column (the check can fail)", () => {
    expect(spelledRows([
      ["services/x.ts", "sql`INSERT INTO runs (run_id, client) VALUES (${a}, ${b})`"],
      ["services/y.ts", "sql`UPDATE runs SET output_head = ${h}`"],
      ["services/z.ts", "sql`INSERT INTO a2a_push_outbox ${sql.insert(row)}`"]
    ])).toEqual(["services/x.ts: INSERT INTO runs (…)", "services/y.ts: output_head"])
  })

  it("every UPDATE of a run's row changes its version (the plan's, or `version = version + 1`)", () => {
    expect(unversionedRunUpdates(sources(SRC))).toEqual([])
    expect(unversionedRunUpdates([
      ["services/q.ts", "sql`UPDATE runs SET admitted_at = NULL WHERE run_id = ${id}`"],
      ["services/r.ts", "sql`UPDATE runs SET admitted_at = NULL, version = version + 1 WHERE run_id = ${id}`"]
    ])).toEqual(["services/q.ts: UPDATE runs SET admitted_at = NULL WHERE run_id = ${id}"])
  })
})
