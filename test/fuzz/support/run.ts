/** Drives cases through a session with bounded concurrency and a per-call deadline; seeds hot ids. */
import { setImmediate as nextTurn } from "node:timers/promises"
import type { ToolDef } from "../../../src/edge/mcp/ToolDef.ts"
import type { FuzzCase, Hot } from "./cases.ts"
import type { FuzzDaemon } from "./fuzzDaemon.ts"
import type { Tally } from "./tally.ts"
import { judge } from "./verdict.ts"
import { type Answer, inProcess, openSession, type Session } from "./wire.ts"

/** A call that takes longer than this is a hang (every wait the fuzzer can reach is ≤ 1 s). */
export const CALL_DEADLINE_MS = 30_000

const withDeadline = <A>(p: Promise<A>, what: string): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${CALL_DEADLINE_MS} ms: ${what}`)), CALL_DEADLINE_MS)
    p.then(
      (a) => { clearTimeout(timer); resolve(a) },
      (e: unknown) => { clearTimeout(timer); reject(e) }
    )
  })

export const runCases = async (
  session: Session,
  cases: ReadonlyArray<FuzzCase>,
  lookup: (name: string) => ToolDef | undefined,
  tally: Tally,
  concurrency = 4
): Promise<void> => {
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!
      let answer: Answer
      try {
        answer = await withDeadline(session.callTool(c.tool, c.args), `${c.tool} ${(c.args ?? "").slice(0, 100)}`)
      } catch (e) {
        // A rejected call is a crash of the path (or a hang): recorded, and the run goes on.
        const cause = (e as { cause?: unknown }).cause
        tally.add(c, { outcome: "protocol crash", problem: `call failed: ${String(e).slice(0, 300)}${cause === undefined ? "" : ` (cause: ${String(cause).slice(0, 300)})`}` })
        continue
      }
      tally.add(c, judge(c, answer, lookup))
      // An in-process call can settle through promises alone: a turn of the loop after each case
      // keeps the fork answering vitest (test/support/loopGuard.ts).
      await nextTurn()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

const structured = (a: Answer): Record<string, any> => {
  if (a._tag !== "result" || a.result["isError"] === true) throw new Error(`seeding call failed: ${JSON.stringify(a).slice(0, 500)}`)
  return a.result["structuredContent"] as Record<string, any>
}

/**
 * Real ids for biased inputs: a finished run and one parked on an operator approval (this client's),
 * another client's run and idempotency key, notes of both clients, the shipped skills' names.
 */
export const seedHot = async (daemon: FuzzDaemon): Promise<Hot> => {
  const own = await openSession(inProcess(daemon, daemon.clients.fuzz), "agents")
  const other = await openSession(inProcess(daemon, daemon.clients.other), "agents")
  const ownMemory = await openSession(inProcess(daemon, daemon.clients.fuzz), "memory")
  const otherMemory = await openSession(inProcess(daemon, daemon.clients.other), "memory")
  const call = async (s: Session, name: string, args: Record<string, unknown>) => structured(await s.callTool(name, JSON.stringify(args)))
  const finished = await call(own, "agent_run", { agent: "hermes", input: "a finished run", wait_s: 30 })
  const parked = await call(own, "agent_run", { agent: "hermes", input: "[sim:approval] a parked run" })
  const foreign = await call(other, "agent_run", { agent: "hermes", input: "another client's run", idempotency_key: "other-key", wait_s: 30 })
  const ownNote = await call(ownMemory, "memory_add", { text: "own note" })
  const sharedNote = await call(ownMemory, "memory_add", { text: "shared note", namespace: "shared" })
  const foreignNote = await call(otherMemory, "memory_add", { text: "another client's note" })
  const skills = await call(own, "agent_skills_list", {})
  for (const s of [own, other, ownMemory, otherMemory]) await s.close()
  return {
    ownRuns: [finished["run_id"], parked["run_id"]],
    foreignRuns: [foreign["run_id"]],
    ownNotes: [ownNote["id"], sharedNote["id"]],
    foreignNotes: [foreignNote["id"]],
    skills: (skills["skills"] as ReadonlyArray<{ name: string }>).map((s) => s.name),
    foreignIdempotencyKeys: ["other-key"]
  }
}

/** Names no caller can call on a server (typos, the other server's tools, junk). */
export const unknownToolCases = (names: ReadonlyArray<string>): ReadonlyArray<FuzzCase> =>
  names.map((tool) => ({ tool, family: "unknown" as const, args: "{}" }))
