/**
 * What the banner and `client list` tell the operator to type: `agent-bridge` only when a lasting
 * PATH entry has it; from a clone (npm's own `node_modules/.bin` and npx's cache do not count, the
 * next shell has neither) `npx agent-bridge`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cliCommand } from "../../src/cli/invocation.ts"
import { tempDir } from "../support/tempDirs.ts"

const dirWith = (sub: string, executable: boolean) => {
  const dir = path.join(tempDir(), sub)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "agent-bridge"), "#!/bin/sh\n", { mode: executable ? 0o755 : 0o644 })
  return dir
}

describe("the CLI command the operator is told to run", () => {
  it("is npx agent-bridge when agent-bridge is not on PATH", () => {
    expect(cliCommand("/usr/bin:/bin")).toBe("npx agent-bridge")
    expect(cliCommand(undefined)).toBe("npx agent-bridge")
    expect(cliCommand("")).toBe("npx agent-bridge")
  })

  it("is agent-bridge when a PATH entry has it, installed or linked", () => {
    expect(cliCommand(["/usr/bin", dirWith("bin", true)].join(path.delimiter))).toBe("agent-bridge")
  })

  it("ignores npm's node_modules/.bin and npx's cache, which only the current command has", () => {
    expect(cliCommand(dirWith("node_modules/.bin", true))).toBe("npx agent-bridge")
    expect(cliCommand(dirWith("_npx/1234/node_modules/.bin", true))).toBe("npx agent-bridge")
  })

  it("ignores a file that is not executable", () => {
    expect(cliCommand(dirWith("bin", false))).toBe("npx agent-bridge")
  })
})
