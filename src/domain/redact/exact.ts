/**
 * Exact values of the secrets the bridge holds (Hermes keys, client keys, the admin key), and the
 * forms they take in text: JSON-escaped, URL-encoded (`%XX` and form `+`), and base64 (standard
 * and URL-safe, padded and not). A secret inside a longer base64 text (`Basic base64(user:key)`)
 * is encoded differently at each of the three byte offsets it may start at, so each offset adds
 * the characters that depend on the secret alone.
 *
 * Also the forms that common tools derive in one step, so a key printed through one of them is
 * still masked: hex in either case (`xxd -p`, `od`, a hash-like dump; byte-aligned, so also inside
 * a longer dump), every byte percent-encoded (`%61%64…`, either case) or `\x`-escaped, the key in
 * upper or lower case (`tr`), reversed (`rev`), and base32 (`base32`, padded or not). Not covered:
 * forms split over lines (`base64` and `xxd` wrap long output), other offsets of base32, and any
 * transformation a program of its own can make (xor, rot13, a key spelt out with separators): the
 * redactor stops accidental and one-step exposure, not code written to get a key out.
 */
import { type ExactSearch, makeExactSearch, WINDOW } from "./exactSearch.ts"
import type { ScanContext } from "./findings.ts"
import { KNOWN_PREFIXES } from "./prefixes.ts"

/** Shorter values cannot be told from ordinary text; they are not registered. */
export const MIN_SECRET_LENGTH = 6
/**
 * A registered key that starts with a known prefix (`hal0bk_`, `sk-proj-`, …) is masked without its
 * prefix too (a program that prints the body, a URL that carries it): its body counts as a value
 * of its own when it is at least this long (shorter could be an ordinary word).
 */
const MIN_BODY_LENGTH = 16
/** The shortest encoded fragment worth masking. */
const MIN_VARIANT_LENGTH = 8

const toUrlSafe = (b64: string): string => b64.replace(/\+/g, "-").replace(/\//g, "_")

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

/** RFC 4648 base32, padded (what coreutils' `base32` prints). */
const toBase32 = (bytes: Buffer): string => {
  let out = ""
  let value = 0
  let bits = 0
  for (const b of bytes) {
    value = (value << 8) | b
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  return out.padEnd(Math.ceil(out.length / 8) * 8, "=")
}

/** The forms one common tool derives from `secret` (see the module comment). */
const derivedForms = (secret: string, bytes: Buffer): ReadonlyArray<string> => {
  const hex = bytes.toString("hex")
  const base32 = toBase32(bytes)
  return [
    hex, hex.toUpperCase(),
    hex.replace(/../g, "%$&"), hex.toUpperCase().replace(/../g, "%$&"), hex.replace(/../g, "\\x$&"),
    secret.toUpperCase(), secret.toLowerCase(), [...secret].reverse().join(""),
    base32, base32.replace(/=+$/, "")
  ]
}

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
    toUrlSafe(full).replace(/=+$/, ""),
    ...derivedForms(secret, bytes)
  ]
  for (const offset of [0, 1, 2]) {
    const inner = base64Inner(bytes, offset)
    forms.push(inner, toUrlSafe(inner))
  }
  // Any form may itself stand in a JSON string (`"\\x61…"`).
  const escaped = forms.map((f) => JSON.stringify(f).slice(1, -1))
  return [...new Set([...forms, ...escaped])].filter((f) => f === secret || f.length >= MIN_VARIANT_LENGTH)
}

/** The registered secrets, and the search for their variants (`exactSearch.ts`). */
export interface ExactSecrets {
  readonly values: ReadonlyArray<string>
  readonly variants: ReadonlyArray<string>
  readonly search: ExactSearch
}

/** `value` without the known prefix it starts with, when what is left is long enough to mask alone. */
const bodyOf = (value: string): ReadonlyArray<string> => {
  const known = KNOWN_PREFIXES.find((k) => value.startsWith(k.prefix))
  const body = known === undefined ? "" : value.slice(known.prefix.length)
  return body.length >= MIN_BODY_LENGTH ? [body] : []
}

// The search hashes a variant's first characters: none may be shorter.
if (MIN_SECRET_LENGTH < WINDOW || MIN_VARIANT_LENGTH < WINDOW) throw new Error("a registered secret's variant is shorter than the search's window")

export const makeExactSecrets = (values: ReadonlyArray<string>): ExactSecrets => {
  const kept = [...new Set(values.filter((v) => v.length >= MIN_SECRET_LENGTH))]
  const masked = [...new Set(kept.flatMap((v) => [v, ...bodyOf(v)]))]
  const variants = [...new Set(masked.flatMap(secretVariants))].sort((a, b) => b.length - a.length)
  return { values: kept, variants, search: makeExactSearch(variants) }
}

/** Adds a finding for every occurrence of a registered secret (overlapping ones too). */
export const exactRule = (ctx: ScanContext, secrets: ExactSecrets): void => {
  const { text, findings } = ctx
  secrets.search.each(text, (start, end) => {
    findings.push({ start, end, kind: "exact", quoted: false, detail: "a secret the bridge holds" })
  })
  if (!ctx.liveEdge) return
  // The text may stop inside a secret: mask its start at the end of the text.
  const n = secrets.search.liveTail(text)
  if (n > 0) findings.push({ start: text.length - n, end: text.length, kind: "exact", quoted: false, detail: "a secret the bridge holds" })
}
