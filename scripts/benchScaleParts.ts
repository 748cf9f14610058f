/**
 * The pure pieces of scripts/bench-scale.ts, apart so a test can check them
 * (test/scripts/benchScale.test.ts): the sizes, the workload's inputs and what a streamed run must
 * hold afterwards, the check of a followed run's events, and the arithmetic of the figures (RSS
 * per live run with the simulators' share kept apart, CPU from /proc, percentiles).
 */
import * as fs from "node:fs"
import { eventProblems, type EventView, TERMINAL_EVENTS, textOf } from "../test/reliability/support/runChecks.ts"
import { fillerText } from "../src/hermes/sim/script.ts"

export interface ScaleSize {
  /** Live runs in all: the parked ones plus the streaming ones at any moment. */
  readonly runs: number
  readonly clients: number
  /** Simulator processes (each one Hermes API server, one bridge profile). */
  readonly sims: number
  /** The share of `runs` streaming at any moment; the rest are parked. */
  readonly streamShare: number
  /** How long the streaming phase lasts. */
  readonly seconds: number
  /** Deltas per streamed run, and the seconds they are spread over. */
  readonly deltas: number
  readonly paceS: number
  /** Bytes of text a streamed run answers (cut into `deltas` pieces). */
  readonly outputBytes: number
  /** `agent_run_status` calls in flight while sampling its latency. */
  readonly statusInFlight: number
  /** Replicas in the PostgreSQL arm. */
  readonly replicas: number
  /** Parked runs whose events are read back and checked (all streamed runs are). */
  readonly parkedChecked: number
  /** `hermes.quiet_check_ms` for the bridge; 0 leaves the default (10 s). */
  readonly quietCheckMs: number
  /**
   * Seconds the runs stay parked before the RSS is read a second time (0: no second reading). The
   * first reading comes right after the burst of starts, whose garbage V8 has collected but whose
   * heap pages it keeps until its memory reducer runs, a minute or two later.
   */
  readonly settleS: number
}

/**
 * `full`: the 10,000 live runs from 100 clients; `small`: the same shape at a size that
 * fits a few minutes of `.ci/run` (the plumbing and the 0-lost check, not figures to quote).
 */
export const SIZES: Readonly<Record<"full" | "small", ScaleSize>> = {
  full: { runs: 10_000, clients: 100, sims: 5, streamShare: 0.1, seconds: 60, deltas: 50, paceS: 20, outputBytes: 4096, statusInFlight: 4, replicas: 3, parkedChecked: 1000, quietCheckMs: 0, settleS: 0 },
  small: { runs: 300, clients: 10, sims: 2, streamShare: 0.1, seconds: 15, deltas: 50, paceS: 10, outputBytes: 4096, statusInFlight: 2, replicas: 3, parkedChecked: 100, quietCheckMs: 0, settleS: 0 }
}

/** `--size small|full` (or BENCH_SCALE_SIZE), then any field overridden by `--<field> N`. */
export const parseScaleArgs = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}): { readonly size: ScaleSize; readonly name: string; readonly stores: ReadonlyArray<"sqlite" | "pg"> } => {
  const flag = (name: string) => {
    const i = argv.indexOf(`--${name}`)
    return i >= 0 ? argv[i + 1] : undefined
  }
  const name = flag("size") ?? env["BENCH_SCALE_SIZE"] ?? "full"
  if (name !== "full" && name !== "small") throw new Error(`--size takes small or full, not ${name}`)
  const size: Record<string, number> = { ...SIZES[name] }
  for (const key of Object.keys(size)) {
    const name = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
    const v = flag(name)
    if (v === undefined) continue
    const n = Number(v)
    if (!Number.isFinite(n) || n < 0 || (n === 0 && key !== "quietCheckMs" && key !== "settleS")) throw new Error(`--${name} takes a positive number, not ${v}`)
    size[key] = n
  }
  const stores = (flag("stores") ?? "sqlite,pg").split(",").map((s) => s.trim())
  for (const s of stores) if (s !== "sqlite" && s !== "pg") throw new Error(`--stores takes sqlite and/or pg, not ${s}`)
  const sized = size as unknown as ScaleSize
  if (sized.streamShare >= 1) throw new Error("--stream-share must be below 1")
  return { size: sized, name, stores: stores as Array<"sqlite" | "pg"> }
}

