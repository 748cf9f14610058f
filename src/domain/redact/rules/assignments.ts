/**
 * Values given to secret-shaped names: `NAME=value`, `NAME: value`, `NAME := value`, `"NAME": "value"`,
 * `env["NAME"] = "value"`, `?name=value&`, `--name value` / `--name=value`, and curl's
 * `-u user:password`. The name is found around a trigger word (`token`, `secret`, `pass`, `key`)
 * and judged by `isSecretName`; the value by `valueAt` / `isInertValue`.
 */
import { indexWithin } from "../bounded.ts"
import type { ScanContext } from "../findings.ts"
import { escapeBefore } from "../escapes.ts"
import { secretNameStrengthCached as secretNameStrength } from "../names.ts"
import { isInertValue, isInterpolatedTemplate, valueAt } from "../values.ts"
import { isCodeValue, isDeclared, looksLikeShortNameSecret, looksRandom } from "./codeValues.ts"

/** A name longer than this is not a name (a base64 blob, a minified line). */
const MAX_NAME = 128

const isNameChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46

const isBlank = (c: string | undefined): boolean => c === " " || c === "\t"

/** Words after `--token ` that show prose, not a value ("pass --token to the command"). */
const PROSE_WORDS: ReadonlySet<string> = new Set([
  "to", "or", "and", "the", "a", "an", "is", "are", "was", "with", "for", "flag", "option", "in", "of",
  "on", "if", "when", "from", "as", "at", "by", "instead", "also", "not", "only", "then", "so", "but"
])

const skipBlanks = (text: string, i: number): number => {
  while (isBlank(text[i])) i++
  return i
}

interface Separator {
  /** Where the value starts (after the separator and its blanks). */
  readonly valueStart: number
  /** `=` (also `:=`), `:`, or "" for `--name value`. */
  readonly kind: "=" | ":" | ""
  /** Blanks around `=` or after `:` (code writes `name = value`, shell `NAME=value`). */
  readonly spaced: boolean
}

/**
 * The separator after a name ending at `i`, if any. `flag`: the name was written `--name`, so
 * white space alone separates it from its value.
 */
const separatorAfter = (text: string, i: number, flag: boolean): Separator | undefined => {
  // The closing quote of a quoted key ("NAME": / \"NAME\": / 'NAME'), then `]` of an index.
  if (text.startsWith('\\"', i) || text.startsWith("\\'", i)) i += 2
  else if (text[i] === '"' || text[i] === "'") i++
  if (text[i] === "]") i++
  const afterName = i
  i = skipBlanks(text, i)
  const c = text[i]
  const next = text[i + 1]
  if (c === "=") {
    if (next === "=" || next === ">" || next === "~") return undefined
    const valueStart = skipBlanks(text, i + 1)
    return { valueStart, kind: "=", spaced: i > afterName || valueStart > i + 1 }
  }
  if (c === ":") {
    if (next === ":") return undefined
    const sepEnd = next === "=" ? i + 2 : i + 1
    const valueStart = skipBlanks(text, sepEnd)
    return { valueStart, kind: next === "=" ? "=" : ":", spaced: valueStart > sepEnd }
  }
  return flag && i > afterName ? { valueStart: i, kind: "", spaced: true } : undefined
}

/** A plain word written before a token (`token: live 7d1f…`, `api_key: the …`). */
const PLAIN_WORD = /^[A-Za-z]{1,12}$/
/** What may follow it as the token: a run of token characters, long and random-looking. */
const TOKEN_RUN = /^[A-Za-z0-9_\-.+/=]{16,4096}/

/**
 * The token after the value `v` when `v` is a plain word and a random-looking run follows it on
 * the same line: prose and CLIs write `token: live 7d1f…`, where the value is the run, not the word.
 */
const tokenAfterWord = (text: string, value: { readonly end: number; readonly quoted: boolean }, v: string): { start: number; end: number } | undefined => {
  if (value.quoted || !PLAIN_WORD.test(v) || !isBlank(text[value.end])) return undefined
  const start = skipBlanks(text, value.end)
  const m = TOKEN_RUN.exec(text.slice(start, start + 4097))
  if (m === null || !looksRandom(m[0]) || !/\d/.test(m[0])) return undefined
  return { start, end: start + m[0].length }
}

/** A plain word of prose. */
const PROSE_WORD = /^[A-Za-z]{1,20}$/
/** A word and a blank, ending the text before a name: the name is a word of a sentence. */
const WORD_BEFORE = /[A-Za-z][ \t]+$/

