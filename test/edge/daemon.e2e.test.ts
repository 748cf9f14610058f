/**
 * The daemon over real HTTP with the SDK's Client: initialize, tools/list, agents_list,
 * agent_capabilities, and every auth refusal (no key, unknown key, revoked key, wrong scope, bad Host,
 * bridge disabled).
 */
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bridgeMeta, connectMcp, errorTextOf, startDaemon, tempDir, testConfig, type TestDaemon } from "../support/daemon.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"

/** A raw request, so the Host header can be set (fetch forbids it). */
const rawPost = (url: string, headers: Record<string, string>, body = "{}") =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(url)
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        let data = ""
        res.on("data", (c) => (data += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const initBody = JSON.stringify({
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
})

describe("daemon over HTTP", () => {
  let daemon: TestDaemon
  let home: string
  beforeAll(async () => {
    const dir = tempDir()
    home = path.join(dir, "hermes-home")
    fs.mkdirSync(path.join(home, "profiles", "coder"), { recursive: true })
    fs.writeFileSync(path.join(home, "config.yaml"), [
      "model_aliases:", "  fast: {model: m-small, provider: local}",
      "toolsets: [web, terminal]", "agent: {disabled_toolsets: [browser]}",
      "mcp_servers:", "  github: {url: 'https://example.invalid', headers: {Authorization: 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'}}",
      "skills: {external_dirs: [/srv/skills, 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789']}",
      "platforms: {api_server: {enabled: true}, telegram: {enabled: false}}",
      "approvals: {mode: manual}"
    ].join("\n"))
    fs.writeFileSync(path.join(home, "profiles", "coder", "config.yaml"), "model: [unclosed")
    const config = testConfig({ hermes: { home, url: "http://127.0.0.1:9", profiles: { coder: {}, nokey: {} } } }, dir)
    daemon = await startDaemon(config, HermesClientTest({ profiles: [{ name: "default" }, { name: "coder", up: false }, { name: "nokey", keyed: false }] }))
  })
  afterAll(async () => daemon.close())

  it("lists the 16 seed tools with per-field schemas", async () => {
    const client = await connectMcp(daemon.url, daemon.adminKey)
    expect(client.getServerVersion()?.name).toBe("hal0-agents")
    const { tools } = await client.listTools()
    // The seed's 16 tools come first, in the seed's order; a tool added beside them follows.
    expect(tools.slice(0, 16).map((t) => t.name)).toEqual([
      "agents_list", "agent_run", "agent_run_wait", "agent_run_status", "agent_run_events", "agent_run_answer",
      "agent_run_steer", "agent_run_stop", "agent_runs_list", "agent_memory_add", "agent_memory_search",
      "agent_skills_list", "agent_skill_get", "agent_skill_put", "agent_skill_delete", "agent_capabilities"
    ])
    expect(tools.map((t) => t.name)).toEqual(agentTools.map((t) => t.name))
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object")
      expect(t.inputSchema.properties).toBeDefined()
      expect(t.description?.length).toBeGreaterThan(40)
      expect(t.annotations?.readOnlyHint).toBeTypeOf("boolean")
    }
    const run = tools.find((t) => t.name === "agent_run")!
    expect(run.inputSchema.required).toEqual(["agent", "input"])
    expect(Object.keys(run.inputSchema.properties ?? {})).toEqual(
      ["agent", "input", "session_key", "instructions", "reasoning_effort", "idempotency_key", "wait_s"]
    )
    await client.close()
  })

  it("agents_list shows each profile's health, key and model, plus Pi", async () => {
    const key = await daemon.addClient("laptop")
    const client = await connectMcp(daemon.url, key)
    const res = await client.callTool({ name: "agents_list", arguments: {} })
    expect(res.isError).toBeFalsy()
    expect(res.structuredContent).toEqual({
      agents: [
        {
          name: "hermes", agent_id: "hermes", health: "ok", keyed: true, model_id: "hermes-agent",
          hermes_features: { steer: false, event_replay: null, durable_idempotency: false }
        },
        { name: "hermes/coder", agent_id: "hermes__coder", health: "down", keyed: true, model_id: null, hermes_features: null },
        { name: "hermes/nokey", agent_id: "hermes__nokey", health: "ok", keyed: false, model_id: null, hermes_features: null },
        { name: "pi", runnable: false }
      ]
    })
    await client.close()
  })

  it("agent_capabilities projects the allow-list and drops secret-shaped strings", async () => {
    const client = await connectMcp(daemon.url, daemon.adminKey)
    const res = await client.callTool({ name: "agent_capabilities", arguments: { agent: "hermes" } })
    expect(res.structuredContent).toEqual({
      agent: "hermes", profile: "default", api_server_version: "0.20.4",
      model_aliases: { fast: { model: "m-small", provider: "local" } },
      toolsets_enabled: ["web", "terminal"], toolsets_disabled: ["browser"], mcp_servers: ["github"],
      skills_dirs: ["/srv/skills"], platforms_enabled: ["api_server"], approvals_mode: "manual"
    })
    expect(JSON.stringify(res)).not.toContain("ghp_")
    const broken = await client.callTool({ name: "agent_capabilities", arguments: { agent: "hermes/coder" } })
    expect(broken.structuredContent).toEqual({
      agent: "hermes/coder", profile: "coder", api_server_version: null, model_aliases: null, toolsets_enabled: null,
      toolsets_disabled: null, mcp_servers: null, skills_dirs: null, platforms_enabled: null, approvals_mode: null
    })
    const unknown = await client.callTool({ name: "agent_capabilities", arguments: { agent: "hermes/nope" } })
    expect(errorTextOf(unknown)).toMatch(/^Error executing tool agent_capabilities: bridge\.unknown_agent: /)
    expect(bridgeMeta(unknown._meta)).toEqual({ "agent-bridge/error": { code: "bridge.unknown_agent", status: 404 } })
    await client.close()
  })

  it("undecodable arguments are a typed tool error naming the field", async () => {
    const client = await connectMcp(daemon.url, daemon.adminKey)
    const res = await client.callTool({ name: "agent_capabilities", arguments: { agent: 42 } })
    expect(errorTextOf(res)).toMatch(/bridge\.invalid_input: invalid arguments: agent must be a string \(got 42\)$/)
    const offset = await client.callTool({ name: "agent_run_status", arguments: { run_id: "run_x", offset: -1 } })
    expect(errorTextOf(offset)).toMatch(/bridge\.invalid_offset: /)
    await client.close()
  })

  it("refuses a request without a key, with an unknown key and with a revoked key", async () => {
    for (const headers of [{}, { authorization: "Bearer hal0bk_unknown" }]) {
      const res = await rawPost(`${daemon.url}/mcp/agents/mcp`, { host: "127.0.0.1", ...headers }, initBody)
      expect(res.status).toBe(403)
      expect(JSON.parse(res.body).error.code).toBe("auth.forbidden")
    }
    const key = await daemon.addClient("revoked-one")
    expect((await rawPost(`${daemon.url}/mcp/agents/mcp`, { host: "127.0.0.1", authorization: `Bearer ${key}` }, initBody)).status).toBe(200)
    await daemon.revoke("revoked-one")
    const after = await rawPost(`${daemon.url}/mcp/agents/mcp`, { host: "127.0.0.1", authorization: `Bearer ${key}` }, initBody)
    expect(after.status).toBe(403)
  })

  it("needs the memory scope for the memory server", async () => {
    const key = await daemon.addClient("no-memory")
    const res = await rawPost(`${daemon.url}/mcp/memory/mcp`, { host: "127.0.0.1", authorization: `Bearer ${key}` }, initBody)
    expect(res.status).toBe(403)
    expect(JSON.parse(res.body).error.code).toBe("auth.forbidden")
    const withScope = await daemon.addClient("with-memory", ["agents", "memory"])
    const ok = await rawPost(`${daemon.url}/mcp/memory/mcp`, { host: "127.0.0.1", authorization: `Bearer ${withScope}` }, initBody)
    expect(ok.status).toBe(200)
  })

  it("refuses a Host outside the allowlist before anything else", async () => {
    const res = await rawPost(`${daemon.url}/mcp/agents/mcp`, { host: "evil.example:8765", authorization: `Bearer ${daemon.adminKey}` }, initBody)
    expect(res.status).toBe(403)
    const health = await rawPost(`${daemon.url}/healthz`, { host: "rebind.example" })
    expect(health.status).toBe(403)
    // Not a host[:port]: refused, though it starts with a loopback name (issue 37 item 8d).
    for (const host of ["localhost:1@evil.com", "127.0.0.1/x", "localhost:80:81"]) {
      const card = await rawPost(`${daemon.url}/.well-known/agent-card.json`, { host })
      expect(card.status, host).toBe(403)
    }
  })

  it("reports readiness on /healthz", async () => {
    const res = await fetch(`${daemon.url}/healthz`, { headers: { authorization: `Bearer ${daemon.adminKey}` } })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ status: "ok", ready: true, ledger: "ok" })
  })
})

describe("bridge disabled", () => {
  it("answers 404 on /mcp/agents/* and still serves memory", async () => {
    const daemon = await startDaemon(testConfig({ bridge: { enabled: false } }), HermesClientTest())
    try {
      const res = await rawPost(`${daemon.url}/mcp/agents/mcp`, { host: "localhost", authorization: `Bearer ${daemon.adminKey}` }, initBody)
      expect(res.status).toBe(404)
      const mem = await rawPost(`${daemon.url}/mcp/memory/mcp`, { host: "localhost", authorization: `Bearer ${daemon.adminKey}` }, initBody)
      expect(mem.status).toBe(200)
    } finally {
      await daemon.close()
    }
  })
})
