/**
 * Text a client sends must not hold a NUL character (U+0000). PostgreSQL's `text` cannot store it
 * (the write fails as an encoding error, which the store reports as unavailable: "retry later"),
 * SQLite's C API cuts strings at it, and no request means it. So it is refused where it enters, as
 * invalid input naming the field, on both databases alike: `nulPath` for a whole request at each
 * face (every string and every key, at any depth), `refuseNul` and `nulProblem` in the services that
 * store text (runs, memory), so no other way in reaches the database with one.
 */
import { Effect } from "effect"
import { InvalidInput } from "./errors.ts"

export const NUL = "\u0000"

/** What a refusal says after the field's name. */
export const NUL_REFUSAL = "must not hold a NUL character (U+0000)"

/** `null`, or the sentence that refuses `value` for `field`. */
export const nulProblem = (field: string, value: string): string | null => (value.includes(NUL) ? `${field} ${NUL_REFUSAL}` : null)

/** Where a value sits: its key, and its parent's place (a linked path, so a deep walk copies nothing). */
interface Place {
  readonly key: string | number
  readonly parent: Place | undefined
}

const pathOf = (place: Place | undefined): ReadonlyArray<string | number> => {
  const path: Array<string | number> = []
  for (let p = place; p !== undefined; p = p.parent) path.push(p.key)
  return path.reverse()
}

/**
 * The path of the first string in `value` (a value or an object's key, at any depth) that holds
 * U+0000, or `undefined` when none does. Iterative and linear in the value's size, so a deeply
 * nested value can neither overflow the stack nor cost more than its length.
 */
export const nulPath = (value: unknown): ReadonlyArray<string | number> | undefined => {
  if (typeof value === "string") return value.includes(NUL) ? [] : undefined
  const stack: Array<[object, Place | undefined]> = typeof value === "object" && value !== null ? [[value, undefined]] : []
  // Strings are checked where they are met; only arrays and objects are put on the stack.
  const visit = (child: unknown, key: string | number, parent: Place | undefined): Place | undefined => {
    if (typeof child === "string") return child.includes(NUL) ? { key, parent } : undefined
    if (typeof child === "object" && child !== null) stack.push([child, { key, parent }])
    return undefined
  }
  while (stack.length > 0) {
    const [v, place] = stack.pop()!
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const found = visit(v[i], i, place)
        if (found !== undefined) return pathOf(found)
      }
    } else {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes(NUL)) return pathOf({ key: k, parent: place })
        const found = visit(child, k, place)
        if (found !== undefined) return pathOf(found)
      }
    }
  }
  return undefined
}

/** A path as a refusal names it: `parts.0.text`, or "the arguments" for the whole value. */
export const pathText = (path: ReadonlyArray<string | number>): string => (path.length === 0 ? "the arguments" : path.map(String).join("."))

/** Refuses the first of `fields` (a string, or a list of strings) that holds U+0000, as `bridge.invalid_input`. */
export const refuseNul = (fields: Readonly<Record<string, string | ReadonlyArray<string> | null | undefined>>): Effect.Effect<void, InvalidInput> => {
  for (const [field, value] of Object.entries(fields)) {
    const values = typeof value === "string" ? [value] : value ?? []
    for (const v of values) if (v.includes(NUL)) return Effect.fail(new InvalidInput({ message: `invalid arguments: ${field} ${NUL_REFUSAL}` }))
  }
  return Effect.void
}

/** True when a URL holds a NUL, which can only come percent-encoded (`%00`; Node refuses the raw byte). */
export const urlHoldsNul = (url: string): boolean => /%00/.test(url)
