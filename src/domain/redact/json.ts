/**
 * Every string of a JSON tree masked; keys, numbers, booleans, nulls and the shape are untouched.
 * A string under a secret-shaped key (`"api_key"`, `"Authorization"`, at any depth below it) is a
 * secret by its place alone and is masked whole, unless it is inert (empty, a mask, a keyword, a
 * `$ENV_VAR` or template reference). Values that are not plain objects or arrays pass unchanged.
 */
import { MASK } from "./mask.ts"
import { isSecretName } from "./names.ts"
import { isInertValue } from "./values.ts"

const AUTHORIZATION_KEY = /^(?:proxy[-_])?authorization$/i

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object") return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

export const redactJson = <A>(value: A, text: (s: string) => string): A => {
  const walk = (v: unknown, underSecretKey: boolean): unknown => {
    if (typeof v === "string") return underSecretKey && !isInertValue(v, true) ? MASK : text(v)
    if (Array.isArray(v)) return v.map((x) => walk(x, underSecretKey))
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) {
        const masked = walk(x, underSecretKey || isSecretName(k) || AUTHORIZATION_KEY.test(k))
        // defineProperty, not assignment: an own `__proto__` key stays a key.
        Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true })
      }
      return out
    }
    return v
  }
  return walk(value, false) as A
}
