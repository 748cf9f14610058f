/**
 * Authorization credentials: the value of an `Authorization` (or `Proxy-Authorization`) header,
 * after its scheme (`Bearer`, `Basic`, `Token`, any other), and a `Bearer …` / `Basic …` credential
 * standing anywhere (a log line, a curl command).
 *
 * Prose and examples use the same words ("Bearer token", "Basic usage", "Bearer your_token_here",
 * "Bearer myToken"), so a credential must look opaque unless it runs to the live edge: a digit, one
 * of `+/=.~`, mixed case that is not camelCase words, or 24 characters or more. A word, words
 * joined by `_`/`-`, and a template (`${key}`, `{token}`) are left alone.
 */
import { lineEndWithin } from "../bounded.ts"
import type { ScanContext } from "../findings.ts"
import { isInertValue, templateEnd, valueAt } from "../values.ts"

const isLetterOrDigit = (c: string): boolean => /[A-Za-z0-9]/.test(c)

/** True for a credential that is no plain word. */
export const isOpaque = (v: string): boolean =>
  v.length >= 24 || /[0-9+/=.~]/.test(v) ||
  (/[A-Z]/.test(v.slice(1)) && /[a-z]/.test(v) && !/^[A-Za-z][a-z]+(?:[A-Z][a-z]+)*$/.test(v.replace(/^\$/, "")))

/** A template interpolation (`${input.key}`, `{token}`, `${fn(...)}`): code naming the credential. */
const TEMPLATE = /^(?:\$\{|\{[^{}]+\}$)/

const skipBlanks = (text: string, i: number, end: number): number => {
  while (i < end && (text[i] === " " || text[i] === "\t")) i++
  return i
}

/** End of a credential word: white space, a quote, or `,;)]}` (a `${…}` / `{{…}}` is one word). */
const wordEnd = (text: string, i: number, end: number): number => {
  const braced = templateEnd(text, i, end)
  if (braced > 0) return braced
  while (i < end && !/[\s"'`,;)\]}]/.test(text[i]!)) i++
  return i
}

/** The longest header value looked at. */
const MAX_HEADER = 4096

const report = (ctx: ScanContext, start: number, end: number, quoted: boolean, detail: string): void => {
  // Trailing full stops end a sentence; `=` padding stays part of the credential.
  while (end > start && ctx.text[end - 1] === ".") end--
  if (end <= start) return
  const v = ctx.text.slice(start, end)
  const toTheEnd = ctx.liveEdge && end === ctx.text.length
  // An ellipsis stands for the credential in prose and examples (`Authorization: Bearer …`).
  if (v.startsWith("…")) return
  if (isInertValue(v, quoted) || TEMPLATE.test(v) || !(toTheEnd || isOpaque(v))) return
  ctx.findings.push({ start, end, kind: "authorization", quoted, detail })
}

/** `Authorization: <scheme> <credential>` (trigger: the word `authorization`, any case). */
export const authorizationHeaderRule = (ctx: ScanContext, at: number, triggerEnd: number): void => {
  const { text } = ctx
  if (!ctx.startsWord(at, isLetterOrDigit)) return
  let i = triggerEnd
  if (text.startsWith('\\"', i) || text.startsWith("\\'", i)) i += 2
  else if (text[i] === '"' || text[i] === "'") i++
  i = skipBlanks(text, i, text.length)
  if (text[i] !== ":" && text[i] !== "=") return
  i = skipBlanks(text, i + 1, text.length)
  // The header value: a quoted string, or the rest of the line (ended by a quote that closes an
  // enclosing string, as in `-H "Authorization: Bearer …"`).
  const quotedValue = /["'`\\]/.test(text[i] ?? "") ? valueAt(text, i, ctx.runs) : undefined
  const quoted = quotedValue !== undefined && quotedValue.quoted
  const start = quoted ? quotedValue.start : i
  const end = quoted ? quotedValue.end : lineEndWithin(text, i, i + MAX_HEADER, ctx.runs)
  const first = skipBlanks(text, start, end)
  const firstEnd = wordEnd(text, first, end)
  if (firstEnd === first) return
  const second = skipBlanks(text, firstEnd, end)
  const secondEnd = wordEnd(text, second, end)
  const scheme = /^[A-Za-z][A-Za-z0-9-]*$/.test(text.slice(first, firstEnd))
  if (secondEnd > second && scheme && second > firstEnd) report(ctx, second, secondEnd, quoted, "an Authorization credential")
  else report(ctx, first, firstEnd, quoted, "an Authorization credential")
}

/** Characters of an RFC 7235 token68 credential. */
const TOKEN68 = /[A-Za-z0-9._~+/=-]/

/** `Bearer <credential>` / `Basic <credential>` anywhere (trigger: the scheme word, any case). */
export const schemeCredentialRule = (ctx: ScanContext, at: number, triggerEnd: number): void => {
  const { text } = ctx
  if (!ctx.startsWord(at, isLetterOrDigit)) return
  const start = skipBlanks(text, triggerEnd, text.length)
  if (start === triggerEnd) return
  const end = ctx.runs.end(text, start, TOKEN68)
  // A token68 starts with a character that is not `=` (`bearer = …` is code), and `name="` after the
  // scheme is an auth-param of a challenge (`Bearer resource_metadata="…"`, `Bearer realm="…"`).
  if (text[start] === "=" || (text[end] === '"' && text[end - 1] === "=")) return
  const basic = text[at] === "b" || text[at] === "B" ? /^basic/i.test(text.slice(at, triggerEnd)) : false
  // A Basic credential is base64 of `user:password`: at least 8 characters, no `-._~`.
  if (basic && !(ctx.liveEdge && end === text.length) && (end - start < 8 || /[-._~]/.test(text.slice(start, end)))) return
  report(ctx, start, end, false, basic ? "a Basic credential" : "a Bearer credential")
}
