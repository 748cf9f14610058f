/** `bridge.replica_id`: optional, from the file or AGENT_BRIDGE_BRIDGE_REPLICA_ID (a number taken as text); unset, `host:port`. */
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"
import { replicaIdOf } from "../../src/config/schema.ts"
import { tempDir } from "../support/tempDirs.ts"

const load = (yaml: string, env: Record<string, string> = {}) => {
  const p = path.join(tempDir(), "agent-bridge.yaml")
  fs.writeFileSync(p, yaml)
  const loaded = loadConfig({ configPath: p, env })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return loaded.right.bridge
}

describe("bridge.replica_id", () => {
  it("defaults to host:port, and is read from the file or the environment", () => {
    expect(replicaIdOf(load("bridge: {host: 127.0.0.1, port: 9001}\n"))).toBe("127.0.0.1:9001")
    expect(replicaIdOf(load("bridge: {replica_id: box-a}\n"))).toBe("box-a")
    expect(replicaIdOf(load("bridge: {replica_id: box-a}\n", { AGENT_BRIDGE_BRIDGE_REPLICA_ID: "box-b:8765" }))).toBe("box-b:8765")
    expect(replicaIdOf(load("bridge: {}\n", { AGENT_BRIDGE_BRIDGE_REPLICA_ID: "2" }))).toBe("2")
  })

  it("refuses an empty one, naming the key", () => {
    const p = path.join(tempDir(), "agent-bridge.yaml")
    fs.writeFileSync(p, "bridge: {replica_id: ''}\n")
    const loaded = loadConfig({ configPath: p, env: {} })
    expect(Either.isLeft(loaded) && loaded.left.message).toContain("bridge.replica_id")
  })
})
