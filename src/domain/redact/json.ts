/**
 * Every string of a JSON tree masked; keys, numbers, booleans, nulls and the shape are untouched.
 * A string under a strongly secret-shaped key (`"api_key"`, `"password"`, `"Authorization"`, at
 * any depth below it) is a secret by its place alone and is masked whole, unless it is inert
 * (empty, a mask, a keyword, a `$ENV_VAR` or template reference). Under a weak name (`*_KEY`, `KEY`,
 * `*PASS`) the name alone is not enough: the value must also look random, since such keys are
 * everywhere in data (Hermes's `"pattern_key": "delete in root path"` names the rule an approval
 * matched); likewise under a short generic name (`pwd`, `auth`, `credentials`). Either way the string still goes through the text rules. Values that are not plain
 * objects or arrays pass unchanged.
 */
import { MASK } from "./mask.ts"
import { secretNameStrength } from "./names.ts"
import { looksLikeShortNameSecret, looksRandom } from "./rules/codeValues.ts"
import { isInertValue } from "./values.ts"

const AUTHORIZATION_KEY = /^(?:proxy[-_])?authorization$/i

type Under = "none" | "short" | "weak" | "strong"

const under = (parent: Under, key: string): Under => {
  if (parent === "strong" || AUTHORIZATION_KEY.test(key)) return "strong"
  const strength = secretNameStrength(key)
  if (strength === "strong") return "strong"
  if (strength === "weak" || parent === "weak") return "weak"
  return strength === "random" || parent === "short" ? "short" : "none"
}


const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object") return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

export const redactJson = <A>(value: A, text: (s: string) => string): A => {
  const walk = (v: unknown, place: Under): unknown => {
    if (typeof v === "string") {
      const secret = place === "strong" || (place === "weak" && looksRandom(v)) || (place === "short" && looksLikeShortNameSecret(v))
      return secret && !isInertValue(v, true) ? MASK : text(v)
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, place))
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) {
        const masked = walk(x, under(place, k))
        // defineProperty, not assignment: an own `__proto__` key stays a key.
        Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true })
      }
      return out
    }
    return v
  }
  return walk(value, "none") as A
}
