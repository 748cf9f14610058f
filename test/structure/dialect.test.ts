/**
 * The dialect rule of docs/ARCHITECTURE.md ("Dialects"): SQL text that only SQLite understands lives
 * only in SQLite's driver files, a `sqlite/` folder beside its owner or a file whose name says
 * `sqlite`, so a second driver (PostgreSQL) is a new folder beside it, never an edit of shared code.
 * The check reads the sources as code without their comments (a comment may name `PRAGMA
 * data_version` to say why; only code runs), through TypeScript's own printer.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const SRC = path.resolve(import.meta.dirname, "../../src")

/** What SQLite alone understands (dialect.md's list), each with a name for the report. */
export const SQLITE_ONLY: ReadonlyArray<{ readonly name: string; readonly pattern: RegExp }> = [
  { name: "PRAGMA", pattern: /\bPRAGMA\b|\bpragma_\w+/i },
  { name: "rowid", pattern: /\browid\b/i },
  { name: "fts5", pattern: /\bfts5\b/i },
  // Upper case only: SQL's keyword, not JavaScript's `Option.match` or `String.match`.
  { name: "MATCH", pattern: /\bMATCH\b/ },
  { name: "bm25", pattern: /\bbm25\s*\(/i },
  { name: "snippet(", pattern: /\bsnippet\s*\(/i },
  { name: "SQLITE_ code", pattern: /\bSQLITE_[A-Z]/ },
  { name: "better-sqlite3", pattern: /better-sqlite3/ },
  { name: "INSERT OR", pattern: /\bINSERT\s+OR\s+(?:REPLACE|IGNORE)\b/i },
  { name: "strftime", pattern: /\bstrftime\s*\(/i },
  { name: "julianday", pattern: /\bjulianday\s*\(/i },
  { name: "last_insert_rowid", pattern: /\blast_insert_rowid\b/i },
  { name: "AUTOINCREMENT", pattern: /\bAUTOINCREMENT\b/i },
  { name: "sqlite_master", pattern: /\bsqlite_master\b/i }
]

/** Files allowed to hold SQLite text outside a `sqlite/` folder for now, and why. */
export const ALLOWED: ReadonlyArray<{ readonly under: string; readonly reason: string }> = [
]

/** True for a SQLite driver file: under a `sqlite/` folder, or named for SQLite. */
export const isSqliteDriver = (rel: string): boolean =>
  rel.split("/").slice(0, -1).includes("sqlite") || /sqlite/i.test(path.basename(rel))

const allowed = (rel: string) => ALLOWED.some((a) => (a.under.endsWith("/") ? rel.startsWith(a.under) : rel === a.under))

const printer = ts.createPrinter({ removeComments: true })
/** The module's code without comments (strings and templates as written). */
export const codeOf = (file: string, text: string): string =>
  printer.printFile(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS))

/** Every `file: what` where SQLite-only text sits outside SQLite's driver files. */
export const dialectProblems = (sources: ReadonlyMap<string, string>): ReadonlyArray<string> =>
  [...sources].flatMap(([rel, text]) => {
    if (isSqliteDriver(rel) || allowed(rel)) return []
    const code = codeOf(rel, text)
    return SQLITE_ONLY.filter((s) => s.pattern.test(code)).map((s) => `${rel}: ${s.name}`)
  })

const readSources = (): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".ts")) out.set(path.relative(SRC, full).split(path.sep).join("/"), fs.readFileSync(full, "utf8"))
    }
  }
  walk(SRC)
  return out
}

describe("SQLite-only SQL lives in SQLite's driver files", () => {
  it("no PRAGMA, rowid, FTS5, SQLITE_ code or better-sqlite3 outside a sqlite/ folder or a *Sqlite* file", () => {
    expect(dialectProblems(readSources())).toEqual([])
  })

  it("every allowed exception still exists (a stale one is removed, not kept)", () => {
    const sources = readSources()
    for (const a of ALLOWED) expect([...sources.keys()].some((rel) => (a.under.endsWith("/") ? rel.startsWith(a.under) : rel === a.under)), a.under).toBe(true)
  })

  it("finds each kind of text, in code only, and spares the drivers' own files", () => {
    const sources = new Map<string, string>([
      ["services/x/Store.ts", "const q = sql`SELECT * FROM t ORDER BY rowid`\n"],
      ["services/x/Index.ts", "const q = sql`SELECT bm25(t) FROM t WHERE t MATCH ${m}`\n"],
      ["services/x/Codes.ts", "const busy = code === \"SQLITE_BUSY\"\n"],
      ["services/x/Raw.ts", "import Database from \"better-sqlite3\"\n"],
      ["services/x/Size.ts", "const q = sql`SELECT page_count FROM pragma_page_count()`\n"],
      ["services/x/Said.ts", "// PRAGMA data_version moves on commits\n/** rowid order */\nconst n = Option.match(x, f)\n"],
      ["services/x/sqlite/StoreSqlite.ts", "const q = sql`PRAGMA data_version`\n"],
      ["storage/faultsSqlite.ts", "const busy = code === \"SQLITE_BUSY\"\n"]
    ])
    expect(dialectProblems(sources)).toEqual([
      "services/x/Store.ts: rowid",
      "services/x/Index.ts: MATCH",
      "services/x/Index.ts: bm25",
      "services/x/Codes.ts: SQLITE_ code",
      "services/x/Raw.ts: better-sqlite3",
      "services/x/Size.ts: PRAGMA"
    ])
  })
})
