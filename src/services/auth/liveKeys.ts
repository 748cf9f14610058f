/**
 * The client keys this process knows in plain text, each on the Redactor's mask list while it is
 * live. The store keeps only a key's SHA-256 digest, so a key is known here only from the moments
 * this process holds it: made here (`client add`, `rotate`, the console) or presented by a caller
 * it authenticated (a key that authenticated is live). A key made by another process (the CLI) and
 * never presented here is masked by its prefix alone. Off the list again when this process revokes
 * or rotates it, when another process's commit leaves its digest without a live row (`keepOnly`,
 * from Auth's watch of the change feed), or when it is presented and refused.
 *
 * At most one entry per digest this process has seen and not yet seen go: bounded by the clients
 * that authenticated since the keys they replaced went.
 */
import { Effect } from "effect"
import type { RedactorShape } from "../../common/Redactor.ts"

export interface LiveKeys {
  /** `key` (of `digest`) is live: registered, unless it is already. */
  readonly saw: (key: string, digest: string) => Effect.Effect<void>
  /** The key of `digest` is no longer live: unregistered, if this process knew it. */
  readonly gone: (digest: string) => Effect.Effect<void>
  /** Only these digests are live: every other key known here is unregistered. */
  readonly keepOnly: (live: ReadonlySet<string>) => Effect.Effect<void>
}

export const makeLiveKeys = (redactor: RedactorShape): LiveKeys => {
  const known = new Map<string, string>()
  const gone = (digest: string) =>
    Effect.suspend(() => {
      const key = known.get(digest)
      if (key === undefined) return Effect.void
      known.delete(digest)
      return redactor.unregisterSecret(key)
    })
  return {
    saw: (key, digest) =>
      Effect.suspend(() => {
        if (known.get(digest) === key) return Effect.void
        known.set(digest, key)
        return redactor.registerSecret(key)
      }),
    gone,
    keepOnly: (live) => Effect.suspend(() => Effect.forEach([...known.keys()].filter((d) => !live.has(d)), gone, { discard: true }))
  }
}
