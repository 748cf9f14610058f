/**
 * The nginx block of docs/DEPLOY.md, which the replica tests run as written (test/support/nginx.ts):
 * it carries what the bridge needs of a proxy (streamed answers, keep-alive upstream connections,
 * read timeouts past the SSE keep-alive and the longest wait, Host and X-Forwarded-For passed on),
 * and the support's filling-in refuses a block it cannot fill rather than run something else.
 */
import { describe, expect, it } from "vitest"
import { KEEP_ALIVE_MS } from "../../src/edge/mcp/McpSessions.ts"
import { WAIT_MAX_SECONDS } from "../../src/domain/limits.ts"
import { documentedConfig, fillConfig, parseAccessLog, wrapConfig } from "../support/nginx.ts"

const block = documentedConfig()
const seconds = (directive: string) => {
  const m = new RegExp(`^\\s*${directive}\\s+(\\d+)s;`, "m").exec(block)
  if (m === null) throw new Error(`no ${directive} in the documented block`)
  return Number(m[1])
}

describe("the documented nginx configuration", () => {
  it("streams answers, keeps upstream connections alive and passes the client's Host and address on", () => {
    for (const line of [
      "proxy_buffering off;",
      "proxy_http_version 1.1;",
      'proxy_set_header Connection "";',
      "proxy_set_header Host $http_host;",
      "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
      "proxy_pass http://agent_bridge;"
    ]) expect(block).toContain(line)
  })

  it("reads longer than the SSE keep-alive and than the longest agent_run_wait", () => {
    expect(seconds("proxy_read_timeout") * 1000).toBeGreaterThan(KEEP_ALIVE_MS)
    expect(seconds("proxy_read_timeout")).toBeGreaterThan(WAIT_MAX_SECONDS)
    expect(seconds("proxy_send_timeout")).toBeGreaterThan(WAIT_MAX_SECONDS)
  })

  it("is filled in with the replicas (their options kept) and the port, and wrapped in a prefix of its own", () => {
    const filled = fillConfig(block, ["127.0.0.1:1001", "127.0.0.1:1002", "127.0.0.1:1003"], 2000)
    expect(filled.match(/^\s*server 127\.0\.0\.1:100[123] max_fails=1 fail_timeout=10s;$/gm)).toHaveLength(3)
    expect(filled).not.toContain("8765")
    expect(filled).toContain("listen 127.0.0.1:2000;")
    const conf = wrapConfig(filled, "/tmp/x")
    expect(conf).toContain("pid /tmp/x/nginx.pid;")
    expect(conf).toContain("daemon off;")
  })

  it("refuses a block without upstream servers, without a listen line, or a page with two blocks", () => {
    expect(() => fillConfig("upstream a {\n}\nserver {\n    listen 127.0.0.1:8080;\n}\n", ["127.0.0.1:1"], 2)).toThrow(/upstream line/)
    expect(() => fillConfig("upstream a {\n    server 127.0.0.1:1;\n}\n", ["127.0.0.1:1"], 2)).toThrow(/listen/)
    expect(() => documentedConfig("```nginx\na\n```\n```nginx\nb\n```\n")).toThrow(/exactly one/)
  })

  it("reads the tests' access log: the replicas tried, the session id and the path", () => {
    expect(parseAccessLog("POST 200 127.0.0.1:1 - /mcp/agents/mcp\nPOST 200 127.0.0.1:1, 127.0.0.1:2 abc /oauth/token\nGET 502 - - /\n")).toEqual([
      { method: "POST", status: 200, upstreams: ["127.0.0.1:1"], sessionId: undefined, path: "/mcp/agents/mcp" },
      { method: "POST", status: 200, upstreams: ["127.0.0.1:1", "127.0.0.1:2"], sessionId: "abc", path: "/oauth/token" },
      { method: "GET", status: 502, upstreams: [], sessionId: undefined, path: "/" }
    ])
  })
})
