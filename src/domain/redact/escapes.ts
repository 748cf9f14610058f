/**
 * Escape sequences that end just before a secret. Tool results and Hermes error bodies often carry
 * JSON as a string (`"stdout": "$ env\nHF_TOKEN=…"`, Go's `\u0026`), and URLs carry percent-encoded
 * text (`q=a%20hf_…`). The letter or digit before the secret (`n` of `\n`, `f` of `\u002f`, `0` of
 * `%20`) then belongs to the escape, not to a word: the secret still starts a word there.
 */

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
const BACKSLASH = 92

/**
 * Length of the escape sequence that ends at `at` (`\n`, `\r`, `\t`, `\b`, `\f`, `\uXXXX`, `%XX`),
 * or 0 when the text before `at` is no escape.
 */
export const escapeBefore = (text: string, at: number): number => {
  if (at >= 2 && text.charCodeAt(at - 2) === BACKSLASH && "nrtbf".includes(text[at - 1]!)) return 2
  if (at >= 3 && text[at - 3] === "%" && isHex(text.charCodeAt(at - 2)) && isHex(text.charCodeAt(at - 1))) return 3
  if (at >= 6 && text.charCodeAt(at - 6) === BACKSLASH && text[at - 5] === "u") {
    for (let i = at - 4; i < at; i++) if (!isHex(text.charCodeAt(i))) return 0
    return 6
  }
  return 0
}
