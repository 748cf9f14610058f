import { Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { applyEnvOverrides, loadConfig } from "../../src/config/load.ts"
import { tempDir } from "../support/daemon.ts"

const write = (text: string) => {
  const dir = tempDir("agent-bridge-config-")
  const file = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(file, text)
  return { dir, file }
}

describe("configuration", () => {
  it("applies the documented defaults when no file exists", () => {
    const cfg = Either.getOrThrow(loadConfig({ env: {}, cwd: tempDir() }))
    expect(cfg.source).toBeNull()
    expect(cfg.bridge).toMatchObject({ enabled: true, host: "127.0.0.1", port: 8765, allowed_hosts: [], run_retention_days: 7, max_concurrent_runs_per_client: 4 })
    expect(cfg.hermes).toMatchObject({ key_env: "API_SERVER_KEY", multiplex: false, profiles: {} })
    expect(cfg.useSimulator).toBe(true)
    expect(cfg.memory.enabled).toBe(true)
    expect(cfg.a2a.enabled).toBe(true)
    expect(cfg.dropinDir).toBe(path.join(cfg.dataDir, "skills"))
  })

  it("reads the whole documented example, with secrets as Redacted", () => {
    const { file, dir } = write(`
bridge: {enabled: true, host: 127.0.0.1, port: 8765, data_dir: ./.agent-bridge, allowed_hosts: [box.lan], run_retention_days: 7, max_concurrent_runs_per_client: 4}
hermes:
  home: ~/.hermes
  url: http://127.0.0.1:8642
  key: sekrit-value-123
  multiplex: false
  profiles: {coder: {url: http://127.0.0.1:8643, key_file: /path/to/key}}
memory: {enabled: true}
skills: {dropin_dir: ./skills-here}
clients: {my-laptop: {catalog: compact, tools: {include: [], exclude: []}}}
`)
    const cfg = Either.getOrThrow(loadConfig({ configPath: file, env: {} }))
    expect(cfg.useSimulator).toBe(false)
    expect(Redacted.isRedacted(cfg.hermes.key)).toBe(true)
    expect(String(cfg.hermes.key)).not.toContain("sekrit")
    expect(cfg.hermes.profiles["coder"]?.key_file).toBe("/path/to/key")
    expect(cfg.clients["my-laptop"]?.catalog).toBe("compact")
    expect(cfg.dataDir).toBe(path.join(dir, ".agent-bridge"))
    expect(cfg.dropinDir).toBe(path.join(dir, "skills-here"))
  })

  it("names the file, the key and what was expected when a value is wrong", () => {
    const { file } = write("bridge:\n  port: lots\n")
    const res = loadConfig({ configPath: file, env: {} })
    expect(Either.isLeft(res)).toBe(true)
    const message = Either.isLeft(res) ? res.left.message : ""
    expect(message).toContain(file)
    expect(message).toContain("bridge.port")
    expect(message).toMatch(/Expected/)
  })

  it("refuses unknown keys, invalid YAML and a missing file, naming the file", () => {
    for (const text of ["bridge: {prot: 1}\n", "bridge: [unclosed\n"]) {
      const { file } = write(text)
      const res = loadConfig({ configPath: file, env: {} })
      expect(Either.isLeft(res) && res.left.message.includes(file)).toBe(true)
    }
    const res = loadConfig({ configPath: "/nonexistent/agent-bridge.yaml", env: {} })
    expect(Either.isLeft(res) && res.left.message.includes("/nonexistent/agent-bridge.yaml")).toBe(true)
  })

  it("lets AGENT_BRIDGE_* override the file and finds the file through AGENT_BRIDGE_CONFIG", () => {
    const { file } = write("bridge: {port: 9000}\nhermes: {url: http://127.0.0.1:1}\n")
    const cfg = Either.getOrThrow(loadConfig({
      env: { AGENT_BRIDGE_CONFIG: file, AGENT_BRIDGE_BRIDGE_PORT: "9100", AGENT_BRIDGE_BRIDGE_ALLOWED_HOSTS: "a.lan,b.lan", AGENT_BRIDGE_HERMES_URL: "sim", AGENT_BRIDGE_MEMORY_ENABLED: "false", AGENT_BRIDGE_INBOX_HISTORY_RETENTION_DAYS: "90" }
    }))
    expect(cfg.source).toBe(file)
    expect(cfg.bridge.port).toBe(9100)
    expect(cfg.bridge.allowed_hosts).toEqual(["a.lan", "b.lan"])
    expect(cfg.useSimulator).toBe(true)
    expect(cfg.memory.enabled).toBe(false)
    expect(cfg.inbox.history_retention_days).toBe(90)
    const bad = loadConfig({ env: { AGENT_BRIDGE_BRIDGE_PORT: "99999" }, cwd: tempDir() })
    expect(Either.isLeft(bad) && bad.left.message.includes("bridge.port")).toBe(true)
  })

  it("a2a.enabled: from the file, and from AGENT_BRIDGE_A2A_ENABLED", () => {
    expect(Either.getOrThrow(loadConfig({ env: { AGENT_BRIDGE_A2A_ENABLED: "false" }, cwd: tempDir() })).a2a.enabled).toBe(false)
    const bad = loadConfig({ env: { AGENT_BRIDGE_A2A_ENABLED: "maybe" }, cwd: tempDir() })
    expect(Either.isLeft(bad) && bad.left.message.includes("a2a")).toBe(true)
  })

  it("a2a.webhook_allow: empty by default; its entries are checked at load, from the file and AGENT_BRIDGE_A2A_WEBHOOK_ALLOW", () => {
    expect(Either.getOrThrow(loadConfig({ env: {}, cwd: tempDir() })).a2a.webhook_allow).toEqual([])
    const { file } = write("a2a:\n  webhook_allow: [\"https://hooks.example.com/a2a/\", \"*.example.org\", \"203.0.113.0/24\", \"127.0.0.1\"]\n")
    expect(Either.getOrThrow(loadConfig({ configPath: file, env: {} })).a2a.webhook_allow).toHaveLength(4)
    const fromEnv = loadConfig({ env: { AGENT_BRIDGE_A2A_WEBHOOK_ALLOW: "hooks.example.com,10.0.0.0/8" }, cwd: tempDir() })
    expect(Either.getOrThrow(fromEnv).a2a.webhook_allow).toEqual(["hooks.example.com", "10.0.0.0/8"])
    for (const entry of ["10.0.0.0/40", "not a host!", "https://u:p@hooks.example.com/"]) {
      const bad = write(`a2a:\n  webhook_allow: [${JSON.stringify(entry)}]\n`)
      const res = loadConfig({ configPath: bad.file, env: {} })
      expect(Either.isLeft(res) && res.left.message.includes("a2a.webhook_allow")).toBe(true)
    }
  })

  it("a2a.push_*: the delivery bounds' defaults, from the file and the environment, and their ranges", () => {
    const defaults = Either.getOrThrow(loadConfig({ env: {}, cwd: tempDir() })).a2a
    expect([defaults.push_timeout_ms, defaults.push_concurrency, defaults.push_per_host, defaults.push_per_client]).toEqual([10_000, 32, 4, 4])
    const { file } = write("a2a:\n  push_timeout_ms: 2500\n  push_concurrency: 8\n  push_per_host: 2\n  push_per_client: 1\n")
    const fromFile = Either.getOrThrow(loadConfig({ configPath: file, env: {} })).a2a
    expect([fromFile.push_timeout_ms, fromFile.push_concurrency, fromFile.push_per_host, fromFile.push_per_client]).toEqual([2500, 8, 2, 1])
    expect(Either.getOrThrow(loadConfig({ env: { AGENT_BRIDGE_A2A_PUSH_TIMEOUT_MS: "3000" }, cwd: tempDir() })).a2a.push_timeout_ms).toBe(3000)
    for (const [key, value] of [["push_timeout_ms", 99], ["push_timeout_ms", 600_001], ["push_concurrency", 0], ["push_per_host", 1.5], ["push_per_client", 1001]] as const) {
      const bad = write(`a2a:\n  ${key}: ${value}\n`)
      const res = loadConfig({ configPath: bad.file, env: {} })
      expect(Either.isLeft(res) && res.left.message.includes(`a2a.${key}`), `${key}: ${value}`).toBe(true)
    }
  })

  it("bridge.heap_slack_mib: 128 MiB by default, 0 for V8's own policy, from the file and the environment, and its range", () => {
    expect(Either.getOrThrow(loadConfig({ env: {}, cwd: tempDir() })).bridge.heap_slack_mib).toBe(128)
    const { file } = write("bridge:\n  heap_slack_mib: 0\n")
    expect(Either.getOrThrow(loadConfig({ configPath: file, env: {} })).bridge.heap_slack_mib).toBe(0)
    expect(Either.getOrThrow(loadConfig({ env: { AGENT_BRIDGE_BRIDGE_HEAP_SLACK_MIB: "64" }, cwd: tempDir() })).bridge.heap_slack_mib).toBe(64)
    for (const value of [-1, 1.5, 1_048_577, '"lots"']) {
      const bad = write(`bridge:\n  heap_slack_mib: ${value}\n`)
      const res = loadConfig({ configPath: bad.file, env: {} })
      expect(Either.isLeft(res) && res.left.message.includes("bridge.heap_slack_mib"), String(value)).toBe(true)
    }
  })

  it("ignores unrelated variables", () => {
    expect(applyEnvOverrides({}, { PATH: "/bin", AGENT_BRIDGE_NOPE: "1" })).toEqual({})
  })
})
