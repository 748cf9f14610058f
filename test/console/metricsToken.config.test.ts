/** `bridge.metrics_token`: from the file or AGENT_BRIDGE_BRIDGE_METRICS_TOKEN, decoded as Redacted, refused (without printing it) when too short. */
import { Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"

const file = (yaml: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ab-metrics-token-"))
  const p = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(p, yaml)
  return p
}

describe("bridge.metrics_token", () => {
  it("is optional, read from the file or the environment, and Redacted", () => {
    const none = loadConfig({ configPath: file("bridge: {}\n"), env: {} })
    expect(Either.isRight(none) && none.right.bridge.metrics_token === undefined).toBe(true)
    const fromFile = loadConfig({ configPath: file("bridge: {metrics_token: file-token-0123456789}\n"), env: {} })
    if (Either.isLeft(fromFile)) throw new Error(fromFile.left.message)
    expect(Redacted.value(fromFile.right.bridge.metrics_token!)).toBe("file-token-0123456789")
    expect(String(fromFile.right.bridge.metrics_token)).not.toContain("file-token")
    // A token of digits stays a string (a secret is never read as a number).
    const fromEnv = loadConfig({ configPath: file("bridge: {}\n"), env: { AGENT_BRIDGE_BRIDGE_METRICS_TOKEN: "12345678901234567890" } })
    if (Either.isLeft(fromEnv)) throw new Error(fromEnv.left.message)
    expect(Redacted.value(fromEnv.right.bridge.metrics_token!)).toBe("12345678901234567890")
  })

  it("refuses a short token without printing it", () => {
    const bad = loadConfig({ configPath: file("bridge: {}\n"), env: { AGENT_BRIDGE_BRIDGE_METRICS_TOKEN: "short-secret" } })
    expect(Either.isLeft(bad)).toBe(true)
    if (Either.isLeft(bad)) {
      expect(bad.left.message).toContain("metrics_token")
      expect(bad.left.message).not.toContain("short-secret")
    }
  })
})
