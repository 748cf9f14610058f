/**
 * The bundle `npm run build` makes (scripts/build.ts) serves what the sources serve: it starts, reads
 * the files that live beside its modules (the inbox's static assets, the shipped skills), runs a
 * delegated run on the embedded simulator, and its CLI verbs (loaded lazily) work. Built into
 * test-artifacts/ inside the repo, so the native SQLite binding resolves from node_modules as it
 * does for dist/.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BUNDLE_NAME, buildBundle, ROOT } from "../../scripts/build.ts"
import { runProcess } from "../support/runProcess.ts"
import { connectMcp, tempDir } from "../support/daemon.ts"
import { freeLoopbackPort } from "../support/freePort.ts"

describe("the bundled build", () => {
  const outdir = path.join(ROOT, "test-artifacts", "bundle")
  const bundle = path.join(outdir, BUNDLE_NAME)
  let url = ""
  let config = ""
  let dataDir = ""
  let stop = async () => {}

  beforeAll(async () => {
    await buildBundle(outdir)
    const dir = tempDir("agent-bridge-bundle-")
    dataDir = path.join(dir, "data")
    config = path.join(dir, "agent-bridge.yaml")
    const port = await freeLoopbackPort()
    fs.writeFileSync(config, `bridge: {port: ${port}, data_dir: ${JSON.stringify(dataDir)}}\n`)
    url = `http://127.0.0.1:${port}`
    const child = spawn(process.execPath, [bundle, "serve", "--config", config], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString() })
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
    stop = async () => {
      child.kill("SIGTERM")
      await exited
    }
    for (let i = 0; ; i++) {
      const ok = await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false)
      if (ok) break
      if (child.exitCode !== null || i > 600) throw new Error(`the bundle did not start: ${stderr}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }, 180_000)
  afterAll(async () => stop())

  it("serves the inbox's static assets, read from beside their module", async () => {
    const css = await fetch(`${url}/inbox/static/inbox.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get("content-type")).toContain("text/css")
    expect(await css.text()).toBe(fs.readFileSync(path.join(ROOT, "src", "edge", "inbox", "static", "inbox.css"), "utf8"))
  })

  it("lists the shipped skills and runs a task on the embedded simulator over MCP", async () => {
    const adminKey = fs.readFileSync(path.join(dataDir, "admin.key"), "utf8").trim()
    const client = await connectMcp(url, adminKey)
    const skills = (await client.callTool({ name: "agent_skills_list", arguments: {} })) as { structuredContent?: { skills: ReadonlyArray<{ name: string; source: string }> } }
    const shipped = fs.readdirSync(path.join(ROOT, "skills")).sort()
    expect(skills.structuredContent?.skills.filter((s) => s.source === "shipped").map((s) => s.name).sort()).toEqual(shipped)
    const run = (await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "hello from the bundle", wait_s: 60 } })) as { structuredContent?: { status: string } }
    expect(run.structuredContent?.status).toBe("completed")
    await client.close()
  }, 120_000)

  it("runs a lazily loaded CLI verb (client add) against the same data dir", async () => {
    const out = await runProcess(process.execPath, [bundle, "client", "add", "bundled", "--config", config])
    expect(out.status, out.stderr).toBe(0)
    expect(out.stdout).toMatch(/hal0bk_[0-9A-Za-z]{20,}/)
  }, 60_000)
})
