/**
 * Supporting file names and the "reviewable text" rule of a push (docs/REFERENCE.md).
 */
import { SKILL_MD, utf8Bytes } from "./limits.ts"
import { SKILL_LIMITS } from "../limits.ts"

/** A plain file name: no `/`, `\`, `..` or NUL, not starting with `.`, not empty, not SKILL.md, ≤ 200 bytes. */
export const fileNameProblem = (name: string): string | null => {
  const shown = JSON.stringify(name)
  if (name.length === 0) return "a file name is empty"
  if (name.includes("\u0000")) return `the file name ${shown} holds a NUL character`
  if (name.includes("/") || name.includes("\\")) return `the file name ${shown} holds a path separator; files must be plain names`
  if (name.includes("..")) return `the file name ${shown} holds '..'`
  if (name.startsWith(".")) return `the file name ${shown} starts with '.'`
  // Case-insensitively: on a case-insensitive file system "skill.md" would overwrite SKILL.md.
  if (name.toLowerCase() === SKILL_MD.toLowerCase()) return `SKILL.md is given as skill_md, not in files`
  const bytes = utf8Bytes(name)
  if (bytes > SKILL_LIMITS.fileNameBytesMax) {
    return `the file name ${shown.slice(0, 40)}… is ${bytes} bytes of UTF-8; at most ${SKILL_LIMITS.fileNameBytesMax} are allowed`
  }
  return null
}

export const REVIEWABLE_TEXT_MESSAGE = "bridge pushes are limited to reviewable text (SKILL.md ≤ 16 KiB, total ≤ 48 KiB)"

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Everything valid UTF-8 (a JS string is valid UTF-8 unless it holds a lone surrogate), no NUL,
 * SKILL.md ≤ 16 KiB, the whole push ≤ 48 KiB. Entries are `[file name, text]`, SKILL.md first.
 */
export const reviewableTextProblem = (entries: ReadonlyArray<readonly [string, string]>): string | null => {
  for (const [file, text] of entries) {
    if (LONE_SURROGATE.test(text)) return `${REVIEWABLE_TEXT_MESSAGE}: '${file}' is not valid UTF-8`
    if (text.includes("\u0000")) return `${REVIEWABLE_TEXT_MESSAGE}: '${file}' holds a NUL character`
  }
  const skillMd = entries.find(([file]) => file === SKILL_MD)
  const skillMdBytes = skillMd === undefined ? 0 : utf8Bytes(skillMd[1])
  if (skillMdBytes > SKILL_LIMITS.skillMdBytesMax) {
    return `${REVIEWABLE_TEXT_MESSAGE}: SKILL.md is ${skillMdBytes} bytes`
  }
  const total = entries.reduce((n, [, text]) => n + utf8Bytes(text), 0)
  if (total > SKILL_LIMITS.totalBytesMax) return `${REVIEWABLE_TEXT_MESSAGE}: the push is ${total} bytes in all`
  return null
}
