/**
 * Both protocol eras on both MCP servers, spoken by hand as a plain HTTP client would:
 * - 2026-07-28: no initialize and no session; each request carries its envelope and is answered on
 *   its own (server/discover, tools/list, tools/call), and its own key decides the caller;
 * - 2025-03-26, 2025-06-18 and 2025-11-25: initialize opens a session; its GET stream sends its
 *   headers at once (a comment and `retry`), not at the first keep-alive 15 s later;
 * - the skills extension (skills/list, skills/get, resources/read) serves what agent_skill_get serves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"
import { mcpHeaders, MODERN_PROTOCOL, modernRequest, rpcAnswer } from "../support/mcpWire.ts"

describe("protocol eras", () => {
  let daemon: TestDaemon
  let key: string
  beforeAll(async () => {
    daemon = await startDaemon(testConfig())
    key = await daemon.addClient("carol", ["agents", "memory"])
  })
  afterAll(async () => {
    await daemon?.close()
  })
  const url = (server: "agents" | "memory") => `${daemon.url}/mcp/${server}/mcp`
  const modern = async (server: "agents" | "memory", method: string, params: Record<string, unknown> = {}, as = key) => {
    const res = await fetch(url(server), modernRequest(as, 7, method, params))
    expect(res.headers.get("mcp-session-id")).toBeNull()
    return { status: res.status, answer: res.status === 200 ? await rpcAnswer(res) : await res.json() }
  }

  for (const server of ["agents", "memory"] as const) {
    it(`2026-07-28 on ${server}: discover, list and call with no handshake and no session`, async () => {
      const discover = await modern(server, "server/discover")
      expect(discover.answer["result"].supportedVersions).toContain(MODERN_PROTOCOL)
      expect((discover.answer["result"].serverInfo ?? discover.answer["result"]._meta["io.modelcontextprotocol/serverInfo"]).name).toBe(server === "agents" ? "hal0-agents" : "hal0-memory")
      expect(discover.answer["result"].instructions).toMatch(server === "agents" ? /agent_run_wait/ : /memory_search/)
      const list = await modern(server, "tools/list")
      const names = list.answer["result"].tools.map((t: { name: string }) => t.name)
      expect(names).toContain(server === "agents" ? "agent_run" : "memory_search")
      const tool = server === "agents" ? "agents_list" : "memory_list"
      const called = await modern(server, "tools/call", { name: tool, arguments: {} })
      expect(called.answer["result"].isError).toBeFalsy()
      expect(called.answer["result"].structuredContent).toBeDefined()
      const unknown = await modern(server, "tools/call", { name: "no_such_tool", arguments: {} })
      expect(unknown.answer["error"]).toEqual({ code: -32602, message: "Unknown tool: no_such_tool" })
    })
  }

  it("2026-07-28: each request authenticates on its own", async () => {
    expect((await modern("agents", "tools/list", {}, "not-a-key")).status).toBe(403)
    const other = await daemon.addClient("dora")
    expect((await modern("memory", "tools/list", {}, other)).status).toBe(403)
    expect((await modern("agents", "tools/list", {}, other)).status).toBe(200)
  })

  for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
    it(`${version}: initialize opens a session that lists and calls`, async () => {
      const init = await fetch(url("agents"), {
        method: "POST",
        headers: mcpHeaders(key, undefined),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "old", version: "0" } } })
      })
      const sid = init.headers.get("mcp-session-id")
      const answer = await rpcAnswer(init)
      expect(sid).toMatch(/^[0-9a-f-]{36}$/)
      expect(answer["result"].protocolVersion).toBe(version)
      expect(answer["result"].instructions).toMatch(/agent_run_wait/)
      const headers = { ...mcpHeaders(key, sid!), "mcp-protocol-version": version }
      await fetch(url("agents"), { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }).then((r) => r.text())
      const list = await rpcAnswer(await fetch(url("agents"), { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) }))
      expect(list["result"].tools.length).toBeGreaterThan(10)
      const call = await rpcAnswer(await fetch(url("agents"), {
        method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "agents_list", arguments: {} } })
      }))
      expect(call["result"].structuredContent.agents[0].name).toBe("hermes")
      await fetch(url("agents"), { method: "DELETE", headers }).then((r) => r.text())
    })
  }

  it("2025 era: the GET stream's headers and first bytes arrive at once", async () => {
    const init = await fetch(url("agents"), {
      method: "POST",
      headers: mcpHeaders(key, undefined),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "0" } } })
    })
    const sid = init.headers.get("mcp-session-id")!
    await init.text()
    const t0 = Date.now()
    const controller = new AbortController()
    const stream = await fetch(url("agents"), { method: "GET", headers: { ...mcpHeaders(key, sid), accept: "text/event-stream" }, signal: controller.signal })
    expect(stream.status).toBe(200)
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/)
    const first = new TextDecoder().decode((await stream.body!.getReader().read()).value)
    expect(Date.now() - t0).toBeLessThan(2_000)
    expect(first).toMatch(/^: stream open\nretry: \d+\n\n/)
    controller.abort()
  })

  it("skills extension: skills/list, skills/get and the SKILL.md resource serve what agent_skill_get serves", async () => {
    const listed = await modern("agents", "skills/list")
    const skills = listed.answer["result"].skills as Array<{ uri: string; frontmatter: { name: string; description: string } }>
    expect(skills.length).toBeGreaterThan(0)
    const first = skills[0]!
    expect(first.uri).toBe(`skill://hermes/${first.frontmatter.name}/SKILL.md`)
    expect(first.frontmatter.description.length).toBeGreaterThan(0)
    const got = await modern("agents", "skills/get", { uri: first.uri })
    const resources = got.answer["result"].skill.resources as Array<{ uri: string; size: number }>
    expect(resources.map((r) => r.uri)).toEqual([first.uri])
    const read = await modern("agents", "resources/read", { uri: first.uri })
    const text = read.answer["result"].contents[0].text as string
    const viaTool = await modern("agents", "tools/call", { name: "agent_skill_get", arguments: { name: first.frontmatter.name } })
    expect(text).toBe(viaTool.answer["result"].structuredContent.skill_md)
    expect(Buffer.byteLength(text)).toBe(resources[0]!.size)
    const missing = await modern("agents", "skills/get", { uri: "skill://hermes/no-such-skill/SKILL.md" })
    expect(missing.answer["error"].code).toBe(-32602)
    // The memory server has no skills.
    expect((await modern("memory", "skills/list")).answer["error"].code).toBe(-32601)
  })

  it("both servers declare the same capabilities in either era: tools with listChanged, and skills on agents only", async () => {
    for (const server of ["agents", "memory"] as const) {
      const discovered = (await modern(server, "server/discover")).answer["result"].capabilities
      const init = await fetch(url(server), {
        method: "POST",
        headers: mcpHeaders(key, undefined),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "0" } } })
      })
      const initialized = (await rpcAnswer(init))["result"].capabilities
      const sid = init.headers.get("mcp-session-id")!
      await fetch(url(server), { method: "DELETE", headers: { ...mcpHeaders(key, sid), "mcp-protocol-version": "2025-11-25" } }).then((r) => r.text())
      for (const capabilities of [discovered, initialized]) {
        expect(capabilities.tools).toEqual({ listChanged: true })
        expect(Object.keys(capabilities.extensions ?? {}).some((k) => k.includes("skills"))).toBe(server === "agents")
      }
    }
  })

  it("a tool call's server has no skills surface; the SDK checks Mcp-Method against the body before that matters", async () => {
    // Discovery, made by a server with the whole surface, advertises the extension.
    const discover = await modern("agents", "server/discover")
    expect(JSON.stringify(discover.answer["result"].capabilities)).toContain("skills")
    // A skills request that claims to be a tool call is refused for the mismatch, not answered
    // "method not found" by a server built without the extension.
    const req = modernRequest(key, 9, "skills/list")
    const res = await fetch(url("agents"), { ...req, headers: { ...req.headers, "mcp-method": "tools/call" } })
    expect(res.status).toBe(400)
    const answer = await res.json()
    expect(answer.error.code).not.toBe(-32601)
    expect(JSON.stringify(answer.error)).toMatch(/mcp-method/i)
  })
})

describe("Origin guard on the MCP endpoints", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ bridge: { allowed_origins: ["http://localhost:6274"] } }))
  })
  afterAll(async () => {
    await daemon?.close()
  })
  const list = (origin: string | undefined, server = "agents") => {
    const req = modernRequest(daemon.adminKey, 1, "tools/list")
    return fetch(`${daemon.url}/mcp/${server}/mcp`, { ...req, headers: { ...req.headers, ...(origin === undefined ? {} : { origin }) } })
  }

  it("refuses a request from an origin that is not listed with 403, before the key is looked at", async () => {
    for (const origin of ["http://evil.example", "null", "http://localhost:6275", "http://127.0.0.1:6274"]) {
      const res = await list(origin)
      expect(res.status).toBe(403)
      expect((await res.json()).error).toEqual({ code: "auth.forbidden", message: "this Origin is not allowed (add it to bridge.allowed_origins)" })
    }
    expect((await list("http://evil.example", "memory")).status).toBe(403)
    const noKey = await fetch(`${daemon.url}/mcp/agents/mcp`, { method: "POST", headers: { origin: "http://evil.example" }, body: "{}" })
    expect((await noKey.json()).error.message).toMatch(/Origin/)
  })

  it("serves the daemon's own origin (the request's Host), as the conformance suite's localhost check sends it", async () => {
    expect((await list(new URL(daemon.url).origin)).status).toBe(200)
  })

  it("serves a listed origin (case and a trailing slash aside) and requests without an Origin", async () => {
    for (const origin of [undefined, "http://localhost:6274", "HTTP://LOCALHOST:6274/"]) {
      const res = await list(origin)
      expect(res.status).toBe(200)
      await res.text()
    }
  })

  it("allows no origin by default", async () => {
    const plain = await startDaemon(testConfig())
    try {
      const req = modernRequest(plain.adminKey, 1, "tools/list")
      const res = await fetch(`${plain.url}/mcp/agents/mcp`, { ...req, headers: { ...req.headers, origin: "http://localhost:6274" } })
      expect(res.status).toBe(403)
    } finally {
      await plain.close()
    }
  })
})