/** A code span in prose: an identifier or a dotted path of letters (`cluster.secret`, `whsec_`). */
const CODE_SPAN = /^[A-Za-z_][A-Za-z_.-]{0,40}$/
/** A quoted sentence: eight or more words of letters (a passphrase is rarely so long). */
const SENTENCE = /^[A-Za-z]+(?: [A-Za-z,'-]+){7,}$/

/**
 * True when `name: value` is a sentence, not an assignment:
 * - a word stands before the name on its line (`the secret: keep tests small`, `my one password:
 *   never reuse it`), and the value is a plain word (letters only, not random-looking) that more
 *   words follow, or a code span of letters in backticks (`the shared secret: \`cluster.secret\`,
 *   else…`). YAML and env files start the line with the name (`password: correct horse`), and a
 *   value with a digit or in other quotes is a value (`the secret: hunter22 is…`, `the secret:
 *   "keep tests small"`);
 * - or the value is a quoted sentence of eight words or more (`INVALID_TOKEN: "a header name
 *   contains characters HTTP does not allow"`).
 */
const isProse = (text: string, nameStart: number, value: { readonly start: number; readonly end: number; readonly quoted: boolean }, v: string): boolean => {
  if (value.quoted && SENTENCE.test(v)) return true
  const codeSpan = value.quoted && text[value.start - 1] === "`" && CODE_SPAN.test(v) && !looksRandom(v)
  if (!codeSpan && (value.quoted || !PROSE_WORD.test(v) || looksRandom(v) || !/^[ \t]+[A-Za-z]/.test(text.slice(value.end, value.end + 2)))) return false
  const lineStart = text.lastIndexOf("\n", nameStart - 1) + 1
  return WORD_BEFORE.test(text.slice(Math.max(lineStart, nameStart - 40), nameStart))
}

/** Looks at the name around the trigger word `[at, triggerEnd)`. */
export const assignmentRule = (ctx: ScanContext, at: number, triggerEnd: number): void => {
  const { text } = ctx
  let left = at
  // A name starts after an escape (`\nHF_TOKEN=`, `\u0026token=`): its letters are not the name's.
  while (left > 0 && isNameChar(text.charCodeAt(left - 1)) && escapeBefore(text, left) === 0) if (at - --left > MAX_NAME) return
  let right = triggerEnd
  while (right < text.length && isNameChar(text.charCodeAt(right))) if (++right - triggerEnd > MAX_NAME) return
  // "the token." / "a token-" end a sentence or a word, not a name.
  while (right > triggerEnd && (text[right - 1] === "." || text[right - 1] === "-")) right--
  let nameStart = left
  while (text[nameStart] === "-" || text[nameStart] === ".") nameStart++
  const flag = nameStart - left >= 2 && text[left] === "-"
  // The separator is the cheaper test: most trigger words are not names given a value.
  const sep = separatorAfter(text, right, flag)
  if (sep === undefined) return
  const name = text.slice(nameStart, right)
  const strength = secretNameStrength(name)
  if (strength === undefined) return
  const value = valueAt(text, sep.valueStart, ctx.runs)
  if (value === undefined) return
  const v = text.slice(value.start, value.end)
  const token = tokenAfterWord(text, value, v)
  if (token !== undefined) ctx.findings.push({ start: token.start, end: token.end, kind: "assignment", quoted: false, detail: name })
  if (isInertValue(v, value.quoted)) return
  if (value.quoted && text[value.start - 1] === "`" && isInterpolatedTemplate(v)) return
  if (sep.kind === ":" && sep.spaced && isProse(text, left, value, v)) return
  // `pwd`, `auth`, `credentials`: only a value that looks random (`auth=basic` is a setting).
  if (strength === "random" && !looksLikeShortNameSecret(v)) return
  if (sep.kind === "") {
    // `--name value`: prose says "pass --token to the tool".
    if (!value.quoted && (v.startsWith("-") || PROSE_WORDS.has(v.toLowerCase()))) return
  } else {
    const colon = sep.kind === ":"
    const declared = (colon || sep.spaced) && isDeclared(text, left)
    const after = skipBlanks(text, value.end + (value.quoted ? 1 : 0))
    const rest = /^[^\r\n]{0,4}/.exec(text.slice(after, after + 4))![0]
    if (isCodeValue(v, value.quoted, { name, strength, declared, colon, spaced: sep.spaced, rest })) return
  }
  ctx.findings.push({ start: value.start, end: value.end, kind: sep.kind === "" ? "flag" : "assignment", quoted: value.quoted, detail: name })
}

/** curl's `-u user:password` / `--user user:password` (the trigger is the flag). */
export const userFlagRule = (ctx: ScanContext, at: number, triggerEnd: number): void => {
  const { text } = ctx
  if (at > 0 && !/\s/.test(text[at - 1]!) && escapeBefore(text, at) === 0) return
  const valueStart = text[triggerEnd] === "=" ? triggerEnd + 1 : skipBlanks(text, triggerEnd)
  if (valueStart === triggerEnd) return
  const value = valueAt(text, valueStart)
  // `user:password` is one plain word (or a quoted one); a `{`, `[` or `$` starts something else.
  if (value === undefined || /[{[$]/.test(text[value.start]!)) return
  const colon = indexWithin(text, ":", value.start, value.end - 1)
  if (colon < 0) return
  const password = text.slice(colon + 1, value.end)
  if (isInertValue(password, value.quoted)) return
  ctx.findings.push({ start: colon + 1, end: value.end, kind: "flag", quoted: value.quoted, detail: "curl --user" })
}
