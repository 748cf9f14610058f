/**
 * Turns a user's search text into an FTS5 MATCH expression that cannot carry FTS syntax: every
 * term becomes a double-quoted string (inner quotes doubled), so `OR`, `NEAR(`, `col:`, `^`, `-`,
 * parentheses and stray quotes are only ever text. What the user may express is kept on purpose:
 * a "quoted phrase" stays a phrase, and a word ending in `*` stays a prefix query.
 *
 * Terms are OR-ed: bm25 ranks notes that match more (and rarer) terms first, which suits recall
 * from memory better than requiring every word.
 */
export interface FtsTerm {
  readonly text: string
  readonly phrase: boolean
  readonly prefix: boolean
}

/** Queries beyond this many terms keep the first ones (a note search, not a document). */
export const MAX_TERMS = 32

// A term must hold something the unicode61 tokenizer indexes, or it can match nothing.
const SEARCHABLE = /[\p{L}\p{N}]/u

/** Splits user text into terms: "quoted phrases" (an unclosed quote runs to the end) and words. */
export const parseTerms = (query: string): ReadonlyArray<FtsTerm> => {
  const terms: Array<FtsTerm> = []
  const re = /"([^"]*)"?|(\S+)/g
  for (const m of query.matchAll(re)) {
    if (m[1] !== undefined) {
      const text = m[1].trim()
      terms.push({ text, phrase: true, prefix: false })
    } else if (m[2] !== undefined) {
      const word = m[2]
      const stripped = word.replace(/\*+$/, "")
      // A word with an inner quote (a"b) is split by the regex; what is left is plain text.
      terms.push({ text: stripped.replace(/"/g, " ").trim(), phrase: false, prefix: stripped.length < word.length })
    }
  }
  return terms.filter((t) => SEARCHABLE.test(t.text)).slice(0, MAX_TERMS)
}

// SQLite reads a query string only up to a NUL, which would leave a quote open; controls are
// separators to the tokenizer anyway, so they become spaces.
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g

const quote = (s: string): string => `"${s.replace(CONTROLS, " ").replace(/"/g, '""')}"`

/** The FTS5 MATCH expression for parsed terms (at least one). */
export const ftsMatchOf = (terms: ReadonlyArray<FtsTerm>): string =>
  terms.map((t) => (t.prefix ? `${quote(t.text)} *` : quote(t.text))).join(" OR ")

/** The MATCH expression for the query, or null when nothing searchable is left. */
export const ftsMatch = (query: string): string | null => {
  const terms = parseTerms(query)
  return terms.length === 0 ? null : ftsMatchOf(terms)
}
