/**
 * Signed-in operator sessions of the inbox page, as rows of the database (`OperatorSessions`,
 * table `inbox_sessions`), so that every replica on one database honours a session another opened
 * and a sign-out through any of them ends it on all (issue 37 item 6). The cookie carries a random
 * token; the row is keyed by its HMAC-SHA256 under the admin key's digest, never by the token
 * itself, so a reader of the database cannot sign in with what it finds, and a session opened under
 * one admin key is not honoured once the admin key changes (the rows left behind are deleted at
 * their end).
 * Each session has its own CSRF token for the forms it renders. Sessions end at a fixed time after
 * sign-in (no sliding renewal), checked at every read, or on sign-out; ended rows are deleted by the
 * retention sweep (`services/inbox/sessionRetention.ts`). Opening one is gated by the per-address
 * limit on failed sign-ins (`signInLimit.ts`), whose count is in the database too.
 */
import { Clock, Duration, Effect, Option } from "effect"
import { createHmac, randomBytes } from "node:crypto"
import { digestKey, sameDigest } from "../../services/auth/apiKeys.ts"
import type { StoreFailure } from "../../services/inbox/InboxStore.ts"
import { OperatorSessions } from "../../services/inbox/OperatorSessions.ts"
import { ChangeFeed } from "../../storage/ChangeFeed.ts"
import type { SignInFailures } from "../../services/inbox/SignInFailures.ts"
import { DEFAULT_SIGN_IN_LIMIT, makeSignInLimit, type SignInLimitPolicy, type SignInLimitShape } from "./signInLimit.ts"
import { INBOX_SESSIONS_MAX } from "../../domain/limits.ts"

export interface InboxSession {
  readonly csrf: string
  readonly createdAt: number
  readonly expiresAt: number
}

export interface InboxSessionsShape {
  /** How long a session lasts after sign-in. */
  readonly ttl: Duration.Duration
  /** Opens a session; the token goes in the cookie and is not kept. */
  readonly open: Effect.Effect<{ readonly token: string; readonly session: InboxSession }, StoreFailure>
  /** The live session a cookie token names, if any (an ended one is none). */
  readonly find: (token: string | undefined) => Effect.Effect<Option.Option<InboxSession>, StoreFailure>
  /** Ends the session a cookie token names, on every replica. */
  readonly close: (token: string | undefined) => Effect.Effect<void, StoreFailure>
  /** Failed sign-ins by remote address: the sign-in form consults it before the key is checked. */
  readonly signInLimit: SignInLimitShape
}

const TOKEN_MAX_CHARS = 128

/** 32 random bytes, URL- and cookie-safe. */
export const newToken = (): string => randomBytes(32).toString("base64url")

/** Constant-time equality of two secrets of any length (their digests are compared). */
export const sameSecret = (a: string, b: string): boolean => sameDigest(digestKey(a), digestKey(b))

/** The row key of a cookie token, an HMAC-SHA256 keyed with the admin key's digest (hex). */
export const sessionDigest = (adminKeyDigest: string, token: string): string =>
  createHmac("sha256", adminKeyDigest).update(token, "utf8").digest("hex")

export const makeInboxSessions = (
  ttl: Duration.DurationInput,
  adminKeyDigest: string,
  signInLimit: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT
): Effect.Effect<InboxSessionsShape, never, OperatorSessions | SignInFailures> =>
  Effect.gen(function* () {
    const lifetime = Duration.decode(ttl)
    const store = yield* OperatorSessions
    const limit = yield* makeSignInLimit(signInLimit)
    const digestOf = (token: string) => sessionDigest(adminKeyDigest, token)
    const wellFormed = (token: string | undefined): token is string =>
      token !== undefined && token.length > 0 && token.length <= TOKEN_MAX_CHARS

    const open = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const token = newToken()
      const session: InboxSession = { csrf: newToken(), createdAt: now, expiresAt: now + Duration.toMillis(lifetime) }
      yield* store.open({ digest: digestOf(token), ...session }, INBOX_SESSIONS_MAX)
      yield* ended
      return { token, session }
    })

    const find = (token: string | undefined) =>
      wellFormed(token)
        ? Effect.flatMap(Clock.currentTimeMillis, (now) => store.find(digestOf(token), now)).pipe(
          Effect.map(Option.map((s): InboxSession => ({ csrf: s.csrf, createdAt: s.createdAt, expiresAt: s.expiresAt })))
        )
        : Effect.succeed(Option.none<InboxSession>())

    // A session ended here (signed out, or the oldest past the cap) wakes this process's open
    // pages (their event streams look at their session again: events.ts).
    const feed = yield* Effect.serviceOption(ChangeFeed)
    const ended = Option.match(feed, { onNone: () => Effect.void, onSome: (f) => f.notify("sessions") })
    const close = (token: string | undefined) => (wellFormed(token) ? Effect.zipRight(store.close(digestOf(token)), ended) : Effect.void)

    return { ttl: lifetime, open, find, close, signInLimit: limit }
  })
