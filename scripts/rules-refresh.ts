/**
 * Regenerates `src/domain/redact/rules/gitleaks/upstream.ts` from Betterleaks' default rule set
 * (config/betterleaks.toml of github.com/betterleaks/betterleaks, MIT): reads a local copy of that
 * file, translates each rule into the redactor's gitleaks-shaped data (`GitleaksRule`) and writes
 * the data file. Nothing is fetched; the repo never depends on the upstream checkout.
 *
 *   git clone https://github.com/betterleaks/betterleaks /tmp/betterleaks
 *   npx tsx scripts/rules-refresh.ts /tmp/betterleaks/config/betterleaks.toml <commit> <version>
 *
 * Translation (Go's RE2 to JavaScript, written out so no flag is needed at run time):
 * `(?i)` / `(?i:…)` as both cases of each letter (also inside classes), `(?-i:…)` as written,
 * `(?s:.)` as `[\s\S]`, `(?P<name>` as a plain group, POSIX classes as ranges, `\z` as `(?![\s\S])`;
 * a leading non-capturing group of one branch is inlined, so the literal it starts with is the
 * rule's trigger. The token terminator also accepts `&`, `,`, `)`, `]`, `}`, `<`, `>` (the ends of a
 * value in the URLs, JSON and markup an agent writes). Betterleaks' CEL `filter` is read for the
 * forms it takes in the rule set: `entropy(secret) <= N` (the least entropy), `matchesAny(secret |
 * match | line, […])` (allow-lists), `!matchesAny(secret, […])` (the secret must match),
 * `containsAny(secret, […])` (stop-words); a term on the file path is dropped (a stream has none);
 * the least entropy of a rule whose token is all hex digits is at most `HEX_ENTROPY`.
 * A rule whose filter holds anything else is left out and named in the header, as are the rules
 * left out by design (`LEFT_OUT`).
 */
import fs from "node:fs"
import path from "node:path"

const [source, commit = "unknown", version = "unknown"] = process.argv.slice(2)
if (source === undefined) {
  console.error("usage: tsx scripts/rules-refresh.ts <path to betterleaks.toml> [commit] [version]")
  process.exit(2)
}
const OUT = path.resolve(import.meta.dirname, "..", "src/domain/redact/rules/gitleaks/upstream.ts")

// ---- A reader for the TOML the rule set is written in: `[[rules]]` tables of strings ('''…''',
// '…', "…"), numbers, booleans and arrays of strings; `[[rules.required]]` tables are skipped.
type Value = string | number | boolean | ReadonlyArray<string>
type Table = Record<string, Value>

const readToml = (text: string): { top: Table; rules: Array<Table> } => {
  const top: Table = {}
  const rules: Array<Table> = []
  let current: Table | undefined = top
  let i = 0
  const skipSpace = () => { while (i < text.length && /[ \t\r\n]/.test(text[i]!)) i++ }
  const skipLine = () => { while (i < text.length && text[i] !== "\n") i++ }
  const basic = (): string => {
    i++ // "
    let s = ""
    while (text[i] !== '"') {
      if (text[i] === "\\") {
        const n = text[i + 1]!
        const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\" }
        if (n === "u") { s += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)); i += 6; continue }
        s += map[n] ?? n
        i += 2
        continue
      }
      s += text[i++]
    }
    i++
    return s
  }
  const value = (): Value => {
    if (text.startsWith("'''", i)) {
      const end = text.indexOf("'''", i + 3)
      let s = text.slice(i + 3, end)
      if (s.startsWith("\n")) s = s.slice(1)
      i = end + 3
      return s
    }
    if (text[i] === "'") { const end = text.indexOf("'", i + 1); const s = text.slice(i + 1, end); i = end + 1; return s }
    if (text[i] === '"') return basic()
    if (text[i] === "[") {
      i++
      const items: Array<string> = []
      for (;;) {
        skipSpace()
        if (text[i] === "#") { skipLine(); continue }
        if (text[i] === "]") { i++; return items }
        if (text[i] === ",") { i++; continue }
        const v = value()
        if (typeof v !== "string") throw new Error(`array of non-strings at ${i}`)
        items.push(v)
      }
    }
    const m = /^(true|false|-?\d+(?:\.\d+)?)/.exec(text.slice(i, i + 40))
    if (m === null) throw new Error(`unreadable value at ${i}: ${text.slice(i, i + 40)}`)
    i += m[0].length
    return m[1] === "true" ? true : m[1] === "false" ? false : Number(m[1])
  }
  while (i < text.length) {
    skipSpace()
    if (i >= text.length) break
    if (text[i] === "#") { skipLine(); continue }
    if (text.startsWith("[[rules]]", i)) { current = {}; rules.push(current); skipLine(); continue }
    if (text[i] === "[") { current = undefined; skipLine(); continue } // [[rules.required]] and the like
    const key = /^[A-Za-z0-9_.]+/.exec(text.slice(i, i + 80))![0]
    i += key.length
    skipSpace()
    if (text[i] !== "=") throw new Error(`expected = after ${key}`)
    i++
    skipSpace()
    const v = value()
    if (current !== undefined) current[key] = v
  }
  return { top, rules }
}

