/**
 * With no Hermes configured, the daemon's runs live in its embedded simulator. `agent-bridge inbox`
 * runs in its own process: it must reach that simulator (published in `<data_dir>/embedded-hermes.json`)
 * to answer a run approval, not start an empty one of its own that knows no run.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseArgs } from "../../src/cli/args.ts"
import { inboxCommandLine } from "../../src/cli/inboxRuntime.ts"
import { EMBEDDED_FILE, readEmbedded } from "../../src/hermes/embeddedFile.ts"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"

type View = { readonly status: string; readonly output: string | null; readonly awaiting_approval?: { readonly approval_id: string } }
const structured = (r: unknown) => (r as { structuredContent: View }).structuredContent

describe("the CLI and the daemon's embedded simulator", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig())
  })
  afterAll(async () => daemon?.close())

  it("the daemon publishes its simulator (0600) and the CLI's approval reaches the run in it", async () => {
    const published = readEmbedded(daemon.config.dataDir)
    expect(Option.map(published, (p) => p.pid)).toEqual(Option.some(process.pid))
    expect(fs.statSync(path.join(daemon.config.dataDir, EMBEDDED_FILE)).mode & 0o777).toBe(0o600)

    const mcp = await connectMcp(daemon.url, await daemon.addClient("laptop"))
    const started = structured(await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "clean up [sim:approval]" } }))
    const runId = (started as unknown as { run_id: string }).run_id
    let view = started
    for (let i = 0; i < 100 && view.awaiting_approval === undefined; i++) {
      await new Promise((r) => setTimeout(r, 50))
      view = structured(await mcp.callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
    }
    expect(view.status).toBe("waiting_for_approval")

    // `agent-bridge inbox approve ID`, as the CLI runs it.
    const code = await inboxCommandLine(daemon.config, parseArgs(["inbox", "approve", view.awaiting_approval!.approval_id]))
    expect(code).toBe(0)
    const done = structured(await mcp.callTool({ name: "agent_run_wait", arguments: { run_id: runId, timeout_s: 30 } }))
    expect(done.status).toBe("completed")
    expect(done.output).toContain("after approval")
    await mcp.close()
  })

  it("the file goes when the daemon stops", async () => {
    await daemon.close()
    expect(fs.existsSync(path.join(daemon.config.dataDir, EMBEDDED_FILE))).toBe(false)
  })
})
