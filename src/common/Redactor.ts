/**
 * The last gate between a remote machine and what the Hermes box knows: every text that leaves the
 * bridge goes through this service. The rules are pure functions in `src/domain/redact/`; the service
 * adds the exact values of the secrets the bridge itself holds (registered at start, and later as
 * keys are created or rotated).
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
  /** Adds an exact secret value (and its encodings) to the mask list. Values under 6 characters are ignored. */
  readonly registerSecret: (value: string) => Effect.Effect<void>
}

export class Redactor extends Context.Tag("agent-bridge/Redactor")<Redactor, RedactorShape>() {}

/** The production Redactor; `secrets` are registered up front (more can be added later). */
export const RedactorWith = (secrets: ReadonlyArray<string> = []) =>
  Layer.effect(
    Redactor,
    Effect.gen(function* () {
      const current = yield* Ref.make<Redaction>(makeRedaction(secrets))
      const metrics = yield* Metrics
      const counted = (before: string, after: string) => {
        if (after !== before) metrics.redactionApplied()
        return after
      }
      // Reads go through a plain variable so the hot path stays synchronous.
      let r = yield* Ref.get(current)
      const shape: RedactorShape = {
        text: (s, o) => counted(s, r.text(s, o?.liveEdge ?? false)),
        json: (v) => r.json(v),
        segments: (parts, o) => r.segments(parts, o ?? {}).map((out, i) => counted(parts[i] ?? "", out)),
        wouldChange: (s) => r.wouldChange(s),
        skillProblem: (fileName, s) => r.skillProblem(fileName, s),
        registerSecret: (value) =>
          Ref.updateAndGet(current, (old) => old.withSecret(value)).pipe(
            Effect.tap((next) => Effect.sync(() => { r = next })),
            Effect.asVoid
          )
      }
      return shape
    })
  )

/** The production Redactor with no secret registered up front. */
export const RedactorLive = RedactorWith()