// ---- RE2 to JavaScript.
const swapCase = (c: string): string => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())
const isLetter = (c: string): boolean => /[A-Za-z]/.test(c)
const POSIX: Record<string, string> = {
  alnum: "a-zA-Z0-9", alpha: "a-zA-Z", digit: "0-9", lower: "a-z", upper: "A-Z", space: "\\s", xdigit: "0-9A-Fa-f", word: "\\w", punct: "!-\\/:-@\\[-`{-~"
}

/** A character class starting at `src[i]` (`[`), translated; `fold`: add the other case of each letter. */
const translateClass = (src: string, i: number, fold: boolean): { out: string; end: number } => {
  let j = i + 1
  let open = "["
  if (src[j] === "^") { open += "^"; j++ }
  let out = ""
  if (src[j] === "]") { out += "\\]"; j++ }
  let extra = ""
  while (j < src.length && src[j] !== "]") {
    if (src.startsWith("[:", j)) {
      const close = src.indexOf(":]", j)
      out += POSIX[src.slice(j + 2, close)] ?? ""
      j = close + 2
      continue
    }
    if (src[j] === "\\") { out += src.slice(j, j + 2); j += 2; continue }
    const c = src[j]!
    if (src[j + 1] === "-" && src[j + 2] !== undefined && src[j + 2] !== "]") {
      const d = src[j + 2]!
      out += `${c}-${d}`
      if (fold && isLetter(c) && isLetter(d) && (c === c.toLowerCase()) === (d === d.toLowerCase())) extra += `${swapCase(c)}-${swapCase(d)}`
      j += 3
      continue
    }
    out += c === "[" ? "\\[" : c
    if (fold && isLetter(c)) extra += swapCase(c)
    j++
  }
  // The other cases first: a `-` at the end of the class stays a literal.
  return { out: `${open}${extra}${out}]`, end: j + 1 }
}

