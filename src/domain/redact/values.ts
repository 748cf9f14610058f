/**
 * The value after a secret-shaped name or an authorization scheme: where it starts and ends, and
 * whether it is code that names a value rather than the value itself.
 *
 * Grammar, from the first character after the separator and its spaces:
 * - `"…"`, `'…'`, `` `…` `` (optionally after a Python string prefix `f`, `r`, `b`): the text up
 *   to the closing quote on the same line (a backslash escapes the next character). An unclosed
 *   quote runs to the end of the line, or of the text.
 * - `\"…\"` (a value inside JSON-escaped text): the text up to the next `\"` on the same line.
 * - otherwise: the run up to white space, a quote, `,` `;` `&` `|` `)` `]` `}`, or a backslash
 *   that starts an escape (`\n`, `\"`), as a shell word, a query parameter or a YAML scalar ends.
 */
import { indexWithin, lineEndWithin, RunCache } from "./bounded.ts"
import { MASK } from "./mask.ts"
import { holdsKnownPrefix } from "./prefixes.ts"
import { looksRandom } from "./rules/codeValues.ts"

export interface ValueSpan {
  readonly start: number
  readonly end: number
  /** The value was written in quotes (a quoted phrase may be a placeholder). */
  readonly quoted: boolean
}

/** How far a quoted value is looked for; a longer one is cut here and masked up to here. */
const MAX_VALUE = 4096


