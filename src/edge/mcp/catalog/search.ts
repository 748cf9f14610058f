/**
 * Word search over a tool catalog, for `tool_search`. It matches words, not meaning: a query's words
 * and their stems are looked up in each tool's name, description and argument names. Pure and
 * deterministic: the same catalog and query always rank the same tools in the same order.
 */

export interface SearchableTool {
  readonly name: string
  readonly description: string
  /** The tool's argument (input schema property) names. */
  readonly fields: ReadonlyArray<string>
}

/** Words that say nothing about which tool is meant (every entry is a tool; most descriptions say "the"). */
const STOP_WORDS = new Set([
  "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "by", "at", "from", "as", "into", "about",
  "is", "are", "be", "it", "its", "this", "that", "these", "those", "there", "i", "me", "my", "we", "our", "you",
  "your", "how", "what", "which", "when", "where", "who", "do", "does", "can", "could", "should", "would", "will",
  "want", "need", "please", "some", "any", "all", "tool", "tools", "use", "used", "using"
])

/** Lowercase words: runs of letters and digits, so `agent_run_wait` is three words. */
export const wordsOf = (text: string): ReadonlyArray<string> =>
  text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0)

const isVowel = (c: string | undefined) => c !== undefined && "aeiouy".includes(c)

/** "stopp" → "stop", "runn" → "run"; "install" and "press" keep their double letter. */
const undouble = (s: string) => {
  const last = s.at(-1)
  return s.length > 3 && last === s.at(-2) && !isVowel(last) && !"lsz".includes(last ?? "") ? s.slice(0, -1) : s
}

/**
 * A light suffix stripper (plural, then -ing / -ed / -ion, then a final e), applied alike to the
 * catalog and the query, so "deletes", "deleting", "deletion" and "delete" all meet at "delet".
 */
export const stem = (word: string): string => {
  if (word.length <= 3 || /\d/.test(word)) return word
  let s = word
  if (s.endsWith("ies") && s.length > 4) s = `${s.slice(0, -3)}y`
  else if (s.endsWith("sses")) s = s.slice(0, -2)
  else if (s.endsWith("s") && !/(ss|us|is)$/.test(s)) s = s.slice(0, -1)
  if (s.endsWith("ing") && s.length > 5) s = undouble(s.slice(0, -3))
  else if (s.endsWith("ed") && s.length > 4) s = undouble(s.slice(0, -2))
  else if (s.endsWith("ion") && s.length > 5) s = s.slice(0, -3)
  if (s.endsWith("e") && s.length > 3) s = s.slice(0, -1)
  return s
}

/** The distinct stems of a text's meaningful words, in order of first appearance. */
export const termsOf = (text: string): ReadonlyArray<string> => [
  ...new Set(wordsOf(text).filter((w) => !STOP_WORDS.has(w)).map(stem))
]

/** Where a term counts more: a tool's own name says most about it, its description least. */
const WEIGHT = { name: 3, field: 2, description: 1 } as const
/** A query word this long may also match the start of a longer word ("capab" finds "capabilities"). */
const MIN_PREFIX = 4

interface IndexedTool {
  readonly name: string
  readonly order: number
  readonly places: ReadonlyArray<{ readonly terms: ReadonlyArray<string>; readonly weight: number }>
}

export interface SearchIndex {
  readonly tools: ReadonlyArray<IndexedTool>
}

export const buildIndex = (tools: ReadonlyArray<SearchableTool>): SearchIndex => ({
  tools: tools.map((t, order) => ({
    name: t.name,
    order,
    places: [
      { terms: termsOf(t.name), weight: WEIGHT.name },
      { terms: termsOf(t.fields.join(" ")), weight: WEIGHT.field },
      { terms: termsOf(t.description), weight: WEIGHT.description }
    ]
  }))
})

/** How well one query term matches one tool: the best place it appears in, exact beating prefix. */
const termScore = (tool: IndexedTool, term: string): number => {
  let best = 0
  for (const place of tool.places) {
    for (const t of place.terms) {
      // Scores are doubled so an exact match (2×) always beats a prefix match (1×) in the same place.
      const score = t === term ? place.weight * 2 : term.length >= MIN_PREFIX && t.startsWith(term) ? place.weight : 0
      if (score > best) best = score
    }
  }
  return best
}

/**
 * The names of the tools that match `query`, best first, at most `limit`, among those `visible`
 * allows. A tool matching more of the query's words ranks above one matching fewer; then the weight
 * of where they matched; then catalog order. A query naming a tool exactly puts that tool first.
 */
export const search = (
  index: SearchIndex,
  query: string,
  limit: number,
  visible: (name: string) => boolean
): ReadonlyArray<string> => {
  const terms = termsOf(query)
  const exact = query.trim().toLowerCase()
  const ranked = index.tools
    .filter((t) => visible(t.name))
    .map((tool) => {
      const scores = terms.map((term) => termScore(tool, term))
      return {
        tool,
        exact: tool.name === exact ? 1 : 0,
        matched: scores.filter((s) => s > 0).length,
        weight: scores.reduce((a, b) => a + b, 0)
      }
    })
    .filter((r) => r.exact > 0 || r.matched > 0)
  ranked.sort((a, b) => b.exact - a.exact || b.matched - a.matched || b.weight - a.weight || a.tool.order - b.tool.order)
  return ranked.slice(0, limit).map((r) => r.tool.name)
}
