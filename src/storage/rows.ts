/**
 * One declaration per stored row. A table's owner declares its record once, as a Schema whose Type
 * is the record it hands out and whose Encoded side is what each column holds (JSON text through
 * `Schema.parseJson`, epoch milliseconds as integers, a flag as 0/1 through `Flag`); `storedRow` derives the rest:
 *
 * - the columns: each field's name in snake_case (`hermesRunId` is `hermes_run_id`), unless the
 *   owner names a column otherwise;
 * - the decode of the rows a SELECT returns (columns the record does not hold, such as
 *   PostgreSQL's `insert_seq`, are ignored; a column that does not decode fails the read, named);
 * - the values of an INSERT (`sql.insert(...)` of `encode(record)`) and of an UPDATE
 *   (`sql.update(...)` of `changed(before, after)`: only the columns whose field changed).
 *
 * Both dialects take these values as they are: node-postgres's INT8 parser gives numbers back
 * (`pg/pgTypes.ts`), and the values written are strings, numbers and nulls only. A new column is
 * then one field of the record Schema (and its migration): no driver spells it.
 */
import { Either, Schema } from "effect"
import type { ParseError } from "effect/ParseResult"

/** A record field's column by default: its name in snake_case. */
export const columnOf = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** A flag as both dialects store it: an integer 0 or 1 (no BOOLEAN column: SQLite has none). */
export const Flag = Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
  strict: true,
  decode: (n) => n === 1,
  encode: (b) => (b ? 1 : 0)
})

/** Fields of a stored record: plain Schemas that need no service to decode or encode. */
export type RecordFields = Readonly<Record<string, Schema.Schema<any, any, never>>>

export interface StoredRow<A> {
  /** The columns the record holds, in the record's order. */
  readonly columns: ReadonlyArray<string>
  /** Rows as the driver returns them, as records (a row that does not decode fails, naming the column). */
  readonly decode: (rows: ReadonlyArray<unknown>) => Either.Either<ReadonlyArray<A>, ParseError>
  /** A record as its columns' values, for `sql.insert(...)`. */
  readonly encode: (record: A) => Either.Either<Record<string, unknown>, ParseError>
  /**
   * The columns of `after` whose field is not the same value as in `before` (compared as stored
   * in memory: an object field counts as changed when it is another object), plus the fields of
   * `always`, for `sql.update(...)`. Two records of one row.
   */
  readonly changed: (before: A, after: A, always?: ReadonlyArray<keyof A & string>) => Either.Either<Record<string, unknown>, ParseError>
}

/** The row of `record`'s Schema; `columns` names the columns that are not their field's snake_case. */
export const storedRow = <Fields extends RecordFields>(
  record: Schema.Struct<Fields>,
  columns: Partial<Record<keyof Fields & string, string>> = {}
): StoredRow<Schema.Struct.Type<Fields>> => {
  type A = Schema.Struct.Type<Fields>
  const keys = Object.keys(record.fields) as Array<keyof Fields & string>
  const column = (key: keyof Fields & string): string => columns[key] ?? columnOf(key)
  const names = keys.map(column)
  // The row Schema proper (each field from its column): what a failed decode is reported through,
  // so that the error names the column. Its renaming costs about twice the plain record's decode,
  // so a read renames the columns by hand and decodes the record Schema, and only a row that fails
  // is decoded again here for the message.
  const row = Schema.Struct(
    Object.fromEntries(keys.map((key) => [key, Schema.propertySignature(record.fields[key]!).pipe(Schema.fromKey(column(key)))]))
  ) as unknown as Schema.Schema<A, Record<string, unknown>>
  const decodeRows = Schema.decodeUnknownEither(Schema.Array(row))
  // Either, not Effect: owners decode on hot reads, and the synchronous decoder skips a fiber step per batch.
  const plain = record as unknown as Schema.Schema<A, Record<string, unknown>>
  const decodeRecords = Schema.decodeUnknownEither(Schema.Array(plain))
  const encodeRecord = Schema.encodeEither(plain)
  const encodeField = keys.map((key) => Schema.encodeEither(record.fields[key]!))
  const fields = (rows: ReadonlyArray<unknown>): Array<Record<string, unknown>> =>
    rows.map((r) => {
      const values = (typeof r === "object" && r !== null ? r : {}) as Record<string, unknown>
      const out: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) if (names[i]! in values) out[keys[i]!] = values[names[i]!]
      return out
    })
  const decode = (rows: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<A>, ParseError> => {
    const decoded = decodeRecords(fields(rows))
    return Either.isRight(decoded) ? decoded : Either.flatMap(decodeRows(rows), () => decoded)
  }
  const encode = (value: A): Either.Either<Record<string, unknown>, ParseError> =>
    Either.map(encodeRecord(value), (encoded) => {
      const out: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) out[names[i]!] = encoded[keys[i]!]
      return out
    })
  return {
    columns: names,
    decode,
    encode,
    changed: (before, after, always = []) => {
      // Only the changed fields are encoded, each by its own Schema: a run's streamed batch changes
      // three or four of twenty, and the whole record (its JSON fields stringified) was encoded on
      // every one.
      const was = before as Record<string, unknown>
      const is = after as Record<string, unknown>
      const forced: ReadonlyArray<string> = always
      const set: Record<string, unknown> = {}
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!
        if (was[key] === is[key] && !forced.includes(key)) continue
        const value = encodeField[i]!(is[key])
        if (Either.isLeft(value)) return Either.left(value.left)
        set[names[i]!] = value.right
      }
      return Either.right(set)
    }
  }
}
