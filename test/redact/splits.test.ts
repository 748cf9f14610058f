/**
 * A secret cut wherever `message.text` events were flushed: every offset across 2 events; across 3
 * events, across an events-page boundary (the page on each side gets the other as context) and across
 * a 16 KiB output-window boundary, every offset near the edges of the name, prefix and value, and
 * strided offsets between them (`offsets`). 0 leaks, and every part that holds a piece of the secret shows a mask.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { CONTEXTS, embed, FORMATS, leakFinder, makeSecrets, type Secret } from "./corpus.ts"
import { turnEvery } from "../support/loopTurn.ts"

const r = makeRedaction([])
const secrets = makeSecrets(FORMATS.length * 6)

interface Case {
  readonly label: string
  readonly text: string
  readonly core: string
  readonly leak: (out: string) => string | undefined
  /** Where the secret (with the name or prefix in front of it) sits in `text`. */
  readonly from: number
  readonly to: number
  /** Where the value itself starts (`from` is up to 12 characters before it). */
  readonly at: number
}

/**
 * The offsets of `c` a sweep cuts at: every offset within `EDGE` of the start of the cut range,
 * of the value's start and of its end (where a cut splits a name, a prefix, a separator or the
 * last characters), and every `stride`-th offset between them. A cut deep inside the value is
 * like its neighbours (both sides hold a piece and must show a mask), and each such offset is
 * still cut by the every-offset 2-event sweep above; the strided sweeps are the costly ones
 * (a 3-event pair per offset pair, two 16 KiB windows per offset).
 */
const EDGE = 6
const offsets = (c: Case, from: number, stride: number): Array<number> => {
  const out: Array<number> = []
  for (let k = from; k <= c.to; k++) {
    const nearEdge = k - from < EDGE || Math.abs(k - c.at) < EDGE || c.to - k < EDGE
    if (nearEdge || (k - from) % stride === 0) out.push(k)
  }
  return out
}

/** One case per secret: the next context (in turn) that holds the secret verbatim. */
const cases: ReadonlyArray<Case> = secrets.flatMap((s: Secret, i) => {
  for (let k = 0; k < CONTEXTS.length; k++) {
    const context = CONTEXTS[(i + k) % CONTEXTS.length]!
    const text = embed(s, context)
    const at = text?.indexOf(s.value) ?? -1
    if (text === undefined || at < 0) continue
    // Cuts start a little before the value so that names and prefixes are cut too.
    return [{ label: `${s.format} in ${context}`, text, core: s.core, leak: leakFinder(s.core), from: Math.max(0, at - 12), to: at + s.value.length, at }]
  }
  return []
})

/** Problems with `outs` (the masked parts) for `parts` cut from `c.text`. */
const check = (c: Case, parts: ReadonlyArray<string>, outs: ReadonlyArray<string>, where: string): Array<string> => {
  const problems: Array<string> = []
  if (outs.length !== parts.length) problems.push(`${c.label} ${where}: ${outs.length} parts for ${parts.length}`)
  const leak = c.leak(outs.join(""))
  if (leak !== undefined) problems.push(`${c.label} ${where}: leaks ${JSON.stringify(leak)}`)
  // Every part that holds a character of the core must show a mask.
  const coreAt = c.text.indexOf(c.core.slice(0, 8))
  let at = 0
  parts.forEach((p, i) => {
    const holdsCore = coreAt >= 0 && at < coreAt + c.core.length && at + p.length > coreAt && p.length > 0
    if (holdsCore && !outs[i]!.includes(MASK)) problems.push(`${c.label} ${where}: part ${i} ${JSON.stringify(outs[i])} unmasked`)
    at += p.length
  })
  return problems
}

it("uses one case per secret", () => {
  expect(cases.length).toBe(secrets.length)
})

