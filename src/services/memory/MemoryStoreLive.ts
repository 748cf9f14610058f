/**
 * `MemoryStore` over the bridge's database: notes in `memory_notes` (portable SQL here), their
 * full-text index through the dialect's driver (`memoryIndex.ts`; on SQLite FTS5 with bm25 ranking,
 * the text weighted above the tags, `sqlite/MemoryIndexSqlite.ts`; on PostgreSQL a tsvector
 * ranked by ts_rank, `pg/MemoryIndexPg.ts`).
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { nowIso } from "../../common/time.ts"
import { randomBytes } from "node:crypto"
import { MemoryFailed, MemoryInvalid } from "../../domain/errors.ts"
import { quotaExceeded, quotaLimits } from "../quotas/ClientQuotas.ts"
import { storedRow } from "../../storage/rows.ts"
import { transactionKeepingCause } from "../../storage/transaction.ts"
import { parseTerms } from "./ftsQuery.ts"
import { memoryIndex } from "./memoryIndex.ts"
import { MemoryStore, Note, type NoteInput, type ScoredNote } from "./MemoryStore.ts"
import { indexedTags } from "./policy.ts"

/** The `memory_notes` row, from the one note Schema (`MemoryStore.ts`); a row that does not decode is `MemoryFailed`. */
const noteRows = storedRow(Note)
const scoredRows = storedRow(Schema.Struct({ ...Note.fields, rank: Schema.Number }))
const decodeSeqs = Schema.decodeUnknown(Schema.Array(Schema.Struct({ seq: Schema.Int })))
/** A client's notes and their bytes (PostgreSQL's count and sum are bigints, sent as text). */
const Count = Schema.Union(Schema.Number, Schema.NumberFromString)
const decodeHeld = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Count, b: Count })))

const failed = (operation: string) => (cause: SqlError.SqlError | ParseError) =>
  Effect.logError(`memory store: ${operation} failed`, cause).pipe(
    Effect.zipRight(Effect.fail(new MemoryFailed({ message: `the memory store could not ${operation}; see the bridge log` })))
  )

export const newNoteId = () => `mem_${randomBytes(12).toString("hex")}`

export const MemoryStoreLive = Layer.effect(
  MemoryStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const inTransaction = transactionKeepingCause(sql)
    const index = yield* memoryIndex(sql)
    const cols = sql.literal(noteRows.columns.map((c) => `n.${c}`).join(", "))
    const limits = yield* quotaLimits

    /**
     * Refuses a note that would take its client past its quotas (notes, bytes), counted under the
     * client's lock in the insert's transaction: concurrent adds of one client take turns.
     */
    const withinQuota = (client: string, bytes: number) =>
      Effect.gen(function* () {
        yield* index.lockClient(client)
        const [held] = yield* sql`SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM memory_notes WHERE client = ${client}`.pipe(Effect.flatMap(decodeHeld))
        const notes = held?.n ?? 0
        const stored = held?.b ?? 0
        if (notes >= limits.memory_notes_per_client) {
          return yield* quotaExceeded("memory_notes_per_client", limits.memory_notes_per_client, `no more notes (${notes} stored)`)
        }
        if (stored + bytes > limits.memory_bytes_per_client) {
          return yield* quotaExceeded(
            "memory_bytes_per_client",
            limits.memory_bytes_per_client,
            `this note (${bytes} bytes) does not fit beside the ${stored} bytes of notes stored`
          )
        }
      })

    const add = (input: NoteInput) =>
      Effect.gen(function* () {
        const refused = index.refuses(input.text)
        if (refused !== null) return yield* new MemoryInvalid({ message: refused })
        const note: Note = { ...input, id: newNoteId(), created_at: yield* nowIso }
        const row = yield* noteRows.encode(note)
        // The note's stored size: the UTF-8 bytes of its text and of its tags' JSON (migration 0014).
        const bytes = Buffer.byteLength(note.text, "utf8") + Buffer.byteLength(String(row["tags"]), "utf8")
        yield* inTransaction(
          Effect.gen(function* () {
            yield* withinQuota(note.client, bytes)
            const inserted = yield* sql`INSERT INTO memory_notes ${sql.insert({ ...row, bytes })} RETURNING seq`.pipe(Effect.flatMap(decodeSeqs))
            const seq = inserted[0]?.seq
            yield* index.add(seq ?? null, note.text, indexedTags(note.tags))
          })
        )
        return note
      }).pipe(Effect.catchTags({ SqlError: failed("store the note"), ParseError: failed("store the note") }))

    const search = (request: { readonly namespaces: ReadonlyArray<string>; readonly query: string; readonly limit: number }) =>
      Effect.gen(function* () {
        const terms = parseTerms(request.query)
        if (terms.length === 0) {
          return yield* new MemoryInvalid({ message: "the query holds no searchable words (letters or digits)" })
        }
        if (request.namespaces.length === 0) return []
        const rows = yield* index.search(cols, terms, request.namespaces, request.limit).pipe(
          Effect.flatMap(scoredRows.decode),
          Effect.catchTags({ SqlError: failed("search"), ParseError: failed("search") })
        )
        // The rank is lower-is-better (bm25's, or ts_rank's negated); a tiny positive score for a perfect tie is still "found".
        return rows.map(({ rank, ...note }): ScoredNote => ({ ...note, score: Number.isFinite(rank) ? -rank : 0 }))
      })

    const list = (request: { readonly namespaces: ReadonlyArray<string>; readonly limit: number; readonly offset: number }) =>
      request.namespaces.length === 0
        ? Effect.succeed([])
        : sql`SELECT ${cols} FROM memory_notes n WHERE ${sql.in("n.namespace", request.namespaces)}
            ORDER BY n.seq DESC LIMIT ${request.limit} OFFSET ${request.offset}`.pipe(
            Effect.flatMap(noteRows.decode),
            Effect.catchTags({ SqlError: failed("list notes"), ParseError: failed("list notes") })
          )

    const get = (id: string) =>
      sql`SELECT ${cols} FROM memory_notes n WHERE n.id = ${id}`.pipe(
        Effect.flatMap(noteRows.decode),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.catchTags({ SqlError: failed("read the note"), ParseError: failed("read the note") })
      )

    const remove = (id: string) =>
      inTransaction(
          Effect.gen(function* () {
            const rows = yield* sql`DELETE FROM memory_notes WHERE id = ${id} RETURNING seq`.pipe(Effect.flatMap(decodeSeqs))
            const seq = rows[0]?.seq
            if (seq === undefined) return false
            yield* index.remove(seq)
            return true
          })
        ).pipe(Effect.catchTags({ SqlError: failed("delete the note"), ParseError: failed("delete the note") }))

    return MemoryStore.of({ add, search, list, get, remove })
  })
)
