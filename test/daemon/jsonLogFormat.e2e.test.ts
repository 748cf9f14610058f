/**
 * `bridge.log_format: json` covers everything the daemon prints: from its start (the banner), on
 * its way (log entries) to its exit (SIGTERM), every line of its stderr and stdout is one JSON log
 * entry; and a start that fails (the port is taken) ends in one JSON line too. With `text` the
 * banner stays the block an operator reads.
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as YAML from "yaml"
import { describe, expect, it } from "vitest"
import { spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { runProcess } from "../support/runProcess.ts"
import { connectMcp } from "../support/daemon.ts"
import { tempDir } from "../support/tempDirs.ts"

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "bin", "agent-bridge.js")

const configIn = (dir: string, port: number, format: "json" | "text") => {
  const file = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(file, YAML.stringify({ bridge: { port, data_dir: path.join(dir, "data"), log_format: format } }))
  return file
}

/** The environment without anything that would override the test's config file. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("AGENT_BRIDGE_") && k !== "NODE_OPTIONS"))

const nonEmptyLines = (text: string) => text.split("\n").filter((l) => l.trim() !== "")

/** Each line parsed as a JSON log entry (fails the test naming the first line that is not one). */
const entries = (text: string) =>
  nonEmptyLines(text).map((line) => {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw new Error(`not a JSON log line: ${line}`)
    }
    expect(parsed).toMatchObject({ message: expect.anything(), logLevel: expect.any(String), timestamp: expect.any(String) })
    return parsed as { readonly message: unknown; readonly logLevel: string; readonly annotations: Record<string, unknown> }
  })

describe("log_format: json", () => {
  it("every line from start to exit is a JSON log entry; the banner's facts are its fields", async () => {
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const daemon = await spawnDaemon({ configFile: configIn(dir, port, "json"), port, readyTimeoutMs: 90_000 })
    await daemon.kill("SIGTERM")
    expect(await daemon.exited).toEqual({ code: 0, signal: null })
    const all = entries(daemon.output())
    const banner = all.find((e) => e.message === "agent-bridge listening")
    expect(banner?.logLevel).toBe("INFO")
    expect(banner?.annotations).toMatchObject({
      address: `http://127.0.0.1:${port}`,
      mcp_agents: `http://127.0.0.1:${port}/mcp/agents/mcp`,
      mcp_memory: `http://127.0.0.1:${port}/mcp/memory/mcp`,
      health: `http://127.0.0.1:${port}/healthz`,
      inbox: `http://127.0.0.1:${port}/inbox`,
      data_dir: path.join(dir, "data"),
      hermes: expect.stringContaining("built-in simulator")
    })
  }, 120_000)

  it("a run's follower logs through the daemon's logger: its end is a JSON entry with the run's id", async () => {
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const daemon = await spawnDaemon({ configFile: configIn(dir, port, "json"), port, readyTimeoutMs: 90_000 })
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const client = await connectMcp(daemon.url, adminKey, "agents", "modern")
    const started = await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: "write a haiku" } })
    expect(started.isError).toBeFalsy()
    const runId = (started.structuredContent as { run_id: string }).run_id
    const waited = await client.callTool({ name: "agent_run_wait", arguments: { run_id: runId, timeout_s: 30 } })
    expect((waited.structuredContent as { status: string }).status).toBe("completed")
    await client.close()
    await daemon.kill("SIGTERM")
    expect(await daemon.exited).toEqual({ code: 0, signal: null })
    // The follower's fiber was forked from the run service's runtime, not from the tool call.
    const ended = entries(daemon.output()).filter((e) => e.message === "run ended")
    expect(ended).toHaveLength(1)
    expect(ended[0]).toMatchObject({ logLevel: "INFO", annotations: { run_id: runId, runId, status: "completed" } })
  }, 120_000)

  it("a start that fails (the port is taken) is one JSON error line, and exit 1", async () => {
    const dir = tempDir()
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const r = await runProcess(process.execPath, [BIN, "serve", "--config", configIn(dir, port, "json")], { cwd: dir, env: cleanEnv(), timeoutMs: 90_000 })
      expect(r.status).toBe(1)
      const all = entries(`${r.stdout}\n${r.stderr}`)
      expect(all.at(-1)).toMatchObject({ logLevel: "ERROR", message: expect.stringContaining(String(port)) })
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
  }, 120_000)

  it("with text, the banner is the block the operator reads", async () => {
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const daemon = await spawnDaemon({ configFile: configIn(dir, port, "text"), port, readyTimeoutMs: 90_000 })
    await daemon.kill("SIGTERM")
    expect(daemon.output()).toContain(`agent-bridge listening on http://127.0.0.1:${port}\n  MCP (agents): http://127.0.0.1:${port}/mcp/agents/mcp\n`)
  }, 120_000)
})