/** `src` (RE2) as a JavaScript regex source with the same meaning and no flags. */
export const translateRegex = (src: string): string => {
  let out = ""
  // Per open group: the flags in force inside it (case folding, dot matches newline).
  const stack: Array<{ i: boolean; s: boolean }> = [{ i: false, s: false }]
  const flags = () => stack[stack.length - 1]!
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (c === "\\") {
      const n = src[i + 1]!
      if (n === "z") out += "(?![\\s\\S])"
      else if (n === "A") out += "^"
      else if (n === "x") { out += src.slice(i, i + 4); i += 4; continue }
      else if (flags().i && isLetter(n) && !/[dDwWsSbBnrtfv]/.test(n)) out += `[${n}${swapCase(n)}]`
      else out += `\\${n}`
      i += 2
      continue
    }
    if (c === "[") {
      const cls = translateClass(src, i, flags().i)
      out += cls.out
      i = cls.end
      continue
    }
    if (c === "(") {
      const m = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(src.slice(i))
      if (m !== null && m[0] !== "(?:" ) {
        const next = { ...flags() }
        for (const f of m[1]!) if (f === "i" || f === "s") next[f] = true
        for (const f of m[2] ?? "") if (f === "i" || f === "s") next[f] = false
        if (m[3] === ")") { stack[stack.length - 1] = next; i += m[0].length; continue } // (?i) to the group's end
        stack.push(next)
        out += "(?:"
        i += m[0].length
        continue
      }
      const named = /^\(\?P?<[A-Za-z_]\w*>/.exec(src.slice(i))
      if (named !== null) { stack.push({ ...flags() }); out += "("; i += named[0].length; continue }
      stack.push({ ...flags() })
      const look = /^\(\?(?::|<?[=!])/.exec(src.slice(i))
      out += look !== null ? look[0] : "("
      i += look !== null ? look[0].length : 1
      continue
    }
    if (c === ")") { stack.pop(); out += ")"; i++; continue }
    if (c === ".") { out += flags().s ? "[\\s\\S]" : "."; i++; continue }
    out += flags().i && isLetter(c) ? `[${c}${swapCase(c)}]` : c
    i++
  }
  return inlineLeadingGroup(out)
}

/** Closing index of the group opening at `i`, and whether it has a top-level `|`. */
const groupAt = (src: string, i: number): { close: number; alternation: boolean } | undefined => {
  let depth = 0
  let alternation = false
  for (let j = i; j < src.length; j++) {
    const c = src[j]
    if (c === "\\") { j++; continue }
    if (c === "[") { j++; while (j < src.length && src[j] !== "]") j += src[j] === "\\" ? 2 : 1; continue }
    if (c === "(") depth++
    else if (c === ")") { depth--; if (depth === 0) return { close: j, alternation } }
    else if (c === "|" && depth === 1) alternation = true
  }
  return undefined
}

/** `(?:(?:a|b)x)y` as `(?:a|b)xy`: a leading group of one branch, not quantified, says nothing. */
const inlineLeadingGroup = (src: string): string => {
  const lead = src.startsWith("\\b") ? 2 : 0
  for (;;) {
    if (!src.startsWith("(?:", lead)) return src
    const g = groupAt(src, lead)
    if (g === undefined || g.alternation || /[?*+{]/.test(src[g.close + 1] ?? "")) return src
    src = src.slice(0, lead) + src.slice(lead + 3, g.close) + src.slice(g.close + 1)
  }
}

/** Where a token ends: upstream's terminators, with the ends of a value in URLs, JSON and markup. */
const TERMINATORS: ReadonlyArray<readonly [string, string]> = [
  [String.raw`(?:\\?['"\x60]|[\s;]|\\[nr]|$)`, String.raw`(?:\\?['"\x60]|[\s;&,)\]}<>]|\\[nr]|$)`],
  [String.raw`(?:[\x60'"\s;]|\\[nr]|$)`, String.raw`(?:[\x60'"\s;&,)\]}<>]|\\[nr]|$)`],
  [String.raw`(?:$|[\\'"\x60\s<),])`, String.raw`(?:$|[\\'"\x60\s<),&;\]}>])`]
]
const widenTerminators = (src: string): string => TERMINATORS.reduce((s, [from, to]) => s.split(from).join(to), src)

// ---- Betterleaks' CEL filters, in the forms the rule set uses.
interface Filter {
  entropy?: number
  allow: Array<{ target: "secret" | "match" | "line"; regex: string }>
  require: Array<string>
  stopwords: Array<string>
}

/** The string literals of a CEL list (`[`…`, "…"]`). */
const celStrings = (list: string): Array<string> =>
  [...list.matchAll(/`([^`]*)`|"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? m[2]!.replace(/\\(.)/g, "$1"))

/** Splits at top-level `||`. */
const disjuncts = (expr: string): Array<string> => {
  const parts: Array<string> = []
  let depth = 0
  let quote: string | undefined
  let from = 0
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!
    if (quote !== undefined) { if (c === "\\" && quote === '"') i++; else if (c === quote) quote = undefined; continue }
    if (c === "`" || c === '"') quote = c
    else if ("([{".includes(c)) depth++
    else if (")]}".includes(c)) depth--
    else if (c === "|" && expr[i + 1] === "|" && depth === 0) { parts.push(expr.slice(from, i)); from = i + 2; i++ }
  }
  parts.push(expr.slice(from))
  return parts.map((p) => p.trim()).filter((p) => p.length > 0)
}