// One group per format keeps each test short on a busy machine.
describe.each(FORMATS.map((f) => f.name))("%s split across events", (format) => {
  const mine = cases.filter((c) => c.label.startsWith(`${format} in `))

  it("every offset, 2 events", async () => {
    // Sweeps of thousands of cuts: the loop turns between them (test/support/loopGuard.ts).
    const turn = turnEvery()
    const problems: Array<string> = []
    for (const c of mine) {
      for (let k = c.from; k <= c.to; k++) {
        const parts = [c.text.slice(0, k), c.text.slice(k)]
        problems.push(...check(c, parts, r.segments(parts, {}), `cut at ${k}`))
        await turn()
      }
    }
    expect(problems).toEqual([])
  })

  it("offset pairs, 3 events (every pair near the edges, strided between them)", async () => {
    // Sweeps of thousands of cuts: the loop turns between them (test/support/loopGuard.ts).
    const turn = turnEvery()
    const problems: Array<string> = []
    for (const c of mine) {
      for (const i of offsets(c, c.from, 3)) {
        // The middle part: every length up to EDGE (a piece of 0 to 5 characters), then strided.
        for (const j of offsets(c, i + 1, 5)) {
          const parts = [c.text.slice(0, i), c.text.slice(i, j), c.text.slice(j)]
          problems.push(...check(c, parts, r.segments(parts, {}), `cut at ${i},${j}`))
          await turn()
        }
      }
    }
    expect(problems).toEqual([])
  })

  it("every events-page boundary (events of 1 and 7 characters)", async () => {
    // Sweeps of thousands of cuts: the loop turns between them (test/support/loopGuard.ts).
    const turn = turnEvery()
    const problems: Array<string> = []
    for (const c of mine) {
      for (const size of [1, 7]) {
        const events = c.text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!
        for (let p = 1; p < events.length; p++) {
          const boundary = p * size
          if (boundary < c.from || boundary > c.to) continue
          const pageA = events.slice(0, p)
          const pageB = events.slice(p)
          const outA = r.segments(pageA, { after: pageB.join("") })
          const outB = r.segments(pageB, { before: pageA.join("") })
          problems.push(...check(c, events, [...outA, ...outB], `page boundary ${boundary}/${size}`))
          await turn()
        }
      }
    }
    expect(problems).toEqual([])
  })

  it("every offset across a 16 KiB output-window boundary", async () => {
    // Sweeps of thousands of cuts: the loop turns between them (test/support/loopGuard.ts).
    const turn = turnEvery()
    const WINDOW = 16 * 1024
    const NEAR = 2048 // the cases are far shorter: beyond this the windows must be unchanged filler
    // Filler that holds no secret and little to look at, so the 16 KiB windows stay cheap to scan.
    const filler = "1024 2048 4096 8192 16384 32768 65536\n"
    const pad = (n: number): string => filler.repeat(Math.ceil(n / filler.length) + 1).slice(0, n)
    const problems: Array<string> = []
    for (const c of mine) {
      for (const k of offsets(c, c.from, 4)) {
        // The window boundary falls at offset k of the case text.
        const text = pad(WINDOW - k) + c.text + pad(WINDOW)
        const first = text.slice(0, WINDOW)
        const second = text.slice(WINDOW, 2 * WINDOW)
        const [outA] = r.segments([first], { after: text.slice(WINDOW) })
        const [outB] = r.segments([second], { before: first, after: text.slice(2 * WINDOW) })
        if (!outA!.startsWith(first.slice(0, -NEAR)) || !outB!.endsWith(second.slice(NEAR))) {
          problems.push(`${c.label} window cut at ${k}: filler changed`)
        }
        const near = { ...c, text: first.slice(-NEAR) + second.slice(0, NEAR) }
        problems.push(...check(near, [first.slice(-NEAR), second.slice(0, NEAR)], [outA!.slice(-NEAR - 64), outB!.slice(0, NEAR + 64)], `window cut at ${k}`))
        await turn()
      }
    }
    expect(problems).toEqual([])
  })
})
