/**
 * One declaration per stored row (`src/storage/rows.ts`): from a record Schema, the columns (the
 * fields in snake_case, or as named), the decode of rows (extra columns ignored, a bad column
 * named), the INSERT values (JSON text, integers) and the UPDATE values of what changed.
 */
import { describe, expect, it } from "vitest"
import { Either, Schema } from "effect"
import { columnOf, Flag, storedRow } from "../../src/storage/rows.ts"

const Note = Schema.Struct({
  noteId: Schema.String,
  body: Schema.NullOr(Schema.String),
  tags: Schema.parseJson(Schema.Array(Schema.String)),
  pinned: Flag,
  createdAt: Schema.Int,
  hermesURL: Schema.String
})
const notes = storedRow(Note, { hermesURL: "hermes_url" })
const note = { noteId: "n1", body: null, tags: ["a"], pinned: true, createdAt: 5, hermesURL: "http://127.0.0.1" }
const row = { note_id: "n1", body: null, tags: '["a"]', pinned: 1, created_at: 5, hermes_url: "http://127.0.0.1" }

describe("storedRow", () => {
  it("names each field's column in snake_case, or as the owner names it", () => {
    expect(columnOf("hermesRunId")).toBe("hermes_run_id")
    expect(notes.columns).toEqual(["note_id", "body", "tags", "pinned", "created_at", "hermes_url"])
  })

  it("encodes a record as its columns' values: JSON text, a flag as 0/1", () => {
    expect(Either.getOrThrow(notes.encode(note))).toEqual(row)
  })

  it("decodes rows to records, ignoring columns the record does not hold", () => {
    expect(Either.getOrThrow(notes.decode([{ ...row, insert_seq: 9 }]))).toEqual([note])
  })

  it("fails a row that does not decode, naming the column", () => {
    const bad = notes.decode([{ ...row, created_at: "soon" }])
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) expect(bad.left.message).toContain("created_at")
    const badJson = notes.decode([{ ...row, tags: "[1" }])
    if (Either.isLeft(badJson)) expect(badJson.left.message).toContain("tags")
    expect(Either.isLeft(badJson)).toBe(true)
  })

  it("updates only the columns whose field changed, plus the ones always written", () => {
    expect(Either.getOrThrow(notes.changed(note, { ...note, body: "b", tags: ["a", "b"] }))).toEqual({ body: "b", tags: '["a","b"]' })
    expect(Either.getOrThrow(notes.changed(note, note))).toEqual({})
    expect(Either.getOrThrow(notes.changed(note, note, ["createdAt", "hermesURL"]))).toEqual({ created_at: 5, hermes_url: "http://127.0.0.1" })
  })

  it("refuses to encode a record that breaks its Schema (no wrong value written)", () => {
    expect(Either.isLeft(notes.encode({ ...note, createdAt: 1.5 }))).toBe(true)
    expect(Either.isLeft(notes.changed(note, { ...note, createdAt: 1.5 }))).toBe(true)
    expect(Either.isLeft(notes.changed(note, note, ["createdAt"]))).toBe(false)
  })

  it("an update encodes each changed field as the whole record's encode does, a flag and JSON included", () => {
    const after = { ...note, body: "b", tags: ["x", "y"], pinned: false, hermesURL: "http://[::1]" }
    const whole = Either.getOrThrow(notes.encode(after))
    const set = Either.getOrThrow(notes.changed(note, after))
    expect(set).toEqual({ body: whole["body"], tags: whole["tags"], pinned: whole["pinned"], hermes_url: whole["hermes_url"] })
    expect(set).toEqual({ body: "b", tags: '["x","y"]', pinned: 0, hermes_url: "http://[::1]" })
  })
})
