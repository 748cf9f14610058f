/**
 * Secrets known by their shape alone: the password of a URL (`scheme://user:password@host`), a
 * JWT (`eyJ….….…`), and the body of a PEM private-key block.
 */
import { indexWithin } from "../bounded.ts"
import type { ScanContext } from "../findings.ts"
import { isMaskOrReference } from "../values.ts"

/** Where a URL's authority ends. */
const AUTHORITY_END = /[\s/?#"'<>`\\]/
/** The longest userinfo looked at. */
const MAX_USERINFO = 512

/**
 * `scheme://user:password@host` (trigger: `://`). The password runs from the first `:` of the
 * userinfo to its last `@` (an unencoded `@` in a password is common). At the live edge a userinfo
 * with a `:` that runs to the end of the text is masked from the `:` (the `@` may not be stored yet).
 */
export const urlPasswordRule = (ctx: ScanContext, at: number): void => {
  const { text } = ctx
  if (!/[A-Za-z0-9]/.test(text[at - 1] ?? "")) return
  const from = at + 3
  const limit = Math.min(text.length, from + MAX_USERINFO)
  let end = from
  let lastAt = -1
  while (end < limit && !AUTHORITY_END.test(text[end]!)) {
    if (text[end] === "@") lastAt = end
    end++
  }
  const toTheEnd = ctx.liveEdge && end === text.length
  const stop = lastAt >= 0 ? lastAt : toTheEnd ? end : -1
  if (stop < 0) return
  let colon = from
  while (colon < stop && text[colon] !== ":") colon++
  if (colon >= stop) return
  if (isMaskOrReference(text.slice(colon + 1, stop))) return
  ctx.findings.push({ start: colon + 1, end: stop, kind: "url-password", quoted: false, detail: "a URL password" })
}

const B64URL = /[A-Za-z0-9_-]/

/**
 * A JWT (trigger: `eyJ`, base64 of `{"`): a header of 10+ characters and two or more further
 * dot-separated base64url parts (a JWE has five). At the live edge a token that runs to the end of
 * the text is masked whatever it holds so far.
 */
export const jwtRule = (ctx: ScanContext, at: number): void => {
  const { text } = ctx
  if (!text.startsWith("eyJ", at) || !ctx.startsWord(at, (c) => c === "." || B64URL.test(c))) return
  let end = ctx.runs.end(text, at, B64URL)
  const headerLength = end - at
  let parts = 1
  while (parts < 5 && text[end] === ".") {
    end = ctx.runs.end(text, end + 1, B64URL)
    parts++
  }
  const toTheEnd = ctx.liveEdge && end === text.length
  if (!toTheEnd && (headerLength < 10 || parts < 3 || end - at < 24)) return
  ctx.findings.push({ start: at, end, kind: "jwt", quoted: false, detail: "a JWT" })
}

const PEM_BEGIN = /^-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/
/** What a PEM body holds when it is not closed (base64, header lines, escaped newlines). */
export const PEM_BODY = /[A-Za-z0-9+/=\s\\:,.()-]/
/** How far the END line is looked for. */
const MAX_PEM = 64 * 1024

/** White space and escaped newlines (`\n` in JSON-escaped text) around a PEM body stay visible. */
const trimBody = (text: string, start: number, end: number): [number, number] => {
  const edge = /^(?:\s|\\[nr])+/
  const head = edge.exec(text.slice(start, Math.min(end, start + 64)))
  if (head !== null) start += head[0].length
  while (end > start) {
    if (/\s/.test(text[end - 1]!)) end--
    else if (end - 2 >= start && text[end - 2] === "\\" && /[nr]/.test(text[end - 1]!)) end -= 2
    else break
  }
  return [start, end]
}

/**
 * A PEM private-key block (trigger: `-----BEGIN`): the body between the BEGIN and END lines is
 * masked, the lines themselves stay. With no END line (a cut text), the body runs as far as PEM
 * body characters go.
 */
export const privateKeyRule = (ctx: ScanContext, at: number): void => {
  const { text } = ctx
  const head = PEM_BEGIN.exec(text.slice(at, at + 80))
  if (head === null) return
  const bodyStart = at + head[0].length
  const endLine = indexWithin(text, "-----END ", bodyStart, bodyStart + MAX_PEM)
  const bodyEnd = endLine >= 0 ? endLine : Math.min(ctx.runs.end(text, bodyStart, PEM_BODY), bodyStart + MAX_PEM)
  const [start, end] = trimBody(text, bodyStart, bodyEnd)
  if (end <= start || isMaskOrReference(text.slice(start, end))) return
  ctx.findings.push({ start, end, kind: "private-key", quoted: false, detail: "a private key block" })
}
