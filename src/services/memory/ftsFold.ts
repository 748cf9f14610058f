/**
 * Words as SQLite's FTS5 tokenizer `unicode61 remove_diacritics 2` (migration 0004) cuts and folds
 * them, in JS, for the dialects whose own full-text parser would cut differently (PostgreSQL's
 * `simple` parser keeps `a.b`, URLs and e-mails as one token, and in the C locale takes every
 * non-ASCII character for a letter). Measured against SQLite's own tokenizer in
 * test/teach/memory-fold.test.ts:
 * - a token is a run of letters, digits and private-use characters (`\p{L}\p{N}\p{Co}`); the
 *   combining accents U+0300–U+036F inside a run stay in it and are dropped;
 * - case folds (a one-letter upper-then-lower round trip, so `ς` and `σ`, `K` (Kelvin) and `k` meet;
 *   `ß` and `ı` stay, as in SQLite);
 * - a Latin letter loses its accents (`é` → `e`, `ǖ` → `u`); other scripts keep theirs (`έ`, `ё`),
 *   as SQLite does.
 * SQLite's tables are of an older Unicode than V8's: a few rare letters (Cherokee case, some Latin
 * letters with two marks) fold differently; docs/REFERENCE.md says so.
 */

const TOKEN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{Co}\u0300-\u036F]*/gu
const ACCENTS = /[\u0300-\u036F]/g
const LATIN = /\p{Script=Latin}/u

// The dotless ı, whose upper case is the ASCII I, stays itself in SQLite.
const OWN_FOLD = new Set(["\u0131"])

const foldChar = (c: string): string => {
  const upper = c.toUpperCase()
  // A round trip that expands (ß → SS) is not SQLite's fold; plain lower case is.
  const lower = [...upper].length === 1 && !OWN_FOLD.has(c) ? upper.toLowerCase() : c.toLowerCase()
  return LATIN.test(c) ? lower.normalize("NFD").replace(ACCENTS, "").normalize("NFC") : lower
}

/** The folded tokens of `text`, in order, as the SQLite index holds them. */
export const ftsTokens = (text: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const m of text.matchAll(TOKEN)) {
    let token = ""
    for (const c of m[0].replace(ACCENTS, "")) token += foldChar(c)
    if (token.length > 0) out.push(token)
  }
  return out
}