/** How many runs stream at any moment, how many are parked. */
export const split = (size: ScaleSize) => {
  const streaming = Math.max(1, Math.round(size.runs * size.streamShare))
  return { streaming, parked: size.runs - streaming }
}

/**
 * A parked run's input: half wait on an approval nobody answers, half sit in a long silent step (a
 * tool call or the model thinking: the stream is open, only keepalives flow; the simulator's first
 * frame comes after `slow` ÷ its frames, hours away).
 */
export const parkedInput = (i: number) => (i % 2 === 0 ? `[sim:approval] parked ${i}` : `[sim:slow=86400s] parked ${i}`)

/** A streamed run's input, and the text it must end with. */
export const streamInput = (size: ScaleSize, i: number) => `[sim:output=${size.outputBytes}b,deltas=${size.deltas},slow=${size.paceS}s] stream ${i}`
export const streamText = (size: ScaleSize) => fillerText(size.outputBytes)

/**
 * What is wrong with a streamed run read back after its end: its events as the ledger promises
 * them (contiguous from 1, one start, one terminal event last), completed, and its text (the
 * events' and the view's) exactly the simulator's. Empty: nothing lost.
 */
export const streamedRunProblems = (run: { readonly status: string; readonly lastSeq: number; readonly output: string; readonly events: ReadonlyArray<EventView> }, expected: string): ReadonlyArray<string> => {
  const problems = [...eventProblems(run.events, run.lastSeq)]
  if (run.status !== "completed") problems.push(`status ${run.status}`)
  if (!TERMINAL_EVENTS.has(run.events.at(-1)?.type ?? "")) problems.push("no terminal event")
  const text = textOf(run.events)
  if (text !== expected) problems.push(`events' text ${text.length} bytes, expected ${expected.length}`)
  if (run.output !== expected) problems.push(`output ${run.output.length} bytes, expected ${expected.length}`)
  return problems
}

/** What is wrong with a parked run's events: contiguous from 1, started, not ended, and (approval) the request recorded. */
export const parkedRunProblems = (run: { readonly status: string; readonly lastSeq: number; readonly events: ReadonlyArray<EventView> }, approval: boolean): ReadonlyArray<string> => {
  const problems = [...eventProblems(run.events, run.lastSeq)]
  if (run.events.some((e) => TERMINAL_EVENTS.has(e.type))) problems.push("ended while parked")
  if (approval && !run.events.some((e) => e.type === "approval.request")) problems.push("no approval.request event")
  if (approval && run.status !== "waiting_for_approval") problems.push(`status ${run.status}`)
  return problems
}

/** Kibibytes per run that a set of processes grew by between two readings (KiB each). */
export const perRunKiB = (before: ReadonlyArray<number>, after: ReadonlyArray<number>, runs: number): number => {
  if (before.length !== after.length) throw new Error("before and after name different processes")
  const grown = after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0)
  return runs > 0 ? grown / runs : Number.NaN
}

/** A file of /proc, or undefined once the process is gone (its exit is reported where it is watched, with its output). */
const procFile = (pid: number, name: string): string | undefined => {
  try {
    return fs.readFileSync(`/proc/${pid}/${name}`, "utf8")
  } catch (e) {
    if ((e as { code?: unknown }).code === "ENOENT") return undefined
    throw e
  }
}

/** VmRSS of a process in KiB (from /proc); NaN once it is gone. */
export const rssKiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(procFile(pid, "status") ?? "")?.[1] ?? Number.NaN)

/** User + system CPU of a process in ms, from a `/proc/<pid>/stat` line (clock ticks of 10 ms, Linux's USER_HZ). */
export const cpuMsOfStat = (stat: string): number => {
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}
/** CPU of a process in ms; NaN once it is gone. */
export const cpuMs = (pid: number): number => {
  const stat = procFile(pid, "stat")
  return stat === undefined ? Number.NaN : cpuMsOfStat(stat)
}

/** The `p`th percentile of `xs` (nearest rank; NaN when empty). */
export const percentile = (xs: ReadonlyArray<number>, p: number): number => {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))]!
}
