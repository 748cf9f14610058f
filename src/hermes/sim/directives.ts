/**
 * The simulator's scripting language: directives written into a run's `input` text choose what the
 * simulated agent does (docs/SIMULATOR.md lists them). Grammar: `[sim:NAME]`, `[sim:NAME=VALUE]`,
 * several per bracket separated by commas (`[sim:approval,slow=2s]`), anywhere in the input.
 * Names are case-insensitive. An unknown name or a bad value is reported, and the run then fails
 * with that message, so a typo in a test shows up instead of silently running the default script.
 */

export interface Directives {
  /** Ask a clarification (only when the build has clarification and the run opted in). */
  readonly clarify: { readonly multiSelect: boolean } | null
  /** Ask for approval of a terminal command. */
  readonly approval: boolean
  /** Fail with this error after the first tool call. */
  readonly fail: string | null
  /** Produce exactly this many bytes of output. */
  readonly outputBytes: number | null
  /** Put fake secrets in the output, each split across several deltas. */
  readonly secrets: boolean
  /** Spread the run over this many milliseconds. */
  readonly slowMs: number | null
  /** Emit exactly this many events in total (the terminal event included). */
  readonly events: number | null
  /** Stream the answer in this many `message.delta` events. */
  readonly deltas: number | null
  /** Cut the connection once, right after this many frames were sent on it (`-1`: half way). */
  readonly dropAfter: number | null
  /** Restart the simulated Hermes half way through (losing in-memory runs). */
  readonly restart: boolean
  /** Put non-ASCII text in the output (it travels as `\uXXXX` escapes). */
  readonly unicode: boolean
  /** Emit `subagent.start` / `subagent.complete`. */
  readonly subagent: boolean
  /** Emit `reasoning.available`. */
  readonly reasoning: boolean
}

export const noDirectives: Directives = {
  clarify: null, approval: false, fail: null, outputBytes: null, secrets: false, slowMs: null, events: null,
  deltas: null, dropAfter: null, restart: false, unicode: false, subagent: false, reasoning: false
}

export interface ParsedInput {
  readonly directives: Directives
  /** The input with every directive removed and whitespace trimmed. */
  readonly prompt: string
  /** Problems found; a non-empty list makes the run fail with them. */
  readonly errors: ReadonlyArray<string>
}

const BRACKET = /\[sim:([^\]]*)\]/gi

/** `64k` → 65536, `2m` → 2 MiB, `100b` → 100, a bare number is KiB. */
const parseSize = (v: string): number | null => {
  const m = /^(\d+)([bkm]?)$/i.exec(v)
  if (m === null) return null
  const n = Number(m[1])
  const unit = (m[2] ?? "").toLowerCase()
  return unit === "b" ? n : unit === "m" ? n * 1024 * 1024 : n * 1024
}

/** `2000` or `2000ms` → 2000, `2s` → 2000. */
const parseMillis = (v: string): number | null => {
  const m = /^(\d+)(ms|s)?$/i.exec(v)
  if (m === null) return null
  return (m[2] ?? "").toLowerCase() === "s" ? Number(m[1]) * 1000 : Number(m[1])
}

const parseCount = (v: string, min: number): number | null => {
  if (!/^\d+$/.test(v)) return null
  const n = Number(v)
  return n >= min ? n : null
}

export const parseInput = (input: string): ParsedInput => {
  let d: { -readonly [K in keyof Directives]: Directives[K] } = { ...noDirectives }
  const errors: Array<string> = []
  for (const match of input.matchAll(BRACKET)) {
    for (const part of (match[1] ?? "").split(",")) {
      const item = part.trim()
      if (item === "") continue
      const eq = item.indexOf("=")
      const name = (eq < 0 ? item : item.slice(0, eq)).trim().toLowerCase()
      const value = eq < 0 ? null : item.slice(eq + 1).trim()
      const bad = (what: string) => errors.push(`simulator directive '${item}': ${what}`)
      const need = <A>(parse: (v: string) => A | null, what: string, apply: (a: A) => void) => {
        const parsed = value === null ? null : parse(value)
        if (parsed === null) bad(`expected ${what}`)
        else apply(parsed)
      }
      switch (name) {
        case "clarify":
          if (value === null || value === "single") d = { ...d, clarify: { multiSelect: false } }
          else if (value === "multi") d = { ...d, clarify: { multiSelect: true } }
          else bad("expected no value, 'single' or 'multi'")
          break
        case "approval": d = { ...d, approval: true }; break
        case "fail": d = { ...d, fail: value !== null && value !== "" ? value : "Simulated failure: the model provider returned an error." }; break
        case "output": need(parseSize, "a size such as 64k, 2m or 500b", (n) => { d = { ...d, outputBytes: n } }); break
        case "secrets": d = { ...d, secrets: true }; break
        case "slow": need(parseMillis, "milliseconds such as 2000 or 2s", (n) => { d = { ...d, slowMs: n } }); break
        case "events": need((v) => parseCount(v, 4), "a count of at least 4", (n) => { d = { ...d, events: n } }); break
        case "deltas": need((v) => parseCount(v, 1), "a count of at least 1", (n) => { d = { ...d, deltas: n } }); break
        case "drop":
          if (value === null) d = { ...d, dropAfter: -1 }
          else need((v) => parseCount(v, 1), "a frame count of at least 1", (n) => { d = { ...d, dropAfter: n } })
          break
        case "restart": d = { ...d, restart: true }; break
        case "unicode": d = { ...d, unicode: true }; break
        case "subagent": d = { ...d, subagent: true }; break
        case "reasoning": d = { ...d, reasoning: true }; break
        default: bad("unknown directive (see docs/SIMULATOR.md)")
      }
    }
  }
  return { directives: d, prompt: input.replace(BRACKET, " ").replace(/\s+/g, " ").trim(), errors }
}
