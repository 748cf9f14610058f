/**
 * Secrets in the configuration: a refused `key` or `admin_key` is named, never printed (the
 * refusal goes to the terminal and the log before any Redactor exists), and a key given in the
 * environment is taken as the opaque string it is, not read as YAML (which cut "abc #x" to "abc",
 * dropped quotes, split at commas and turned digits into a number).
 */
import { Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"
import { tempDir } from "../support/daemon.ts"

const messageOf = (res: ReturnType<typeof loadConfig>): string => (Either.isLeft(res) ? res.left.message : "")

describe("configuration secrets", () => {
  it("a refused admin_key or Hermes key is named without its value, in the file", () => {
    const dir = tempDir("agent-bridge-config-")
    const file = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(
      file,
      "bridge: {admin_key: short-secret-1}\nhermes:\n  key: 48151623420815\n  profiles: {coder: {key: [p-secret-one, p-secret-two]}}\n"
    )
    const message = messageOf(loadConfig({ configPath: file, env: {} }))
    expect(message).toContain("bridge.admin_key")
    expect(message).toContain("hermes.key")
    expect(message).toContain("hermes.profiles.coder.key")
    expect(message).toMatch(/at least 16 character/)
    for (const secret of ["short-secret-1", "48151623420815", "p-secret-one", "p-secret-two"]) expect(message).not.toContain(secret)
  })

  it("a YAML syntax error says where it is without quoting the line, which may hold a key", () => {
    const dir = tempDir("agent-bridge-config-")
    const file = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(file, 'bridge:\n  port: 8765\nhermes:\n  key: "unterminated-secret-value\n')
    const message = messageOf(loadConfig({ configPath: file, env: {} }))
    expect(message).toContain(file)
    expect(message).toMatch(/not valid YAML: .*quote at line \d+, column \d+/)
    expect(message).not.toContain("unterminated-secret-value")
  })

  it("a refused key from the environment is named without its value", () => {
    const message = messageOf(loadConfig({ env: { AGENT_BRIDGE_BRIDGE_ADMIN_KEY: "tiny-admin" }, cwd: tempDir() }))
    expect(message).toContain("bridge.admin_key")
    expect(message).not.toContain("tiny-admin")
  })

  it("keys from the environment are taken verbatim", () => {
    for (const key of ["abc #tail-of-the-key", "'quoted-key'", "abc,def-ghi-jkl", "0123456789012345", "1e5", "true"]) {
      const res = loadConfig({ env: { AGENT_BRIDGE_HERMES_KEY: key, AGENT_BRIDGE_BRIDGE_ADMIN_KEY: key.padEnd(16, "x") }, cwd: tempDir() })
      expect(messageOf(res)).toBe("")
      const cfg = Either.getOrThrow(res)
      expect(Redacted.value(cfg.hermes.key!)).toBe(key)
      expect(Redacted.value(cfg.bridge.admin_key!)).toBe(key.padEnd(16, "x"))
    }
  })
})
