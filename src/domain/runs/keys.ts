/**
 * A client's `session_key` and `idempotency_key` are private to it: they reach Hermes as
 * `<client>:<key>` (docs/REFERENCE.md). Validation happens before anything else touches them.
 */
import { Either } from "effect"
import { createHash } from "node:crypto"
import { InvalidIdempotencyKey, InvalidSessionKey } from "../errors.ts"

/** The longest prefixed key the bridge accepts (Hermes's session-key header holds 256 characters). */
export const MAX_PREFIXED_KEY = 256
/** Hermes takes at most this many characters of `Idempotency-Key`. */
export const MAX_HERMES_IDEMPOTENCY_KEY = 255

export type KeyKind = "session_key" | "idempotency_key"

const VISIBLE_ASCII = /^[\x21-\x7e]+$/

/** Why `key` is refused, or null when it is acceptable for `client`. */
export const keyProblem = (client: string, key: string): string | null => {
  if (key.length === 0) return "must not be empty"
  if (!VISIBLE_ASCII.test(key)) return "must be visible ASCII (0x21–0x7E) with no spaces"
  const prefixed = client.length + 1 + key.length
  if (prefixed > MAX_PREFIXED_KEY) {
    return `is too long: ${prefixed} characters with the client prefix "${client}:" (at most ${MAX_PREFIXED_KEY})`
  }
  return null
}

export const prefixKey = (client: string, key: string): string => `${client}:${key}`

/**
 * Validates and prefixes an optional key; absent stays absent. The error names the field and the
 * reason, never echoes the key itself (it may be a secret the client chose badly).
 */
export const validateKey = (
  kind: KeyKind,
  client: string,
  key: string | undefined
): Either.Either<string | undefined, InvalidSessionKey | InvalidIdempotencyKey> => {
  if (key === undefined) return Either.right(undefined)
  const problem = keyProblem(client, key)
  if (problem === null) return Either.right(prefixKey(client, key))
  const message = `${kind} ${problem}`
  return Either.left(kind === "session_key" ? new InvalidSessionKey({ message }) : new InvalidIdempotencyKey({ message }))
}

/**
 * The `Idempotency-Key` Hermes receives for a prefixed key: the key itself when it fits in 255
 * characters, else its SHA-256 digest form (`sha256:<64 hex>`), which is stable for the same key.
 */
export const hermesIdempotencyKey = (prefixed: string): string =>
  prefixed.length <= MAX_HERMES_IDEMPOTENCY_KEY
    ? prefixed
    : `sha256:${createHash("sha256").update(prefixed, "utf8").digest("hex")}`
