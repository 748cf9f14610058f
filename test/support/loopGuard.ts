/**
 * Runs before every test file (vitest setupFiles): fails the test (or the file) that kept its
 * fork's event loop from turning for longer than a bound, and turns the loop after every test.
 *
 * Why: vitest 3's fork reports each test to the main process over an RPC whose calls time out
 * after 60 s (hard-coded in vitest 3; vitest 4 dropped it, but `@effect/vitest` 0.30, the last line
 * for Effect 3, requires vitest ^3.2). The answers are read only when the fork's loop reaches its
 * poll phase. A test that holds the loop (a CPU-bound sweep, a synchronous child process, large
 * synchronous file work) leaves the answers unread, and when the loop finally turns the timers run
 * first: `[vitest-worker]: Timeout calling "onTaskUpdate"`, a red run whose tests all passed. On a
 * quiet machine such a hold takes seconds; on a loaded one the same hold takes many times longer.
 *
 * What is measured, and why it does not depend on the machine's load: between two turns of the
 * loop (a 100 ms interval timer marks each turn), the main thread's time on the CPU and its time
 * asleep, each on its own (Linux's /proc/self/schedstat gives the main thread's run time and its
 * run-queue wait; asleep is the wall time less both). A CPU-bound hold counts its CPU time, a
 * synchronous wait (a child process run synchronously, Atomics.wait, a blocking read) its sleep,
 * and neither grows when other processes take the cores. They are bounded apart, not summed: on a
 * loaded machine a CPU-bound hold also sleeps (the main thread waits for V8's helper threads, which
 * wait for a CPU), by up to about two thirds of its CPU time as measured here at load 20, and a sum
 * would make the same test fail on a busy machine and pass on a quiet one. Without schedstat (not
 * Linux) the wall time is the measure.
 *
 * The bound, 2 s (AGENT_BRIDGE_LOOP_GUARD_MS to change it): 30 times under vitest's 60 s, so a
 * hold just under it reaches the RPC timeout only at a load of about 30 runnable threads per core.
 * The longest holds a test of the suite still needs, found with AGENT_BRIDGE_LOOP_GUARD_LOG at load
 * 20, are single calls that cannot be cut (the redactor over 300,000 pathological characters, a
 * fuzz daemon's start): about 1 s of CPU each.
 *
 * After every test the loop turns twice (two `setImmediate`s: one made in the poll phase resolves
 * in the same turn, the second only after a poll), so whatever arrived meanwhile, above all
 * vitest's own answers, is read before the next test starts. vitest 3's runner goes from one test
 * to the next through promises alone, so a file of synchronous tests would otherwise never let the
 * loop poll until the whole file is done.
 */
import { appendFileSync, readFileSync } from "node:fs"
import { setImmediate as nextTurn } from "node:timers/promises"
import { afterAll, afterEach, beforeEach, expect } from "vitest"

/** The bound on one hold of the loop, in milliseconds of the main thread's run and sleep time. */
export const LOOP_GUARD_BOUND_MS = Number(process.env["AGENT_BRIDGE_LOOP_GUARD_MS"] ?? 2000)
/** How often the guard's timer marks a turn of the loop. */
const TICK_MS = 100

interface Mark {
  /** wall clock, ns */
  readonly wall: bigint
  /** the main thread's CPU time and run-queue wait since it started, ns (0 where unknown) */
  readonly run: number
  readonly queued: number
}

const schedstat = (() => {
  try {
    readFileSync("/proc/self/schedstat", "utf8")
    return true
  } catch {
    return false
  }
})()

const mark = (): Mark => {
  const wall = process.hrtime.bigint()
  if (!schedstat) return { wall, run: 0, queued: 0 }
  const [run, queued] = readFileSync("/proc/self/schedstat", "utf8").split(" ").map(Number)
  return { wall, run: run ?? 0, queued: queued ?? 0 }
}

export interface Hold {
  /** what counts against the bound: the larger of the CPU time and the sleep, ms */
  readonly heldMs: number
  readonly wallMs: number
  readonly cpuMs: number
  readonly queuedMs: number
}

