/**
 * What registering client keys costs the redactor (`services/auth/liveKeys.ts` registers every key
 * the daemon sees): for 0, 1, 10, 50 and 200 registered `hal0bk_` keys (each also masked without
 * its prefix), the time to mask 2 MB of ordinary text (this repo's sources and installed READMEs,
 * with a few of the keys in it), the time of a live-edge read (4 KiB texts ending at a run's newest
 * event, as a running run's status is), and the time to register one more key (the mask list is
 * rebuilt). Ratios are against 0 keys in the same run.
 *
 *   npx tsx scripts/bench-keys.ts [MB=2] [runs=5]
 */
import fs from "node:fs"
import path from "node:path"
import { BRIDGE_KEY_PREFIX } from "../src/domain/bridgeKeys.ts"
import { makeRedaction, MASK, type Redaction } from "../src/domain/redact/redact.ts"
import { newKey } from "../src/services/auth/apiKeys.ts"

const MB = Number(process.argv[2] ?? 2)
const RUNS = Number(process.argv[3] ?? 5)
const ROOT = path.resolve(import.meta.dirname, "..")
const COUNTS = [0, 1, 10, 50, 200]

const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
const best = (job: () => void): number => {
  job()
  let b = Infinity
  for (let i = 0; i < RUNS; i++) {
    const start = cpuMs()
    job()
    b = Math.min(b, cpuMs() - start)
  }
  return b
}

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
const base = sources().slice(0, MB * 1e6)
// A few registered keys' bodies in the text, without their prefix, so the masks are real work.
const text = Array.from({ length: 10 }, (_, i) => base.slice((i * base.length) / 10, ((i + 1) * base.length) / 10) + ` ${body(keys[i % 1]!)} `).join("")
const liveTexts = Array.from({ length: 200 }, (_, i) => base.slice(i * 4096, i * 4096 + 4096))

const rows: Array<{ count: number; textMs: number; liveMs: number; registerMs: number; masks: number }> = []
for (const count of COUNTS) {
  const r: Redaction = makeRedaction(keys.slice(0, count))
  let out = ""
  const textMs = best(() => { out = r.text(text, false) })
  const liveMs = best(() => { for (const t of liveTexts) r.text(t, true) })
  const extra = newKey()
  const registerMs = best(() => { r.withSecret(extra) })
  rows.push({ count, textMs, liveMs, registerMs, masks: out.split(MASK).length - 1 })
}
const zero = rows[0]!
console.log(`text: ${(text.length / 1e6).toFixed(2)} MB; live edge: ${liveTexts.length} texts of 4 KiB; best CPU time of ${RUNS}`)
console.log("keys   text ms (ratio)      live-edge ms (ratio)   register one more (ms)   masks")
for (const row of rows) {
  console.log(
    `${String(row.count).padStart(4)}   ${row.textMs.toFixed(0).padStart(6)} (${(row.textMs / zero.textMs).toFixed(2)}x)      ${row.liveMs.toFixed(0).padStart(6)} (${(row.liveMs / zero.liveMs).toFixed(2)}x)        ${row.registerMs.toFixed(1).padStart(8)}               ${row.masks}`
  )
}
