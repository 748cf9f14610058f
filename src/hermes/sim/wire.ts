/**
 * How the simulator writes Hermes's wire format (docs/SIMULATOR.md): ASCII-escaped, Python-spaced JSON, unnamed SSE
 * `data:` frames (with `id:` on newer builds), comments, the error envelope, and Hermes-shaped ids.
 * Pure functions only, so the simulator's own tests can check the bytes directly.
 */
import { randomBytes } from "node:crypto"

/**
 * JSON as Python's `json.dumps` writes it by default, which is what Hermes sends: `", "` and `": "`
 * separators, and every non-ASCII UTF-16 unit as `\uXXXX` (`ensure_ascii=True`; astral characters
 * become two escaped surrogates). Values JSON cannot hold are skipped (object keys) or `null`
 * (array items), as in `JSON.stringify`.
 */
export const asciiJson = (value: unknown): string => escapeNonAscii(pythonJson(value) ?? "null")

const escapeNonAscii = (s: string) => s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

const pythonJson = (value: unknown): string | undefined => {
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  const toJson = (value as { toJSON?: unknown }).toJSON
  if (typeof toJson === "function") return pythonJson(toJson.call(value))
  if (Array.isArray(value)) return `[${value.map((v) => pythonJson(v) ?? "null").join(", ")}]`
  const parts: Array<string> = []
  for (const [k, v] of Object.entries(value)) {
    const text = pythonJson(v)
    if (text !== undefined) parts.push(`${JSON.stringify(k)}: ${text}`)
  }
  return `{${parts.join(", ")}}`
}

/** One SSE frame: `id: <seq>` only where the build numbers its frames, then the unnamed `data:` line. */
export const sseFrame = (payloadJson: string, id: number | null): string =>
  id === null ? `data: ${payloadJson}\n\n` : `id: ${id}\ndata: ${payloadJson}\n\n`

export const sseKeepalive = ": keepalive\n\n"
export const sseClosed = ": stream closed\n\n"

/** Hermes's generic error envelope `{"error":{"message","type","param","code"}}`. */
export const errorEnvelope = (message: string, code: string | null, type = "invalid_request_error", param: string | null = null) => ({
  error: { message, type, param, code }
})

/** `run_<32 hex>`, the run id shape Hermes mints. */
export const newRunId = (): string => `run_${randomBytes(16).toString("hex")}`

/** 32 hex characters (approval `request_id`, clarification `clarify_id`). */
export const newHex32 = (): string => randomBytes(16).toString("hex")

/** A fresh API key in the shape Hermes operators typically generate. */
export const newApiKey = (): string => `hsk_${randomBytes(24).toString("base64url")}`

/** Float unix seconds, the timestamp format of Hermes's JSON. */
export const unixSeconds = (ms: number): number => Math.round(ms) / 1000