const holdBetween = (from: Mark, to: Mark): Hold => {
  const wallMs = Number(to.wall - from.wall) / 1e6
  const queuedMs = (to.queued - from.queued) / 1e6
  if (!schedstat) return { heldMs: wallMs, wallMs, cpuMs: 0, queuedMs: 0 }
  const cpuMs = (to.run - from.run) / 1e6
  const asleepMs = Math.max(0, wallMs - queuedMs - cpuMs)
  return { heldMs: Math.max(cpuMs, asleepMs), wallMs, cpuMs, queuedMs }
}

const describeHold = (hold: Hold): string =>
  `held its fork's event loop for ${(hold.heldMs / 1000).toFixed(2)} s without a turn ` +
  `(${(hold.cpuMs / 1000).toFixed(2)} s on the CPU, ${(Math.max(0, hold.wallMs - hold.queuedMs - hold.cpuMs) / 1000).toFixed(2)} s asleep, ` +
  `${(hold.wallMs / 1000).toFixed(2)} s of wall time of which ${(hold.queuedMs / 1000).toFixed(2)} s waiting for a CPU); ` +
  `the bound is ${(LOOP_GUARD_BOUND_MS / 1000).toFixed(1)} s (test/support/loopGuard.ts): ` +
  `make it yield (chunks with an await between them, Effect.yieldNow, an async child process, a worker thread)`

/**
 * AGENT_BRIDGE_LOOP_GUARD_LOG=FILE appends a JSON line for every test whose longest hold passed a
 * quarter of the bound, under the bound or not: how to find the tests that come close.
 */
const LOG = process.env["AGENT_BRIDGE_LOOP_GUARD_LOG"]

let last = mark()
/** The longest hold past the bound seen since the current test (or the file's start) began. */
let worst: Hold | undefined
/** The longest hold of any length, for the log. */
let longest: Hold | undefined

const note = (hold: Hold) => {
  if (longest === undefined || hold.heldMs > longest.heldMs) longest = hold
  if (hold.heldMs > LOOP_GUARD_BOUND_MS && (worst === undefined || hold.heldMs > worst.heldMs)) worst = hold
}

const log = (where: string) => {
  if (LOG !== undefined && longest !== undefined && longest.heldMs > LOOP_GUARD_BOUND_MS / 4) {
    const { cpuMs, heldMs, queuedMs, wallMs } = longest
    appendFileSync(LOG, JSON.stringify({ file: expect.getState().testPath, where, heldMs, cpuMs, queuedMs, wallMs }) + "\n")
  }
  longest = undefined
}

const tick = () => {
  const now = mark()
  // The timer's own interval is a wait of the loop (asleep in its poll), not a hold: only the time
  // past it counts.
  const hold = holdBetween({ ...last, wall: last.wall + BigInt(TICK_MS * 1e6) }, now)
  note(hold)
  last = now
}
// One timer per fork: with isolate off the setup files run again for each file of the fork.
const forkGlobals = globalThis as { agentBridgeLoopGuardTimer?: NodeJS.Timeout }
if (forkGlobals.agentBridgeLoopGuardTimer !== undefined) clearInterval(forkGlobals.agentBridgeLoopGuardTimer)
forkGlobals.agentBridgeLoopGuardTimer = setInterval(tick, TICK_MS).unref()

/** The hold still in progress (no turn since the last mark) plus the worst one seen; resets both. */
const takeWorst = (): Hold | undefined => {
  const now = mark()
  note(holdBetween(last, now))
  last = now
  const found = worst
  worst = undefined
  return found
}

beforeEach(() => {
  // A hold before the first test is the file's top level or a beforeAll; before a later test, the
  // previous test's after-hooks. It fails the test about to run, saying where it came from.
  const hold = takeWorst()
  log(`before "${expect.getState().currentTestName}"`)
  if (hold !== undefined) {
    throw new Error(`The file's top level, a beforeAll or the previous test's hooks ${describeHold(hold)}`)
  }
})

afterEach(async () => {
  const hold = takeWorst()
  log(`"${expect.getState().currentTestName}"`)
  await nextTurn()
  await nextTurn()
  last = mark()
  if (hold !== undefined) {
    throw new Error(`"${expect.getState().currentTestName ?? "this test"}" ${describeHold(hold)}`)
  }
})

afterAll(() => {
  const hold = takeWorst()
  log("after all")
  if (hold !== undefined) throw new Error(`The file's afterAll or its last test's hooks ${describeHold(hold)}`)
})
