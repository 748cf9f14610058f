/**
 * Redactor throughput: MB/s on 8 MB of mixed, realistic agent-transcript text (prose, code, shell
 * sessions, JSON tool results, logs, diffs) in which 0.1% of the bytes are secrets, for the
 * Redactor and, in the same run, for a baseline: one precompiled alternation regex of the same rule
 * families, applied with `String.replace`. Prints both, and their ratio (Redactor time / baseline
 * time), and how many format rules it applies. Also checks that the Redactor left no secret visible,
 * and counts its false positives per MB on a real text corpus that is not ours (`foreignCorpus.ts`:
 * the docs and sources of effect, typescript and yaml in node_modules; every span masked there is
 * one). Goals (issue 23): ≥ 400 format rules, ≤ 0.6× the baseline's time, ≤ 1 false positive per MB.
 *
 *   npx tsx scripts/bench-redactor.ts [MB=8] [runs=7]
 */
import fs from "node:fs"
import path from "node:path"
import { makeRedaction, MASK } from "../src/domain/redact/redact.ts"
import { FORMAT_RULES } from "../src/domain/redact/rules/gitleaks/gitleaks.ts"
import { GITLEAKS_RULES } from "../src/domain/redact/rules/gitleaks/data.ts"
import { UPSTREAM, UPSTREAM_RULES } from "../src/domain/redact/rules/gitleaks/upstream.ts"
import { foreignCorpus } from "./foreignCorpus.ts"
import { CONTEXTS, embed, FORMATS, leakFinder, makeSecrets, mulberry32, pick } from "../test/redact/corpus.ts"
import { bestTimes } from "./benchTiming.ts"

const MB = Number(process.argv[2] ?? 8)
const RUNS = Number(process.argv[3] ?? 7)
const ROOT = path.resolve(import.meta.dirname, "..")
const rng = mulberry32(4242)

/** Real code and prose to draw from: this repo's sources and installed READMEs. */
const pool = (): { code: Array<string>; prose: Array<string> } => {
  const code: Array<string> = []
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (p.endsWith(".ts") && !p.includes(`${path.sep}redact${path.sep}`) && !p.includes(`${path.sep}sim${path.sep}`)) code.push(fs.readFileSync(p, "utf8"))
    }
  }
  walk(path.join(ROOT, "src"))
  walk(path.join(ROOT, "node_modules", "effect", "src", "internal"))
  const prose = ["effect", "yaml", "fast-check", "@modelcontextprotocol/sdk", "typescript", "@effect/sql"]
    .map((p) => path.join(ROOT, "node_modules", p, "README.md"))
    .filter((f) => fs.existsSync(f))
    .flatMap((f) => fs.readFileSync(f, "utf8").split(/\n\n+/))
  return { code, prose }
}

const HEX = "0123456789abcdef"
const hex = (n: number): string => Array.from({ length: n }, () => HEX[Math.floor(rng() * 16)]).join("")
const excerpt = (s: string, max: number): string => {
  const start = Math.floor(rng() * Math.max(1, s.length - max))
  return s.slice(start, start + Math.floor(max / 2 + rng() * (max / 2)))
}

/** One transcript turn of a kind picked at random. */
const turn = (p: { code: Array<string>; prose: Array<string> }): string => {
  switch (Math.floor(rng() * 6)) {
    case 0: return `assistant: ${pick(rng, p.prose)}\n\n${pick(rng, p.prose)}\n`
    case 1: return "```ts\n" + excerpt(pick(rng, p.code), 2400) + "\n```\n"
    case 2: return `$ npm test -- --reporter=dot\n> vitest run\n${Array.from({ length: 8 }, (_, i) => ` ✓ test/unit/case${i}.test.ts (${Math.floor(rng() * 40)} tests) ${Math.floor(rng() * 900)}ms`).join("\n")}\n Test Files  8 passed (8)\n`
    case 3: return JSON.stringify({ type: "tool.result", tool: "terminal", call_id: `call_${hex(24)}`, output: { stdout: excerpt(pick(rng, p.prose), 600), exit_code: 0 }, usage: { input_tokens: Math.floor(rng() * 9000), output_tokens: Math.floor(rng() * 900) } }) + "\n"
    case 4: return Array.from({ length: 6 }, () => `2026-01-0${1 + Math.floor(rng() * 9)}T10:${Math.floor(rng() * 60)}:00Z INFO worker[${Math.floor(rng() * 99)}]: job ${hex(8)} finished in ${Math.floor(rng() * 5000)}ms (commit ${hex(40)})`).join("\n") + "\n"
    default: return `diff --git a/src/x.ts b/src/x.ts\nindex ${hex(7)}..${hex(7)} 100644\n` + excerpt(pick(rng, p.code), 800).split("\n").map((l) => (rng() < 0.5 ? `+${l}` : ` ${l}`)).join("\n") + "\n"
  }
}

/** `mb` megabytes of transcript with 0.1% of its bytes in secrets; returns the text and the secrets' cores. */
const transcript = (mb: number): { text: string; cores: Array<string> } => {
  const p = pool()
  const secrets = makeSecrets(FORMATS.length * 20, 777)
  const target = mb * 1e6
  const parts: Array<string> = []
  const cores: Array<string> = []
  let bytes = 0
  let secretBytes = 0
  while (bytes < target) {
    let piece: string
    if (secretBytes < bytes * 0.001) {
      const s = pick(rng, secrets)
      piece = (embed(s, pick(rng, CONTEXTS)) ?? embed(s, "log")!) + "\n"
      secretBytes += s.value.length
      cores.push(s.core)
    } else piece = turn(p)
    parts.push(piece)
    bytes += piece.length
  }
  return { text: parts.join("").slice(0, target), cores }
}

