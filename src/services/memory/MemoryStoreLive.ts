/**
 * `MemoryStore` over the bridge's database: notes in `memory_notes` (portable SQL here), their
 * full-text index through the dialect's driver (`memoryIndex.ts`; on SQLite FTS5 with bm25 ranking,
 * the text weighted above the tags, `sqlite/MemoryIndexSqlite.ts`; on PostgreSQL a tsvector
 * ranked by ts_rank, `pg/MemoryIndexPg.ts`).
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"
import { IsoFromEpochMs, nowIso } from "../../common/time.ts"
import { randomBytes } from "node:crypto"
import { MemoryFailed, MemoryInvalid } from "../../domain/errors.ts"
import { quotaExceeded, quotaLimits } from "../quotas/ClientQuotas.ts"
import { transactionKeepingCause } from "../../storage/transaction.ts"
import { parseTerms } from "./ftsQuery.ts"
import { memoryIndex } from "./memoryIndex.ts"
import { MemoryStore, type Note, type NoteInput, type ScoredNote } from "./MemoryStore.ts"
import { indexedTags } from "./policy.ts"

/**
 * A `memory_notes` row, decoded: tags from their JSON text, the time from epoch milliseconds
 * (migration 0007) to the ISO text notes show. A row that does not decode is `MemoryFailed`.
 */
const NoteRow = Schema.Struct({
  id: Schema.String,
  namespace: Schema.String,
  text: Schema.String,
  tags: Schema.parseJson(Schema.Array(Schema.String)),
  client: Schema.String,
  created_at: IsoFromEpochMs
})
const decodeNotes = Schema.decodeUnknown(Schema.Array(NoteRow))
const decodeScored = Schema.decodeUnknown(Schema.Array(Schema.extend(NoteRow, Schema.Struct({ rank: Schema.Number }))))
const decodeSeqs = Schema.decodeUnknown(Schema.Array(Schema.Struct({ seq: Schema.Int })))
/** A client's notes and their bytes (PostgreSQL's count and sum are bigints, sent as text). */
const Count = Schema.Union(Schema.Number, Schema.NumberFromString)
const decodeHeld = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Count, b: Count })))
const storedTime = Schema.encode(IsoFromEpochMs)

const toNote = (r: typeof NoteRow.Type): Note => ({
  id: r.id,
  namespace: r.namespace,
  text: r.text,
  tags: r.tags,
  client: r.client,
  created_at: r.created_at
})

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
    const cols = sql`n.id, n.namespace, n.text, n.tags, n.client, n.created_at`
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
        const createdAt = yield* storedTime(note.created_at)
        const tags = JSON.stringify(note.tags)
        const bytes = Buffer.byteLength(note.text, "utf8") + Buffer.byteLength(tags, "utf8")
        yield* inTransaction(
          Effect.gen(function* () {
            yield* withinQuota(note.client, bytes)
            const inserted = yield* sql`INSERT INTO memory_notes ${sql.insert({
              id: note.id,
              namespace: note.namespace,
              text: note.text,
              tags,
              client: note.client,
              created_at: createdAt,
              bytes
            })} RETURNING seq`.pipe(Effect.flatMap(decodeSeqs))
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
          Effect.flatMap(decodeScored),
          Effect.catchTags({ SqlError: failed("search"), ParseError: failed("search") })
        )
        // The rank is lower-is-better (bm25's, or ts_rank's negated); a tiny positive score for a perfect tie is still "found".
        return rows.map((r): ScoredNote => ({ ...toNote(r), score: Number.isFinite(r.rank) ? -r.rank : 0 }))
      })

    const list = (request: { readonly namespaces: ReadonlyArray<string>; readonly limit: number; readonly offset: number }) =>
      request.namespaces.length === 0
        ? Effect.succeed([])
        : sql`SELECT ${cols} FROM memory_notes n WHERE ${sql.in("n.namespace", request.namespaces)}
            ORDER BY n.seq DESC LIMIT ${request.limit} OFFSET ${request.offset}`.pipe(
            Effect.flatMap(decodeNotes),
            Effect.map((rows) => rows.map(toNote)),
            Effect.catchTags({ SqlError: failed("list notes"), ParseError: failed("list notes") })
          )

    const get = (id: string) =>
      sql`SELECT ${cols} FROM memory_notes n WHERE n.id = ${id}`.pipe(
        Effect.flatMap(decodeNotes),
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toNote)),
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
