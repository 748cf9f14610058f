/**
 * What registering client keys costs the redactor (`services/auth/liveKeys.ts` registers every key
 * the daemon sees): for 0, 1, 10, 50 and 200 registered `hal0bk_` keys (each also masked without
 * its prefix), the time to mask 2 MB of ordinary text (this repo's sources and docs, Effect's
 * sources), the time of a live-edge read (4 KiB texts ending at a run's newest event, as a running
 * run's status is), and the time to register one more key (the mask list is rebuilt). Ratios are
 * against 0 keys in the same run; the jobs take turns, so the machine's load hits them alike.
 * Also checks that ten bodies of registered keys put into the text, without their prefix, are masked.
 *
 *   npx tsx scripts/bench-keys.ts [MB=2] [runs=5]
 */
import fs from "node:fs"
import path from "node:path"
import { BRIDGE_KEY_PREFIX } from "../src/domain/bridgeKeys.ts"
import { makeRedaction, type Redaction } from "../src/domain/redact/redact.ts"
import { newKey } from "../src/services/auth/apiKeys.ts"
import { bestTimes } from "./benchTiming.ts"

const MB = Number(process.argv[2] ?? 2)
const RUNS = Number(process.argv[3] ?? 5)
const ROOT = path.resolve(import.meta.dirname, "..")
const COUNTS = [0, 1, 10, 50, 200]

const sources = (): string => {
  const parts: Array<string> = []
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (p.endsWith(".ts") || p.endsWith(".md")) parts.push(fs.readFileSync(p, "utf8"))
    }
  }
  walk(path.join(ROOT, "src"))
  walk(path.join(ROOT, "docs"))
  walk(path.join(ROOT, "node_modules", "effect", "src"))
  return parts.join("\n")
}

const keys = Array.from({ length: Math.max(...COUNTS) }, () => newKey())
const body = (k: string) => k.slice(BRIDGE_KEY_PREFIX.length)
const text = sources().slice(0, MB * 1e6)
const liveTexts = Array.from({ length: 200 }, (_, i) => text.slice(i * 4096, i * 4096 + 4096))
// Ten bodies of registered keys, without their prefix, each in a line of ordinary text.
const withBodies = Array.from({ length: 10 }, (_, i) => `${text.slice(i * 5000, i * 5000 + 2000)}\nprinted ${body(keys[i]!)} here\n`).join("")

const redactions: ReadonlyArray<Redaction> = COUNTS.map((count) => makeRedaction(keys.slice(0, count)))
const extra = newKey()
const textMs = bestTimes(redactions.map((r) => () => { r.text(text, false) }), RUNS)
const liveMs = bestTimes(redactions.map((r) => () => { for (const t of liveTexts) r.text(t, true) }), RUNS)
const registerMs = bestTimes(redactions.map((r) => () => { r.withSecret(extra) }), RUNS)
const rows = COUNTS.map((count, i) => {
  const out = redactions[i]!.text(withBodies, false)
  const shown = keys.slice(0, 10).filter((k) => out.includes(body(k).slice(4, 20))).length
  return { count, textMs: textMs[i]!, liveMs: liveMs[i]!, registerMs: registerMs[i]!, shown: Math.min(shown, 10) }
})
const zero = rows[0]!
console.log(`text: ${(text.length / 1e6).toFixed(2)} MB; live edge: ${liveTexts.length} texts of 4 KiB; best CPU time of ${RUNS}`)
console.log("keys   text ms (ratio)      live-edge ms (ratio)   register one more (ms)   bodies of keys 1-10 left visible")
for (const row of rows) {
  console.log(
    `${String(row.count).padStart(4)}   ${row.textMs.toFixed(0).padStart(6)} (${(row.textMs / zero.textMs).toFixed(2)}x)      ${row.liveMs.toFixed(0).padStart(6)} (${(row.liveMs / zero.liveMs).toFixed(2)}x)        ${row.registerMs.toFixed(1).padStart(8)}               ${row.shown} of 10`
  )
}
// For scripts/bench.ts: one machine-readable line, last.
const at = (count: number) => rows.find((r) => r.count === count)!
console.log(`BENCH_JSON ${JSON.stringify({
  bench: "keys",
  rows: [10, 200].flatMap((count) => [
    { metric: `mask ${MB} MB, ${count} client keys registered (ms CPU)`, value: at(count).textMs, baseline: zero.textMs, baselineName: "no key registered", leaks: at(count).shown },
    { metric: `200 live-edge reads, ${count} client keys registered (ms CPU)`, value: at(count).liveMs, baseline: zero.liveMs, baselineName: "no key registered" }
  ])
})}`)
