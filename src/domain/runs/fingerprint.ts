/**
 * "Same request" for idempotency (docs/REFERENCE.md): the SHA-256 of the canonical JSON of the fields
 * that define a run. `wait_s` is not one of them; an absent field and `null` are the same.
 */
import { createHash } from "node:crypto"

export interface FingerprintFields {
  readonly agent: string
  readonly input: string
  readonly instructions?: string | undefined
  readonly session_key?: string | undefined
  readonly reasoning_effort?: string | undefined
}

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
}

export const fingerprint = (f: FingerprintFields): string =>
  createHash("sha256")
    .update(
      canonicalJson({
        agent: f.agent,
        input: f.input,
        instructions: f.instructions ?? null,
        session_key: f.session_key ?? null,
        reasoning_effort: f.reasoning_effort ?? null
      }),
      "utf8"
    )
    .digest("hex")
