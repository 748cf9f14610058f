/**
 * The `agent_skill_put` secret check (docs/REFERENCE.md): where the redactor would mask a value, the
 * value must be a placeholder. It runs the redactor's own scan, so the two can never disagree about
 * what is secret-shaped; a known-prefix token, a JWT or a registered secret is never a placeholder.
 */
import type { ExactSecrets } from "./exact.ts"
import { makeExactSecrets } from "./exact.ts"
import type { Finding } from "./findings.ts"
import { isPlaceholder } from "./placeholders.ts"
import { scan } from "./scan.ts"

const NO_SECRETS = makeExactSecrets([])

const holdsSecretShape = (s: string): boolean => scan(s, true, NO_SECRETS).length > 0

/** Why a value is not a placeholder, for the message. */
const valueHint = (value: string): string => {
  if (value.startsWith("$")) return "a $ENV_VAR must be the whole value, in one case, with no token prefix"
  if (value.startsWith("<")) return "a <...> must be closed, hold no token, $( or backtick, and be quoted when it holds a space"
  return "it looks like a real value"
}

const describe = (f: Finding, value: string): string => {
  switch (f.kind) {
    case "assignment":
    case "flag":
      return `the value of ${f.detail} is not a placeholder (${valueHint(value)})`
    case "authorization":
    case "url-password":
    case "private-key":
      return `${f.detail} is not a placeholder (${valueHint(value)})`
    case "token":
    case "jwt":
    case "exact":
      return `it holds ${f.detail}`
  }
}

const lineOf = (text: string, index: number): number => {
  let line = 1
  for (let i = text.indexOf("\n"); i >= 0 && i < index; i = text.indexOf("\n", i + 1)) line++
  return line
}

/** Secrets known by their shape or value: never a placeholder, and the better name for a span. */
const isShapeKind = (f: Finding): boolean => f.kind === "token" || f.kind === "jwt" || f.kind === "exact"

/** The first finding of `text` that is not a placeholder, if any. */
export const firstSecret = (text: string, secrets: ExactSecrets = NO_SECRETS): Finding | undefined =>
  [...scan(text, false, secrets)]
    .sort((a, b) => a.start - b.start || Number(isShapeKind(b)) - Number(isShapeKind(a)))
    .find((f) => isShapeKind(f) || !isPlaceholder(text.slice(f.start, f.end), f.quoted, holdsSecretShape))

/**
 * Null when `text` (the file `fileName` of a skill push) holds no secret-shaped value that is not a
 * placeholder; else the message for `bridge.skill_invalid`, naming the file and the line.
 */
export const skillSecretProblem = (fileName: string, text: string, secrets: ExactSecrets = NO_SECRETS): string | null => {
  const f = firstSecret(text, secrets)
  if (f === undefined) return null
  const what = describe(f, text.slice(f.start, f.end))
  return `'${fileName}' holds secret-shaped text the inbox card would mask; line ${lineOf(text, f.start)}: ${what}; use a placeholder such as <YOUR_API_KEY> or $ENV_VAR`
}
