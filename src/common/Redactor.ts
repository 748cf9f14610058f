/**
 * The last gate between a remote machine and what the Hermes box knows: every text that leaves the
 * bridge goes through this service. The rules are pure functions in `src/domain/redact/`; the service
 * adds the exact values of the secrets the bridge itself holds: the Hermes keys, the admin key and
 * the metrics token at start; a client key whenever this process sees it in plain text (created,
 * rotated, or presented by a caller it authenticated), until it is revoked (`services/auth/`).
 */
import { Context, Effect, Layer, Ref } from "effect"
import { makeRedaction, type Redaction } from "../domain/redact/redact.ts"
import { Metrics } from "./Metrics.ts"

export interface StreamRedactOptions {
  /** Stored `message.text` just before the returned slice (context only, not returned; its last 8192 characters are used). */
  readonly before?: string
  /** Stored `message.text` just after the returned slice (context only, not returned; its first 8192 characters are used). */
  readonly after?: string
  /** The slice (with `after`) runs to the newest stored event of an unfinished run. */
  readonly liveEdge?: boolean
}

/**
 * Values made by masking through the Redactor, kept for reuse (a finished run's view, read again and
 * again by a polling client). A kept value is returned only while the mask list it was made under
 * stands: registering or unregistering a secret makes every kept value stale, so nothing made before
 * a secret was known is ever sent after (and nothing made under a list since changed). Registering a
 * value already registered, or unregistering one that is not, leaves the list, and the memo, as is. Serving a kept value counts its masked texts again, as making it did.
 * At most `capacity` values are kept; the least recently used goes first.
 */
export interface RedactionMemo<A> {
  /** The value kept under `key` (made under the current mask list), or undefined. */
  readonly get: (key: string) => A | undefined
  /** Makes the value (synchronously, masking through this Redactor), keeps it under `key`, returns it. */
  readonly make: (key: string, make: () => A) => A
}

export interface RedactorShape {
  /** Masks every secret in one text. `liveEdge`: a known prefix running to the end is masked through the end. */
  readonly text: (s: string, options?: { readonly liveEdge?: boolean }) => string
  /** Masks every string value of a JSON tree; keys and shape are untouched. */
  readonly json: <A>(value: A) => A
  /**
   * Masks consecutive `message.text` segments as one text (with context on each side), and returns
   * the masked segments in the same number and order: each piece of a secret that a segment holds
   * is replaced by the mask in that segment.
   */
  readonly segments: (parts: ReadonlyArray<string>, options?: StreamRedactOptions) => ReadonlyArray<string>
  /** True when `text` would change `s` (capabilities drop such strings instead of masking them). */
  readonly wouldChange: (s: string) => boolean
  /**
   * The `agent_skill_put` secret check for one file: null when every value the redactor would mask
   * is a placeholder, else the `bridge.skill_invalid` message naming `fileName` and the line.
   */
  readonly skillProblem: (fileName: string, text: string) => string | null
  /**
   * Adds an exact secret value (and its encodings, and its body after a known prefix) to the mask
   * list. Values under 6 characters, and values registered already, change nothing.
   */
  readonly registerSecret: (value: string) => Effect.Effect<void>
  /** Takes a registered value off the mask list (a revoked key); its prefix, if known, still masks it. */
  readonly unregisterSecret: (value: string) => Effect.Effect<void>
  /** A new store of reusable masked values (see `RedactionMemo`). */
  readonly memo: <A>(capacity: number) => RedactionMemo<A>
}

export class Redactor extends Context.Tag("agent-bridge/Redactor")<Redactor, RedactorShape>() {}

/** The production Redactor; `secrets` are registered up front (more can be added later). */
export const RedactorWith = (secrets: ReadonlyArray<string> = []) =>
  Layer.effect(
    Redactor,
    Effect.gen(function* () {
      const current = yield* Ref.make<Redaction>(makeRedaction(secrets))
      const metrics = yield* Metrics
      // Texts masked so far: a memo entry records how many its making masked, to count them again.
      let masked = 0
      const counted = (before: string, after: string) => {
        if (after !== before) {
          masked += 1
          metrics.redactionApplied()
        }
        return after
      }
      // Reads go through a plain variable so the hot path stays synchronous.
      let r = yield* Ref.get(current)
      const memo = <A>(capacity: number): RedactionMemo<A> => {
        // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
        const kept = new Map<string, { readonly value: A; readonly rules: Redaction; readonly masked: number }>()
        return {
          get: (key) => {
            const entry = kept.get(key)
            if (entry === undefined) return undefined
            kept.delete(key)
            if (entry.rules !== r) return undefined
            kept.set(key, entry)
            for (let i = 0; i < entry.masked; i++) metrics.redactionApplied()
            masked += entry.masked
            return entry.value
          },
          make: (key, make) => {
            const rules = r
            const before = masked
            const value = make()
            kept.delete(key)
            kept.set(key, { value, rules, masked: masked - before })
            for (const oldest of kept.keys()) {
              if (kept.size <= capacity) break
              kept.delete(oldest)
            }
            return value
          }
        }
      }
      // A new Redaction is a new mask list: the memo compares by identity, so a kept value made
      // under the old one is stale from here on. The hot path's copy is set inside the update
      // (which runs once, synchronously): set in a later step, a fiber that yielded in between
      // could put back an older list over a newer one, dropping a key registered meanwhile.
      const update = (f: (old: Redaction) => Redaction) =>
        Ref.update(current, (old) => {
          const next = f(old)
          r = next
          return next
        })
      const shape: RedactorShape = {
        text: (s, o) => counted(s, r.text(s, o?.liveEdge ?? false)),
        json: (v) => r.json(v),
        segments: (parts, o) => r.segments(parts, o ?? {}).map((out, i) => counted(parts[i] ?? "", out)),
        wouldChange: (s) => r.wouldChange(s),
        skillProblem: (fileName, s) => r.skillProblem(fileName, s),
        registerSecret: (value) => update((old) => old.withSecret(value)),
        unregisterSecret: (value) => update((old) => old.withoutSecret(value)),
        memo
      }
      return shape
    })
  )

/** The production Redactor with no secret registered up front. */
export const RedactorLive = RedactorWith()
