/**
 * Issue 25 item 7, seen from outside: two replicas on one PostgreSQL (test/support/fleet.ts, real
 * `agent-bridge serve` processes, their own server), four live runs. Each replica's log says which
 * runs it took (`run started` / `run picked up again`; the last to take a run follows it); the console of either replica, and
 * `agent-bridge runs show` (a CLI process, no runner), must name that replica's runner address as
 * the follower of each run, and list both replicas with a recent heartbeat, the page's own replica
 * marked with its `bridge.replica_id`.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { makeClient } from "../inbox/fetchClient.ts"
import { connectMcp } from "../support/daemon.ts"
import { type Fleet, type FleetReplica, startFleet } from "../support/fleet.ts"
import { usePostgres } from "../support/postgres.ts"
import { sleep } from "../support/poll.ts"

type Json = Record<string, any>
const RUNS = 4
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** `agent-bridge runs …` as a child process; killed after 240 s (a loaded machine starts it slowly). */
const cli = (configFile: string, ...args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> =>
  new Promise((resolve, reject) => {
    const t0 = Date.now()
    const env: NodeJS.ProcessEnv = { AGENT_BRIDGE_FROM_SOURCE: "1" }
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("AGENT_BRIDGE_") && k !== "NODE_OPTIONS") env[k] = v
    const child = spawn(process.execPath, [path.join(REPO, "bin", "agent-bridge.js"), ...args, "--config", configFile], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000)
    child.once("error", reject)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: Date.now() - t0 })
    })
  })

const clusterAddressOf = (r: FleetReplica): string => {
  const config = YAML.parse(fs.readFileSync(r.configFile, "utf8")) as { cluster: { port: number } }
  return `127.0.0.1:${config.cluster.port}`
}

/** When this replica's log last says it took the run (started or picked up again), epoch ms; 0: never. */
const tookAt = (output: string, runId: string): number => {
  let at = 0
  for (const l of output.split("\n")) {
    if (!l.includes(runId) || !(l.includes("run started") || l.includes("run picked up again"))) continue
    const t = Date.parse(/timestamp=(\S+)/.exec(l)?.[1] ?? "")
    if (Number.isFinite(t)) at = Math.max(at, t)
  }
  return at
}

/**
 * Each run's follower as the replicas' logs say: the replica that took it last. Two replicas that
 * start together settle their shards in the first seconds (the first runner holds them all until
 * the second registers, then hands half over), so a run started meanwhile may be taken twice.
 */
const followersByLogs = (replicas: ReadonlyArray<FleetReplica>, runIds: ReadonlyArray<string>): Map<string, string> => {
  const out = new Map<string, string>()
  for (const id of runIds) {
    const [at, who] = replicas.map((r) => [tookAt(r.output(), id), r] as const).sort((a, b) => b[0] - a[0])[0]!
    if (at > 0) out.set(id, clusterAddressOf(who))
  }
  return out
}

/** The follower cell of each run row of the runs page: run id → data-follower. */
const followersOnPage = (body: string): Map<string, string> => {
  const out = new Map<string, string>()
  for (const m of body.matchAll(/<tr data-run="([^"]+)">[\s\S]*?<td class="replica"(?: data-follower="([^"]*)")?>/g)) out.set(m[1]!, m[2] ?? "")
  return out
}

describe("the console and runs show name the replica that follows each live run (two replicas)", () => {
  const pg = usePostgres()
  let fleet: Fleet | undefined
  const clients: Array<Client> = []
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    await fleet?.stop()
  }, 60_000)

  it("each run's follower as the replicas' logs say, on both consoles and in the CLI; both replicas listed", async (ctx) => {
    fleet = await startFleet({ storageUrl: await pg.database(ctx), replicas: 2, nginx: false })
    const [r0, r1] = fleet.replicas as [FleetReplica, FleetReplica]
    const mcp = await connectMcp(r0.url, fleet.adminKey, "agents", "modern")
    clients.push(mcp)
    const ids: Array<string> = []
    for (let i = 0; i < RUNS; i++) {
      const started = (await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `[sim:slow=300s] follow me ${i}` } })) as { structuredContent: Json }
      ids.push(started.structuredContent["run_id"] as string)
    }
    // Each page names, for every run, the replica whose log took it last; polled (bounded, 120 s
    // under load) while the shards settle. A console that named another runner for good fails here.
    const pages = [r0, r1].map((r) => ({ r, web: makeClient(r.url) }))
    for (const { web } of pages) expect((await web.signIn(fleet.adminKey)).status).toBe(303)
    let expected = new Map<string, string>()
    let seen: Array<Map<string, string>> = []
    for (let i = 0; i < 240; i++) {
      expected = followersByLogs([r0, r1], ids)
      seen = await Promise.all(pages.map(async ({ web }) => followersOnPage((await web.send("GET", "/inbox/runs")).body)))
      if (expected.size === RUNS && seen.every((shown) => ids.every((id) => shown.get(id) === expected.get(id)))) break
      await sleep(500)
    }
    expect(expected.size).toBe(RUNS)
    for (const [i, shown] of seen.entries()) for (const id of ids) expect(shown.get(id), `${pages[i]!.r.name}'s page, run ${id}`).toBe(expected.get(id))

    for (const { r, web } of pages) {
      const list = (await web.send("GET", "/inbox/runs")).body
      // Both replicas, live, this one marked with its replica id.
      const rows = [...list.matchAll(/<tr data-replica="([^"]+)"( class="self")?>[\s\S]*?<\/tr>/g)]
      expect(rows.map((m) => m[1]).sort()).toEqual([clusterAddressOf(r0), clusterAddressOf(r1)].sort())
      const self = rows.find((m) => m[2] !== undefined)
      expect(self?.[1]).toBe(clusterAddressOf(r))
      expect(self?.[0]).toContain(`<td>${r.name}</td>`)
      for (const m of rows) expect(m[0]).toContain("state-approved\">live")
      const page = (await web.send("GET", `/inbox/runs/${ids[0]}`)).body
      expect(page).toContain(`<dd id="run-follower" data-follower="${expected.get(ids[0]!)}">`)
    }

    // The CLI is no runner: it names the follower by address.
    for (const id of ids.slice(0, 2)) {
      const shown = await cli(r1.configFile, "runs", "show", id, "--json")
      process.stderr.write(`[replicas] runs show --json: ${shown.ms} ms\n`)
      expect(shown.code, `${shown.stderr}\n${shown.stdout}`).toBe(0)
      expect((JSON.parse(shown.stdout) as { follower: string }).follower).toBe(expected.get(id))
      const text = await cli(r1.configFile, "runs", "show", id)
      expect(text.stdout).toContain(`follower: ${expected.get(id)}\n`)
    }
  }, 600_000)
})