/** Characters of an unquoted value, but for a backslash (which ends it only when it escapes). */
const UNQUOTED = /[^\s"'`,;&|)\]}\\]/

/**
 * End of an unquoted value from `from` (not past `limit`): the run of value characters, through any
 * backslash that does not start an escape (`\n`, `\"` end a value inside JSON-escaped text).
 */
const unquotedEnd = (text: string, from: number, limit: number, runs: RunCache): number => {
  let j = runs.end(text, from, UNQUOTED)
  while (j < limit && text[j] === "\\" && !/["'\\nrt]/.test(text[j + 1] ?? "")) j = runs.end(text, j + 1, UNQUOTED)
  return Math.min(j, limit)
}

/**
 * End of a template expression starting at `i` (`${NAME}`, `{{ … }}`, `${{ … }}`) on the same
 * line and before `limit`, or -1 when none starts there.
 */
export const templateEnd = (text: string, i: number, limit: number, runs?: RunCache): number => {
  const from = text[i] === "$" ? i + 1 : i
  if (text[from] !== "{") return -1
  const close = text[from + 1] === "{" ? "}}" : "}"
  const at = indexWithin(text, close, from + 1, lineEndWithin(text, from, limit, runs))
  return at < 0 ? -1 : at + close.length
}

/** The value starting at `at` (after the separator and its spaces), or undefined when there is none. */
export const valueAt = (text: string, at: number, runs?: RunCache): ValueSpan | undefined => {
  const limit = Math.min(text.length, at + MAX_VALUE)
  let i = at
  if (text.startsWith('\\"', i) || text.startsWith("\\'", i)) {
    const close = indexWithin(text, text.slice(i, i + 2), i + 2, limit)
    const end = close < 0 ? lineEndWithin(text, i + 2, limit, runs) : close
    return end > i + 2 ? { start: i + 2, end, quoted: true } : undefined
  }
  if (/[fFrRbB]/.test(text[i] ?? "") && /["']/.test(text[i + 1] ?? "")) i++
  const q = text[i]
  if (q === '"' || q === "'" || q === "`") {
    const stop = lineEndWithin(text, i + 1, limit, runs)
    let j = i + 1
    while (j < stop && text[j] !== q) j += text[j] === "\\" ? 2 : 1
    const end = Math.min(j, stop)
    return end > i + 1 ? { start: i + 1, end, quoted: true } : undefined
  }
  const braced = templateEnd(text, at, limit, runs)
  const end = unquotedEnd(text, braced > 0 ? braced : at, limit, runs ?? new RunCache())
  return end > at ? { start: at, end, quoted: false } : undefined
}

/** Words that are types, literals or keywords, never a secret (`token: string`, `password: null`). */
const KEYWORDS: ReadonlySet<string> = new Set([
  "true", "false", "null", "none", "nil", "undefined", "string", "number", "boolean", "bool", "str",
  "int", "integer", "float", "bytes", "object", "any", "unknown", "never", "void", "required",
  "optional", "await", "yield", "yield*", "new", "typeof", "function", "async", "lambda", "self",
  "this", "static", "readonly", "const", "let", "var", "return", "redacted"
])

/** A code identifier: letters, `_`, `$`, and digits only at the end (`s3`, `v2`, not `Cl2FMQ`). */
const IDENT_SEGMENT = /^[A-Za-z_$][A-Za-z_$]*[0-9]*$/

/**
 * True for an unquoted value that is code naming a value: a property path (`process.env.HF_TOKEN`,
 * `config.apiKey`), a call, index or generic (`getToken(`, `os.environ[`, `Array<string>`), a
 * template or structured literal (`{{ secrets.X }}`, `${{ secrets.X }}`, `{`, `[`, `(`).
 * Base64-like segments (digits inside) are not identifiers, so a dotted token such as a Discord
 * token is not mistaken for a property path.
 */
const isCodeReference = (v: string): boolean => {
  const c = v[0]
  if (c === "$" && !v.startsWith("${{")) return false
  if (c === "{" || c === "[" || c === "(" || v.startsWith("${{")) return true
  const m = /^([A-Za-z_$][\w$.?!]*?)([([<]|$)/.exec(v)
  if (m === null) return false
  const path = m[1]!.replace(/[?!]+$/, "")
  const segments = path.split(/\??\./)
  if (!segments.every((s) => s.length > 0 && s.length <= 40 && IDENT_SEGMENT.test(s))) return false
  return segments.length >= 2 || m[2] !== ""
}

/**
 * A reference to an environment variable that is the whole value: `$API_KEY`, `${api_key}`, the
 * name in one case and holding no known token prefix (`$hf_…` and `$Api_Key` are not references:
 * the first may be a token, the second a password that starts with `$`).
 */
export const isEnvReference = (v: string): boolean => {
  const m = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$/.exec(v)
  if (m === null) return false
  const name = m[1] ?? m[2]!
  return (name === name.toUpperCase() || name === name.toLowerCase()) && !holdsKnownPrefix(name)
}

/**
 * A template expression: `{{ secrets.HF_TOKEN }}`, `${{ env.X }}`, a format field `{token}`, or a
 * property path interpolated (`${session.token}`; a bare `${Name}` is an environment variable and
 * must be in one case, see `isEnvReference`).
 */
export const isTemplateReference = (v: string): boolean =>
  /^\$?\{\{[^{}]*\}\}$/.test(v) || /^\{[a-z_][a-z0-9_.]*\}$/.test(v) ||
  /^\$\{[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+\}$/.test(v)

/** One interpolation of a template literal: `${` an identifier or a call, up to its `}`. */
const INTERPOLATION = /\$\{[A-Za-z_$][^{}\n]{0,200}\}/g
/**
 * What may stand around the interpolations of a template built at run time: a path, a word or two,
 * each run of token characters short (a literal secret beside an interpolation is a long run).
 */
const TEMPLATE_REST = /^[\w\s/().,:-]{0,32}$/
const LONG_RUN = /[A-Za-z0-9+=_-]{17,}/

/**
 * The text of a JavaScript template literal (between backticks) built at run time
 * (`${OAUTH_PREFIX}/token`, `slot_${randomBytes(12)…}`, `${place} (signs in to /inbox)`): its value
 * is made by the code, and what stands around the interpolations is too short and too plain to be a
 * secret (a literal secret is a long random run). Only for a backtick-quoted value: in a shell or
 * an env file, `${NAME}x` is a value.
 */
export const isInterpolatedTemplate = (v: string): boolean => {
  if (!v.includes("${")) return false
  const rest = v.replace(INTERPOLATION, "")
  return rest !== v && !rest.includes("${") && TEMPLATE_REST.test(rest) && !LONG_RUN.test(rest)
}

/** Empty, already masked (or stars), or a reference to a variable: nothing to hide. */
export const isMaskOrReference = (v: string): boolean =>
  v.length === 0 || v === MASK || /^\*+$/.test(v) || isEnvReference(v) || isTemplateReference(v)

/** A file path: from `/`, `~/`, `./` or `../`, two segments or more of name characters. */
const FILE_PATH = /^(?:~|\.{1,2})?(?:\/[\w.-]{1,64}){2,}\/?$/
/** A word of prose after a path (`(signs in to /inbox)`), its punctuation aside. */
const PUNCTUATION = /[()[\],.;:!?"'`]/g

/** A segment with a word in it (`agent-bridge-Xk3Jq9`, `id_ed25519`): a name, whatever follows. */
const NAMED_SEGMENT = /(?:^|[-_.])[a-z]{3,}(?:[-_.]|$)/

/**
 * A file path, maybe followed by words (`/var/lib/agent-bridge/admin.key (signs in to /inbox)`,
 * the admin key's place in the start banner): where a secret is kept, not the secret. A segment
 * may look random when a word stands in it (a temporary folder's `agent-bridge-test-Xk3Jq9`), and
 * one may look random alone; a base64 value that starts with `/` has several such segments
 * (`/9j/4AAQSkZJRg…/2wBD…`), or a `+` or `=`, and is no path.
 */
export const isFilePathValue = (v: string): boolean => {
  const c = v[0]
  if (c !== "/" && c !== "~" && c !== ".") return false
  const [path, ...words] = v.split(/\s+/)
  if (path === undefined || !FILE_PATH.test(path)) return false
  if (path.split("/").filter((segment) => looksRandom(segment) && !NAMED_SEGMENT.test(segment)).length > 1) return false
  return words.every((w) => !looksRandom(w.replace(PUNCTUATION, "")))
}

/** A value that reveals nothing: empty, already masked, a keyword, a reference, a file path, or (unquoted) code. */
export const isInertValue = (v: string, quoted: boolean): boolean =>
  isMaskOrReference(v) || KEYWORDS.has(v.toLowerCase()) || (!quoted && isCodeReference(v)) || isFilePathValue(v)
