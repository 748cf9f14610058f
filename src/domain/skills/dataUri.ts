import { SKILL_LIMITS } from "../limits.ts"
/**
 * `data:` URIs in SKILL.md: an image pasted into a file Hermes reads on every load. The URI runs from
 * the scheme to the first whitespace, quote, bracket or parenthesis, and its length counts the scheme.
 */

// The lookbehind keeps "metadata:" (a frontmatter key) from reading as a URI.
const DATA_URI = /(?<![A-Za-z0-9+.-])data:[^\s"'`<>()[\]{}]*/gi

/** The length of the longest `data:` URI in `text` (0 when there is none). */
export const longestDataUri = (text: string): number => {
  let longest = 0
  for (const m of text.matchAll(DATA_URI)) longest = Math.max(longest, m[0].length)
  return longest
}

export const dataUriProblem = (text: string): string | null => {
  const longest = longestDataUri(text)
  return longest > SKILL_LIMITS.dataUriMax
    ? `SKILL.md holds a data: URI of ${longest} characters; at most ${SKILL_LIMITS.dataUriMax} are allowed (put images in the drop-in directory by hand)`
    : null
}
