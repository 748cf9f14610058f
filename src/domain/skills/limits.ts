
export const SKILL_MD = "SKILL.md"

/** Bytes of `s` as UTF-8 (what lands on disk and what the size limits count). */
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, "utf8")

/**
 * The longest prefix of `s` that fits in `maxBytes` of UTF-8 without splitting a character
 * (a surrogate pair counts as one character).
 */
export const cutUtf8 = (s: string, maxBytes: number): string => {
  if (utf8Bytes(s) <= maxBytes) return s
  let bytes = 0
  let end = 0
  for (const ch of s) {
    const n = utf8Bytes(ch)
    if (bytes + n > maxBytes) break
    bytes += n
    end += ch.length
  }
  return s.slice(0, end)
}
