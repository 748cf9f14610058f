/**
 * Signed-in operator sessions of the inbox page, in memory: a restart signs the operator out, which
 * is the safe direction. The cookie carries a random token; only its SHA-256 digest is kept here, and
 * each session has its own CSRF token for the forms it renders. Sessions end at a fixed time after
 * sign-in (no sliding renewal), or on sign-out. Opening one is gated by the per-address limit on
 * failed sign-ins (`signInLimit.ts`).
 */
import { Clock, Duration, Effect, Option, Ref } from "effect"
import { randomBytes } from "node:crypto"
import { digestKey, sameDigest } from "../../services/auth/apiKeys.ts"
import { DEFAULT_SIGN_IN_LIMIT, makeSignInLimit, type SignInLimitPolicy, type SignInLimitShape } from "./signInLimit.ts"

export interface InboxSession {
  readonly csrf: string
  readonly createdAt: number
  readonly expiresAt: number
}

export interface InboxSessionsShape {
  /** How long a session lasts after sign-in. */
  readonly ttl: Duration.Duration
  /** Opens a session; the token goes in the cookie and is not kept. */
  readonly open: Effect.Effect<{ readonly token: string; readonly session: InboxSession }>
  /** The live session a cookie token names, if any (an expired one is dropped). */
  readonly find: (token: string | undefined) => Effect.Effect<Option.Option<InboxSession>>
  readonly close: (token: string | undefined) => Effect.Effect<void>
  /** Failed sign-ins by remote address: the sign-in form consults it before the key is checked. */
  readonly signInLimit: SignInLimitShape
}

/** Enough for a few browsers; past it the oldest session is dropped rather than memory growing. */
const MAX_SESSIONS = 32
const TOKEN_MAX_CHARS = 128

/** 32 random bytes, URL- and cookie-safe. */
export const newToken = (): string => randomBytes(32).toString("base64url")

/** Constant-time equality of two secrets of any length (their digests are compared). */
export const sameSecret = (a: string, b: string): boolean => sameDigest(digestKey(a), digestKey(b))

export const makeInboxSessions = (
  ttl: Duration.DurationInput,
  signInLimit: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT
): Effect.Effect<InboxSessionsShape> =>
  Effect.gen(function* () {
    const lifetime = Duration.decode(ttl)
    const sessions = yield* Ref.make(new Map<string, InboxSession>())
    const limit = yield* makeSignInLimit(signInLimit)

    const withoutExpired = (map: Map<string, InboxSession>, now: number) =>
      new Map([...map].filter(([, s]) => s.expiresAt > now))

    const open = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const token = newToken()
      const session: InboxSession = { csrf: newToken(), createdAt: now, expiresAt: now + Duration.toMillis(lifetime) }
      yield* Ref.update(sessions, (map) => {
        const next = withoutExpired(map, now)
        while (next.size >= MAX_SESSIONS) {
          const oldest = [...next].sort(([, a], [, b]) => a.createdAt - b.createdAt)[0]
          if (oldest === undefined) break
          next.delete(oldest[0])
        }
        next.set(digestKey(token), session)
        return next
      })
      return { token, session }
    })

    const find = (token: string | undefined) =>
      Effect.gen(function* () {
        if (token === undefined || token.length === 0 || token.length > TOKEN_MAX_CHARS) return Option.none<InboxSession>()
        const now = yield* Clock.currentTimeMillis
        const key = digestKey(token)
        return yield* Ref.modify(sessions, (map) => {
          const session = map.get(key)
          if (session === undefined) return [Option.none<InboxSession>(), map]
          if (session.expiresAt > now) return [Option.some(session), map]
          const next = new Map(map)
          next.delete(key)
          return [Option.none<InboxSession>(), next]
        })
      })

    const close = (token: string | undefined) =>
      token === undefined
        ? Effect.void
        : Ref.update(sessions, (map) => {
            const next = new Map(map)
            next.delete(digestKey(token))
            return next
          })

    return { ttl: lifetime, open, find, close, signInLimit: limit }
  })
