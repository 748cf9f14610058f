/**
 * Exact values of the secrets the bridge holds (Hermes keys, client keys, the admin key), and the
 * forms they take in text: JSON-escaped, URL-encoded (`%XX` and form `+`), and base64 (standard
 * and URL-safe, padded and not). A secret inside a longer base64 text (`Basic base64(user:key)`)
 * is encoded differently at each of the three byte offsets it may start at, so each offset adds
 * the characters that depend on the secret alone.
 */
import type { ScanContext } from "./findings.ts"

/** Shorter values cannot be told from ordinary text; they are not registered. */
export const MIN_SECRET_LENGTH = 6
/** The shortest encoded fragment worth masking. */
const MIN_VARIANT_LENGTH = 8
/** At the live edge, the shortest start of a secret that is masked at the end of the text. */
const MIN_LIVE_PREFIX = 4

const toUrlSafe = (b64: string): string => b64.replace(/\+/g, "-").replace(/\//g, "_")

/** The base64 characters that depend on `secret` alone when it starts `offset` bytes into a text. */
const base64Inner = (secret: Buffer, offset: number): string => {
  const enc = Buffer.concat([Buffer.alloc(offset), secret]).toString("base64")
  const first = Math.ceil((8 * offset) / 6)
  const last = Math.floor((8 * (offset + secret.length)) / 6)
  return enc.slice(first, last)
}

/** Every form of `secret` the redactor masks. */
export const secretVariants = (secret: string): ReadonlyArray<string> => {
  if (secret.length < MIN_SECRET_LENGTH) return []
  const bytes = Buffer.from(secret, "utf8")
  const full = bytes.toString("base64")
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, "+"),
    full,
    full.replace(/=+$/, ""),
    toUrlSafe(full),
    toUrlSafe(full).replace(/=+$/, "")
  ]
  for (const offset of [0, 1, 2]) {
    const inner = base64Inner(bytes, offset)
    forms.push(inner, toUrlSafe(inner))
  }
  return [...new Set(forms)].filter((f) => f === secret || f.length >= MIN_VARIANT_LENGTH)
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/** The registered secrets, matched with one alternation (longest first). */
export interface ExactSecrets {
  readonly values: ReadonlyArray<string>
  readonly variants: ReadonlyArray<string>
  readonly regex: RegExp | undefined
}

export const makeExactSecrets = (values: ReadonlyArray<string>): ExactSecrets => {
  const kept = [...new Set(values.filter((v) => v.length >= MIN_SECRET_LENGTH))]
  const variants = [...new Set(kept.flatMap(secretVariants))].sort((a, b) => b.length - a.length)
  const regex = variants.length === 0 ? undefined : new RegExp(variants.map(escapeRegex).join("|"), "g")
  return { values: kept, variants, regex }
}

/** Adds a finding for every occurrence of a registered secret (overlapping ones too). */
export const exactRule = (ctx: ScanContext, secrets: ExactSecrets): void => {
  const { regex } = secrets
  if (regex === undefined) return
  const { text } = ctx
  regex.lastIndex = 0
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    ctx.findings.push({ start: m.index, end: m.index + m[0].length, kind: "exact", quoted: false, detail: "a secret the bridge holds" })
    regex.lastIndex = m.index + 1
  }
  if (!ctx.liveEdge) return
  // The text may stop inside a secret: mask its start at the end of the text.
  for (const v of secrets.variants) {
    for (let n = Math.min(v.length - 1, text.length); n >= MIN_LIVE_PREFIX; n--) {
      if (text.endsWith(v.slice(0, n))) {
        ctx.findings.push({ start: text.length - n, end: text.length, kind: "exact", quoted: false, detail: "a secret the bridge holds" })
        break
      }
    }
  }
}
