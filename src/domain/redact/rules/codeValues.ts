/**
 * Values of secret-shaped names that are code naming a value, not the value: they reveal nothing
 * and are left as written. Source code is full of them (`token: string`, `const token = raw`,
 * `{ progressToken: token }`, `content_key: DELETE_CONTENT_KEY`), and masking them would make the
 * redactor's output unreadable for no gain. A value is code when it is unquoted and:
 *
 * - an identifier in a declaration (`const`, `let`, `readonly`, ... or a parameter after `(`);
 * - an identifier followed by an operator (`token ?? ""`, `d = {`);
 * - an identifier that is itself a secret-shaped variable name of two or more words
 *   (`accessToken`, `DELETE_CONTENT_KEY`), or the name's own last word (`{ token: token }`);
 * - after `:`, a capitalised type name followed by `)`, `,`, `=`, `|`, `&`, `;`, `>`, `[`, `<`, `{`,
 *   or ending the line in a declaration (`secret: Buffer)`, `readonly secrets: ExactSecrets`);
 * - in a declaration, a regex literal (`/…/`).
 *
 * A weak name (`*_KEY`, `KEY`, `*PASS`) in a declaration, written `NAME = value` with blanks, or
 * with a quoted value after a colon (JSON, YAML) keeps its value unless the value looks random (a digit among letters, mixed case, or
 * 24 characters that are not words) and is 8 characters or more: `ERROR_META_KEY = "agent-bridge/error"`
 * is a map key, `type HourCycleKey = "h12"` a type. A number literal (`readonly STENCIL_PASS: 0x0B96`) is code.
 */
import type { NameStrength } from "../names.ts"
import { nameWords, secretNameStrength } from "../names.ts"

export interface AssignmentContext {
  /** The bare name (`HF_TOKEN`, `config.apiKey`). */
  readonly name: string
  readonly strength: NameStrength
  /** The name is declared in code: after `const`, `let`, `readonly`, ..., or a `(`. */
  readonly declared: boolean
  /** Written `NAME: value`. */
  readonly colon: boolean
  /** Blanks around the `=` or after the `:`. */
  readonly spaced: boolean
  /** The text after the value and the blanks after it, up to the end of its line (a few characters). */
  readonly rest: string
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const TYPE_NAME = /^[A-Z][A-Za-z]*$/
const AFTER_TYPE = new Set([")", ",", "=", "|", "&", ";", ">", "[", "<", "{"])
/** An expression goes on: `token ?? ""`, `d = {`, `a || b`, `x === y`, `a + b`, `c ? d : e`. */
const OPERATOR = /^(?:\?\?|\|\||&&|[=!]==?|=\s|[+*%]\s|\?\s)/
// Not `export`, `declare`, `local`: shell writes `export TOKEN=value`.
const DECLARATION = /(?:^|[\s(])(?:const|let|var|readonly|private|public|protected|static|val|def)\s+$/

/**
 * True when the text just before the name (on its line) declares it in code: a keyword or a `(`.
 * The caller also requires `NAME: value` or `NAME = value` with blanks, since shell writes
 * `readonly TOKEN=value` and `(TOKEN=value cmd)`.
 */
export const isDeclared = (text: string, nameStart: number): boolean => {
  let i = nameStart
  while (i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) i--
  if (text[i - 1] === "(") return true
  // Only the 40 characters before the name matter, and only on its line.
  const before = text.slice(Math.max(0, nameStart - 40), nameStart)
  return DECLARATION.test(before.slice(before.lastIndexOf("\n") + 1))
}

/** A word, or words joined in camel case (`Clock`, `MemoMap`, `keyProps`), or an acronym (`STM`). */
const CAMEL_WORDS = /^(?:[A-Za-z][a-z]*(?:[A-Z][a-z]+)*|[A-Z]+)$/

/**
 * A digit among letters, mixed case inside a part that is not camel-case words (`effect/Layer/MemoMap`
 * and `!keyProps.found` are words), or 24 characters that are not words.
 */
export const looksRandom = (v: string): boolean =>
  (/\d/.test(v) && /[A-Za-z]/.test(v)) ||
  (/[A-Z]/.test(v.slice(1)) && /[a-z]/.test(v) && !v.split(/[^A-Za-z0-9]+/).every((p) => p === "" || CAMEL_WORDS.test(p))) ||
  (v.length >= 24 && !/^[a-z]+(?:[-_/. ][a-z]+)*$/i.test(v))

/** A number literal of code (`0x0B96`, `0b1010`, `0o755`). */
const NUMBER_LITERAL = /^(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+)n?$/

/**
 * The value of a short generic name (`pwd`, `auth`, `credentials`) that is a secret: random-looking
 * and 8 characters or more (`auth: "oauth2"` names a scheme).
 */
export const looksLikeShortNameSecret = (v: string): boolean => v.length >= 8 && looksRandom(v)

const isVariableName = (v: string, ctx: AssignmentContext): boolean => {
  const words = nameWords(v)
  if (words.length >= 2 && secretNameStrength(v) !== undefined) return true
  const own = nameWords(ctx.name)
  return words.length === 1 && words[0] === own[own.length - 1]
}

/**
 * True when the unquoted or quoted value `v` is code in this context (see the module comment).
 * `NAME=value` with no blanks is how shell, env files, query strings and flags write a value: there
 * nothing is taken for code (`HF_TOKEN=Your_Key`, `TOKEN=abc&&run`).
 */
export const isCodeValue = (v: string, quoted: boolean, ctx: AssignmentContext): boolean => {
  if (!ctx.colon && !ctx.spaced) return false
  // A weak name written `NAME: "value"` is JSON or YAML data, where such keys are common (an
  // approval's `"pattern_key": "delete in root path"`): likewise only a random-looking value.
  if (ctx.strength === "weak" && (ctx.declared || !ctx.colon || quoted) && !looksLikeShortNameSecret(v)) return true
  if (quoted || v.startsWith("$")) return false
  // `implicitKey: !explicitKey && …`: a negated variable.
  if (/^!+[A-Za-z_$][\w$.]*$/.test(v) && !looksRandom(v.replace(/^!+/, ""))) return true
  if (NUMBER_LITERAL.test(v) && (ctx.declared || ctx.spaced)) return true
  if (ctx.declared && v.startsWith("/")) return true
  if (!IDENTIFIER.test(v)) return false
  // `pair.srcToken = collItem;`: an identifier ending a statement.
  if (ctx.declared || OPERATOR.test(ctx.rest) || isVariableName(v, ctx) || (ctx.spaced && ctx.rest.startsWith(";"))) return true
  const next = ctx.rest[0] ?? ""
  return ctx.colon && TYPE_NAME.test(v) && (AFTER_TYPE.has(next) || (next === "" && ctx.declared))
}