const readFilter = (expr: string | undefined): Filter | string => {
  const f: Filter = { allow: [], require: [], stopwords: [] }
  if (expr === undefined) return f
  for (const term of disjuncts(expr.replace(/^\s*\/\/.*$/gm, ""))) {
    const t = term.replace(/\bfilter\./g, "")
    let m: RegExpExecArray | null
    if ((m = /^entropy\(finding\["secret"\]\)\s*<=?\s*([\d.]+)$/.exec(t)) !== null) { f.entropy = Number(m[1]); continue }
    if ((m = /^(!?)matchesAny\(finding\["(secret|match|line)"\],\s*(\[[\s\S]*\])\)$/.exec(t)) !== null) {
      const regexes = celStrings(m[3]!).map(translateRegex)
      if (m[1] === "!") {
        if (m[2] !== "secret") return `a filter that requires the ${m[2]} to match`
        f.require.push(...regexes)
      } else f.allow.push(...regexes.map((regex) => ({ target: m![2] as "secret", regex })))
      continue
    }
    if ((m = /^containsAny\(finding\["secret"\],\s*(\[[\s\S]*\])\)$/.exec(t)) !== null) { f.stopwords.push(...celStrings(m[1]!).map((w) => w.toLowerCase())); continue }
    if (/^matchesAny\(\(?(?:attributes\["path"\]|get\(attributes, "path")/.test(t)) continue // file paths: a stream has none
    return `a filter of another form (${t.slice(0, 60).replace(/\s+/g, " ")}…)`
  }
  return f
}

// ---- The rules.
/** Left out by design, with why (the header lists them). */
const LEFT_OUT: Readonly<Record<string, string>> = {
  "generic-api-key": "replaced by the assignment rule",
  "private-key": "the bridge's PEM rule, which keeps the BEGIN and END lines",
  "curl-auth-user": "the bridge's curl --user rule, which keeps the user name"
}
/**
 * Rules that upstream reports only as a part of another (`skipReport`) and that name no secret
 * (a host, an account or tenant id, a public address): left out. The other parts are secrets or
 * key ids, masked like any rule's match.
 */
const NOT_SECRET_PARTS: ReadonlySet<string> = new Set([
  "artifactory-jfrog-url", "azure-client-id", "azure-storage-account-name", "azure-tenant-id", "canva-client-id",
  "clickhouse-cloud-key-id", "cloudinary-cloud-name", "planetscale-id", "plivo-auth-id", "polymarket-address",
  "salesforce-instance-url.1", "snowflake-account-host.1", "supabase-project-url", "tableau-personal-access-token-name.1",
  "tableau-server-host.1"
])

/**
 * A token of hex digits has at most 4 bits of entropy per character, and a random one of 32 to 64
 * digits about 3.7 to 3.9: upstream's least entropy of 4 (LangSmith's keys) turns away most real
 * keys. A redactor would rather mask, so for a rule whose repeated classes are all hex digits the
 * least entropy is at most this.
 */
const HEX_ENTROPY = 3
const hexBody = (regex: string): boolean => {
  const repeated = [...regex.matchAll(/\[([^\]]*)\]\{(\d+)/g)].filter((m) => Number(m[2]) >= 8).map((m) => m[1]!)
  return repeated.length > 0 && repeated.every((c) => /^(?:0-9|a-f|A-F)+$/.test(c))
}

const toml = readToml(fs.readFileSync(source, "utf8"))
const kept: Array<string> = []
const skipped: Array<string> = []
for (const r of toml.rules) {
  const id = r.id as string
  if (LEFT_OUT[id] !== undefined) { skipped.push(`\`${id}\` (${LEFT_OUT[id]})`); continue }
  if (r.regex === undefined || r.path !== undefined) { skipped.push(`\`${id}\` (needs a file path)`); continue }
  if (NOT_SECRET_PARTS.has(id)) { skipped.push(`\`${id}\` (a part of a composite rule that is no secret)`); continue }
  const filter = readFilter(r.filter as string | undefined)
  if (typeof filter === "string") { skipped.push(`\`${id}\` (${filter})`); continue }
  const regex = translateRegex(widenTerminators(r.regex as string))
  new RegExp(regex, "yd") // throws when the translation is no JavaScript regex
  const fields: Array<string> = [
    `id: ${JSON.stringify(id)}`,
    `keywords: ${JSON.stringify((r.keywords as ReadonlyArray<string> | undefined ?? []).map((k) => k.toLowerCase()))}`,
    `regex: ${JSON.stringify(regex)}`
  ]
  if (typeof r.secretGroup === "number" && r.secretGroup > 0) fields.push(`group: ${r.secretGroup}`)
  const entropy = filter.entropy !== undefined && hexBody(regex) ? Math.min(filter.entropy, HEX_ENTROPY) : filter.entropy
  if (entropy !== undefined) fields.push(`entropy: ${entropy}`)
  const allow = [
    ...filter.allow,
    ...(filter.stopwords.length > 0 ? [{ target: "stopwords", words: filter.stopwords }] : [])
  ]
  if (allow.length > 0) fields.push(`allow: ${JSON.stringify(allow)}`)
  if (filter.require.length > 0) fields.push(`require: ${JSON.stringify(filter.require)}`)
  kept.push(`  { ${fields.join(", ")} },`)
}

const header = `/**
 * GENERATED by scripts/rules-refresh.ts; do not edit by hand (docs/RELIABILITY.md, "Secret formats").
 *
 * Upstream: Betterleaks (gitleaks' successor, same maintainers), config/betterleaks.toml of
 * github.com/betterleaks/betterleaks, ${version}, commit ${commit}: ${kept.length} of its ${toml.rules.length} rules,
 * translated from Go's RE2 to JavaScript and from its CEL filters to entropy, allow-lists,
 * required matches and stop-words (see the script; the least entropy of an all-hex token is at
 * most ${HEX_ENTROPY}). Refresh:
 *   npx tsx scripts/rules-refresh.ts <path to betterleaks.toml> <commit> <version>
 *
 * Left out: ${skipped.join(", ")}.
 *
 * The rules are used under the MIT licence of Betterleaks:
 *
 * MIT License
 *
 * Copyright (c) 2026 Zachary Rice
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 */
import type { GitleaksRule } from "./rule.ts"

export const UPSTREAM = { name: "betterleaks", version: ${JSON.stringify(version)}, commit: ${JSON.stringify(commit)}, rules: ${toml.rules.length} } as const

export const UPSTREAM_RULES: ReadonlyArray<GitleaksRule> = [
`
fs.writeFileSync(OUT, `${header}${kept.join("\n")}\n]\n`)
console.log(`wrote ${path.relative(process.cwd(), OUT)}: ${kept.length} rules of ${toml.rules.length}; left out ${skipped.length}`)
for (const s of skipped) console.log(`  left out ${s}`)