/** The baseline: one precompiled alternation of the rule families, as a simple redactor writes it. */
const BASELINE = new RegExp(
  [
    "(?:hal0bk_|github_pat_|api_org_|hf_|sk-|sk_live_|rk_live_|sk_test_|gh[pousr]_|glpat-|xox[abprs]-|xapp-)[A-Za-z0-9_-]{10,}",
    "(?:AKIA|ASIA)[A-Z0-9]{16}",
    "AIza[A-Za-z0-9_-]{30,}",
    "eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*",
    "-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    "\\b(?:bearer|basic)\\s+[A-Za-z0-9._~+/=-]+",
    "[a-z][a-z0-9+.-]*://[^\\s:@/]*:[^\\s@/]+@",
    // Starting at the secret word (not at the start of the name) keeps this branch fast.
    "(?:secret|token|passw(?:or)?d|api_?key|access_?key|private_?key|_key|pass)[\\w.-]*[\"']?\\s*[=:]\\s*[\"']?[^\\s\"',;&]+"
  ].join("|"),
  "gi"
)

const { text, cores } = transcript(MB)
const size = Buffer.byteLength(text) / 1e6
const r = makeRedaction(["hermes-key-0f1e2d3c4b5a69788796", "admin-key-a1b2c3d4e5f60718293a"])
// The same text as a run's events: pages of 100 events of ~4 KiB, each page with its context.
// Each event is its own string, as rows read from the ledger are (not slices of one big string).
const events = text.match(/[\s\S]{1,4096}/g)!.map((e) => Buffer.from(e, "utf8").toString("utf8"))

let redacted = ""
let baselined = ""
const [redactorMs, baselineMs, pagesMs] = bestTimes([
  () => { redacted = r.text(text, false) },
  () => { baselined = text.replace(BASELINE, MASK) },
  () => {
    for (let i = 0; i < events.length; i += 100) {
      r.segments(events.slice(i, i + 100), { before: events[i - 1] ?? "", after: events[i + 100] ?? "" })
    }
  }
], RUNS) as [number, number, number]

const leaks = cores.filter((c) => leakFinder(c)(redacted) !== undefined).length

// False positives: every span found in text that holds no credential.
const foreign = foreignCorpus(MB * 1e6)
const foreignMb = foreign.reduce((n, f) => n + Buffer.byteLength(f.text), 0) / 1e6
const falsePositives = foreign.flatMap((f) => r.findings(f.text, false).map((x) => `${f.file}: ${x.detail}`))
const fpPerMb = falsePositives.length / foreignMb
const masks = (s: string): number => s.split(MASK).length - 1
const rate = (ms: number): string => (size / (ms / 1000)).toFixed(1)

console.log(`text: ${size.toFixed(2)} MB, ${cores.length} secrets (${((cores.join("").length / (size * 1e6)) * 100).toFixed(2)}% of bytes); best CPU time of ${RUNS} runs, one core`)
console.log(`rules             ${FORMAT_RULES.length} format rules as data (${UPSTREAM_RULES.length} of ${UPSTREAM.name} ${UPSTREAM.version}'s ${UPSTREAM.rules}, ${GITLEAKS_RULES.length - UPSTREAM_RULES.length} of gitleaks', ${FORMAT_RULES.length - GITLEAKS_RULES.length} of the bridge's own) and the bridge's built-in rules`)
console.log(`redactor          ${rate(redactorMs)} MB/s  (${redactorMs.toFixed(0)} ms, ${masks(redacted)} masks, ${leaks} secrets left visible)`)
console.log(`redactor, pages   ${rate(pagesMs)} MB/s  (segments of 100 events of 4 KiB with context)`)
console.log(`baseline regex    ${rate(baselineMs)} MB/s  (${baselineMs.toFixed(0)} ms, ${masks(baselined)} masks)`)
console.log(`ratio             ${(redactorMs / baselineMs).toFixed(2)}x the baseline's time (goal ≤ 0.6x)`)
console.log(`false positives   ${fpPerMb.toFixed(2)} per MB (${falsePositives.length} in ${foreignMb.toFixed(2)} MB of ${foreign.length} files of effect, typescript and yaml; goal ≤ 1)`)
for (const fp of falsePositives.slice(0, 10)) console.log(`                  ${fp}`)
// For scripts/bench.ts: one machine-readable line, last.
console.log(`BENCH_JSON ${JSON.stringify({
  bench: "redactor",
  rows: [
    { metric: `redact ${size.toFixed(0)} MB transcript (ms CPU)`, value: redactorMs, baseline: baselineMs, baselineName: "one alternation regex", leaks, goal: "≤ 0.6× the baseline" },
    { metric: "redactor MB/s", value: size / (redactorMs / 1000), baseline: size / (baselineMs / 1000), baselineName: "one alternation regex (MB/s)", noRatio: true },
    { metric: "format rules as data", value: FORMAT_RULES.length, baseline: 0, baselineName: `${UPSTREAM.name} ${UPSTREAM.version} (${UPSTREAM.rules} rules upstream)`, goal: "≥ 400", noRatio: true },
    { metric: `false positives per MB (${foreignMb.toFixed(1)} MB of other packages)`, value: fpPerMb, baseline: 0, baselineName: "effect, typescript, yaml in node_modules", goal: "≤ 1", noRatio: true },
    { metric: "redact as event pages (ms CPU)", value: pagesMs, baseline: baselineMs, baselineName: "one alternation regex" }
  ]
})}`)
