/**
 * The bridge killed (SIGKILL) during a quiet run against the real Hermes from PyPI, and started
 * again over the same data directory (docs/RELIABILITY.md, "restart"). The run is quiet: a
 * `terminal` call of `sleep 30` (the fake model's `sleep` scenario), so Hermes writes nothing to the
 * dead connection and still holds it when the restarted bridge re-attaches (200, the same queue);
 * the tool's end goes to the dead one and the queue is dropped. The run must end in the bridge, with
 * Hermes's output, within 30 s of ending in Hermes, with the default `hermes.quiet_check_ms`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { connectMcp, tempDir } from "../support/daemon.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { SLEEP_ANSWER } from "../support/fakeLlm.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { currentBuild } from "./support/build.ts"
import { type RealHermes, startRealHermes } from "./support/gateway.ts"

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Polls `f` every `everyMs` until it returns a value, at most `ms`. */
const poll = async <A>(f: () => Promise<A | undefined>, ms: number, everyMs = 250, what = "condition"): Promise<A> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const a = await f()
    if (a !== undefined) return a
    await sleep(everyMs)
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`)
}

describe(`a bridge SIGKILLed during a quiet run against the real Hermes: ${currentBuild().label}`, () => {
  let hermes: RealHermes | null = null
  const daemons: Array<DaemonProcess> = []
  afterAll(async () => {
    for (const d of daemons) await d.kill("SIGKILL").catch(() => undefined)
    await hermes?.stop()
  })

  it("the run ends in the restarted bridge within 30 s of ending in Hermes, with Hermes's output", async () => {
    hermes = await startRealHermes()
    const h = hermes
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({ bridge: { port, data_dir: path.join(dir, "data") }, hermes: { url: h.url, key: h.key } }))
    const first = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    daemons.push(first)
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const client = await connectMcp(first.url, adminKey)
    const started = (await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "[llm:sleep=30] wait for a while" } }))
      .structuredContent as { run_id: string }
    // The tool is running (its start reached the ledger): the run is quiet from here.
    await poll(async () => {
      const page = (await client.callTool({ name: "agent_run_events", arguments: { run_id: started.run_id, limit: 50 } }))
        .structuredContent as { events: ReadonlyArray<{ type: string }> }
      return page.events.some((e) => e.type === "tool.started") ? true : undefined
    }, 60_000, 250, "tool.started in the bridge")
    const hermesRunId = /hermes_run_id=(run_[0-9a-f]+)/.exec(first.output())?.[1]
    expect(hermesRunId).toMatch(/^run_[0-9a-f]{32}$/)
    await first.kill("SIGKILL")
    await client.close().catch(() => undefined)

    const second = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    daemons.push(second)
    const again = await connectMcp(second.url, adminKey)
    const hermesStatus = async () => {
      const r = await fetch(`${h.url}/v1/runs/${hermesRunId}`, { headers: { authorization: `Bearer ${h.key}` } })
      return (await r.json()) as { status: string; output?: string }
    }
    // Hermes ends the run (the sleep is over, the model answers); the bridge's stream is not told.
    const ended = await poll(async () => {
      const s = await hermesStatus()
      return s.status === "completed" || s.status === "failed" ? { ...s, at: Date.now() } : undefined
    }, 120_000, 200, "the run's end in Hermes")
    expect(ended.status).toBe("completed")
    const waited = (await again.callTool({ name: "agent_run_wait", arguments: { run_id: started.run_id, timeout_s: 45 } }))
      .structuredContent as { status: string; output: string }
    const lagMs = Date.now() - ended.at
    console.log(`the bridge settled the run ${lagMs} ms after Hermes ended it (quiet check: ${/Hermes ended a run its event stream did not report/.test(second.output()) ? "yes" : "no"})`)
    expect(waited.status).toBe("completed")
    expect(lagMs).toBeLessThan(30_000)
    expect(waited.output).toBe(ended.output)
    expect(waited.output).toContain(SLEEP_ANSWER)
    const list = (await again.callTool({ name: "agent_runs_list", arguments: { status: "running", limit: 10 } })).structuredContent as { runs: ReadonlyArray<unknown> }
    expect(list.runs).toEqual([])
    await again.close()
    await second.kill("SIGTERM")
  }, 300_000)
})
