/**
 * The parked-runs phase of scripts/bench-runs.ts with the simulator in another process (issue 28,
 * item 4): the bridge's own RSS per live run, which the in-process phases can only give as the
 * difference of two noisy process totals. Here the bridge's process holds the run service alone
 * (follower, ledger, waits over a HermesClient on loopback), and the simulator's process, whose RSS
 * is read from /proc, is printed beside it, not added to it.
 */
import { Context, Effect, Layer, Option, Redacted, Schedule } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as readline from "node:readline"
import { HermesClient, namedProfile } from "../src/hermes/client/HermesClient.ts"
import { HermesClientWith } from "../src/hermes/client/HermesClientLive.ts"
import { startSimulatorAsync } from "../src/hermes/sim/layer.ts"
import { asBench, bridgeOver, heapSnapshotAs, parkedFollowed, settle, simOptions, tempConfig } from "./benchRunParts.ts"

export const SIM_SERVER_PHASE = "sim-server"

/** In the simulator's child: serves until killed, after printing `{url, key}` on one line. */
export const serveSimulator = async (): Promise<void> => {
  const sim = await startSimulatorAsync(simOptions)
  const p = sim.profile("default")
  process.stdout.write(`${JSON.stringify({ url: p.url, key: p.key })}\n`)
  await new Promise(() => {})
}

const rssKiBOf = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN)

/**
 * `runs` runs parked on an approval, followed from the simulator child of `self` by this process's
 * run service (`bridge`), or by its Hermes client's follow alone (`follow`: `HermesClient.followInto`
 * into a counter, no ledger, no batches: the part of a parked run's cost that is the follow's).
 */
export const idleExternal = (self: string, runs: number, through: "bridge" | "follow" = "bridge") =>
  Effect.gen(function* () {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, [...process.execArgv, self, SIM_SERVER_PHASE], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, EFFECT_LOG_LEVEL: "None" } })),
      (c) => Effect.promise(() => new Promise<void>((resolve) => {
        if (c.exitCode !== null) return resolve()
        c.on("exit", () => resolve())
        c.kill("SIGKILL")
      }))
    )
    const first = yield* Effect.promise(() => new Promise<string>((resolve, reject) => {
      const lines = readline.createInterface({ input: child.stdout! })
      lines.once("line", resolve)
      child.once("exit", (code) => reject(new Error(`the simulator exited (${code}) before it listened`)))
    })).pipe(Effect.timeoutFail({ duration: "120 seconds", onTimeout: () => new Error("the simulator did not listen within 120 s") }))
    const { url, key } = JSON.parse(first) as { url: string; key: string }
    // Built in this phase's scope: the HTTP client must outlive this line.
    const hermesContext = yield* Layer.buildWithScope(HermesClientWith([namedProfile("default", url, Option.some(Redacted.make(key)))]), yield* Effect.scope)
    const hermes = Context.get(hermesContext, HermesClient)
    if (through === "follow") return yield* followOnly(hermes, child.pid!, runs)
    const b = yield* bridgeOver(tempConfig(), hermes)
    yield* settle()
    const before = process.memoryUsage()
    heapSnapshotAs("before")
    const simBefore = rssKiBOf(child.pid!)
    yield* Effect.forEach(Array.from({ length: runs }, (_, i) => i), (i) => asBench(b.runs.start({ agent: "hermes", input: `[sim:approval] parked ${i}` })), { concurrency: 50 })
    // Every follower has recorded its approval request: all are live, waiting (bounded: 120 s).
    yield* asBench(b.runs.list({ limit: 200, status: "running" })).pipe(
      Effect.repeat({ schedule: Schedule.spaced("100 millis").pipe(Schedule.upTo("120 seconds")), until: (l) => l.runs.length === 0 }),
      Effect.zipRight(Effect.sleep("500 millis"))
    )
    yield* settle()
    const after = process.memoryUsage()
    heapSnapshotAs("after")
    return {
      rssPerRunKb: (after.rss - before.rss) / runs / 1024,
      heapPerRunKb: (after.heapUsed - before.heapUsed) / runs / 1024,
      simRssPerRunKb: (rssKiBOf(child.pid!) - simBefore) / runs,
      followed: yield* b.supervisor.size
    }
  }).pipe(Effect.scoped)

/** The parked runs followed by `HermesClient.followInto` alone, each in a fiber of its own. */
const followOnly = (hermes: Context.Tag.Service<typeof HermesClient>, simPid: number, runs: number) =>
  Effect.gen(function* () {
    const simBefore = rssKiBOf(simPid)
    const parked = yield* parkedFollowed(hermes, runs, (profile, id, onEvent) =>
      hermes.followInto(profile, id, undefined, (e) => Effect.sync(() => onEvent(e)))
    )
    return { ...parked, simRssPerRunKb: (rssKiBOf(simPid) - simBefore) / runs }
  })
