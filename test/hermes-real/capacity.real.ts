/**
 * Past Hermes's capacity against the real Hermes, with its default cap (`max_concurrent_runs`, 10):
 * ten clients of one bridge daemon start four runs each at once (40 starts), as a team delegating
 * from several agents does. Every start must be accepted (a run that cannot be admitted yet waits
 * in the bridge, it is not refused), every run must complete, and Hermes must never have had more
 * than its cap in flight, by its own count (`active_api_runs` in `/health/detailed`, read by
 * `support/startCounter.ts`, a proxy between the bridge and Hermes that also notes every start
 * Hermes admitted or refused) and by the fake model's count of agent turns answered at once.
 *
 * Kept in a file of its own so it can run alone:
 * `HERMES_ARMS=0.19 npm run test:hermes -- test/hermes-real/capacity.real.ts`.
 */
import { afterAll, describe, expect, it } from "vitest"
import { connectMcp, errorTextOf, startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"
import { currentBuild } from "./support/build.ts"
import { type RealHermes, startRealHermes } from "./support/gateway.ts"
import { type StartCounter, startStartCounter } from "./support/startCounter.ts"

const CLIENTS = 10
const RUNS_PER_CLIENT = 4
/** Hermes's default `gateway.api_server.max_concurrent_runs`, left as it is. */
const HERMES_CAP = 10
const TERMINAL = new Set(["completed", "failed", "cancelled", "interrupted"])

type Client = Awaited<ReturnType<typeof connectMcp>>

describe(`past Hermes's capacity: ${currentBuild().label}`, () => {
  let hermes: RealHermes | null = null
  let counter: StartCounter | null = null
  let daemon: TestDaemon | null = null
  const clients: Array<Client> = []
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    await daemon?.close()
    await counter?.close()
    await hermes?.stop()
  }, 60_000)

  it(`${CLIENTS * RUNS_PER_CLIENT} starts from ${CLIENTS} clients at once: every one accepted, every run completes, never more than ${HERMES_CAP} in flight at Hermes`, async () => {
    hermes = await startRealHermes()
    counter = await startStartCounter(hermes.url, hermes.key)
    daemon = await startDaemon(testConfig({
      hermes: { url: counter.url, key: hermes.key },
      bridge: { max_concurrent_runs_per_client: RUNS_PER_CLIENT }
    }))
    for (let i = 0; i < CLIENTS; i++) clients.push(await connectMcp(daemon.url, await daemon.addClient(`team-${i}`)))

    const t0 = Date.now()
    const starts = await Promise.all(clients.flatMap((c, i) =>
      Array.from({ length: RUNS_PER_CLIENT }, (_, j) =>
        c.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `[llm:slow=3000] team ${i}, run ${j}` } })
          .then((r) => ({ client: c, who: `team-${i}#${j}`, error: errorTextOf(r), runId: (r.structuredContent as { run_id?: string } | undefined)?.run_id }))
      )
    ))
    const refused = starts.filter((s) => s.error !== "").map((s) => `${s.who}: ${s.error}`)
    console.log(`${starts.length - refused.length} of ${starts.length} starts accepted by the bridge; Hermes answered ${counter.admitted.length} with 202 and refused ${[...counter.refused].map(([status, n]) => `${n} with ${status}`).join(", ") || "none"}`)
    expect(refused).toEqual([])

    // Each run waited through to its end.
    const finals = await Promise.all(starts.map(async (s) => {
      const deadline = Date.now() + 300_000
      while (Date.now() < deadline) {
        const w = await s.client.callTool({ name: "agent_run_wait", arguments: { run_id: s.runId, timeout_s: 60 } })
        const view = w.structuredContent as { status?: string; output?: string } | undefined
        if (view?.status !== undefined && TERMINAL.has(view.status)) return { who: s.who, status: view.status, output: view.output ?? "" }
      }
      return { who: s.who, status: "still waiting after 300 s", output: "" }
    }))
    const wallMs = Date.now() - t0
    console.log(`all ${finals.length} runs ended in ${wallMs} ms; Hermes reported at most ${counter.maxLive()} live API runs (${counter.polls()} reads, ${counter.missed()} unanswered), the model at most ${hermes.llm.maxTurnsInFlight()} agent turns at once`)
    expect(finals.filter((f) => f.status !== "completed")).toEqual([])
    for (const f of finals) expect(f.output).toContain("part 20.")

    // One Hermes run per bridge run, and Hermes never past its cap (but at it: the test pressed it).
    expect(counter.admitted).toHaveLength(CLIENTS * RUNS_PER_CLIENT)
    expect(counter.problems).toEqual([])
    expect(counter.maxLive()).toBe(HERMES_CAP)
    expect(hermes.llm.maxTurnsInFlight()).toBeLessThanOrEqual(HERMES_CAP)
    expect(hermes.sink.hits).toEqual([])
  }, 600_000)
})
