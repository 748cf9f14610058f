/**
 * The setup snippets `agent-bridge client add` prints, read the way each client reads them: the Claude
 * Code line through a real shell and Claude Code's `mcp add` option grammar, the Codex tables with a
 * TOML parser, the Hermes entries with a YAML parser plus Hermes's tool naming rule. docs/CONNECT.md
 * must show exactly what the code generates.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse as parseToml } from "smol-toml"
import { describe, expect, it } from "vitest"
import * as YAML from "yaml"
import {
  CLIENT_TOOL_TIMEOUT_S, claudeCodeCommands, codexToml, DOC_EXAMPLE, hermesServerName, hermesYaml, type SetupInput, setupText
} from "../../src/cli/clientSetup.ts"
import { toolListing } from "../../src/edge/mcp/catalog/listing.ts"
import { META_TOOL_NAMES } from "../../src/edge/mcp/meta-tools/index.ts"
import { memoryTools } from "../../src/edge/mcp/memory-tools/index.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"

const KEY = "hal0bk_3xAmPlEkEy0123456789abcdefGHIJKLmnopqrstu"
const INPUTS: ReadonlyArray<SetupInput> = [
  { url: "http://127.0.0.1:8765/mcp/agents/mcp", key: KEY },
  { url: "http://127.0.0.1:8765/mcp/agents/mcp", key: KEY, memoryUrl: "http://127.0.0.1:8765/mcp/memory/mcp" },
  // What `client add` prints when the daemon listens on every interface.
  { url: "http://<this-host>:8765/mcp/agents/mcp", key: KEY, serverName: "hal0.box-1" }
]
const servers = (input: SetupInput) => [
  { name: input.serverName ?? "agent-bridge", url: input.url, tools: [...agentTools, ...META_TOOL_NAMES.map((name) => ({ name }))] },
  ...(input.memoryUrl === undefined ? [] : [{ name: `${input.serverName ?? "agent-bridge"}-memory`, url: input.memoryUrl, tools: memoryTools }])
]

/** The words a POSIX shell makes of a command line: a stub `claude` prints its argv, NUL-separated. */
const shellWords = (line: string): ReadonlyArray<string> => {
  const out = execFileSync("bash", ["-c", `claude() { printf '%s\\0' "$@"; }\n${line}`], { encoding: "utf8" })
  return out.split("\0").slice(0, -1)
}

/**
 * Claude Code's `mcp add [options] <name> <commandOrUrl> [args...]`, as its CLI (commander) reads it:
 * `--transport` and `--scope` take one value; `--header` and `--env` are variadic and take every
 * following word up to the next option.
 */
const parseClaudeMcpAdd = (argv: ReadonlyArray<string>) => {
  const single = new Set(["--transport", "-t", "--scope", "-s"])
  const variadic = new Set(["--header", "-H", "--env", "-e"])
  const options: Record<string, Array<string>> = {}
  const positionals: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (single.has(word)) {
      options[word] = [argv[++i]!]
    } else if (variadic.has(word)) {
      const values = (options[word] ??= [])
      while (i + 1 < argv.length && !argv[i + 1]!.startsWith("-")) values.push(argv[++i]!)
    } else if (word.startsWith("-")) {
      throw new Error(`claude mcp add has no option ${word}`)
    } else positionals.push(word)
  }
  return { options, positionals }
}

/** Hermes registers a server's tool as `mcp_<server>_<tool>`, `-` and `.` turned into `_`. */
const hermesToolName = (server: string, tool: string) => `mcp_${server}_${tool}`.replace(/[-.]/g, "_")
/** What LLM function-calling APIs accept as a function name. */
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

describe("client setup snippets", () => {
  for (const input of INPUTS) {
    const label = `${input.serverName ?? "default name"}${input.memoryUrl === undefined ? "" : ", with memory"}`

    it(`Claude Code: each line parses in a shell and as claude mcp add (${label})`, () => {
      const lines = claudeCodeCommands(input)
      expect(lines).toHaveLength(servers(input).length)
      lines.forEach((line, i) => {
        const argv = shellWords(line)
        expect(argv.slice(0, 2)).toEqual(["mcp", "add"])
        const { options, positionals } = parseClaudeMcpAdd(argv.slice(2))
        expect(positionals).toEqual([servers(input)[i]!.name, servers(input)[i]!.url])
        expect(options).toEqual({ "--transport": ["http"], "--scope": ["user"], "--header": [`Authorization: Bearer ${KEY}`] })
      })
    })

    it(`Codex: the tables parse as TOML with the URL, header and tool timeout (${label})`, () => {
      const parsed = parseToml(codexToml(input)) as { mcp_servers: Record<string, unknown> }
      expect(parsed).toEqual({
        mcp_servers: Object.fromEntries(servers(input).map((s) => [s.name, {
          url: s.url,
          http_headers: { Authorization: `Bearer ${KEY}` },
          tool_timeout_sec: CLIENT_TOOL_TIMEOUT_S,
          // Without it `codex exec` refuses every call: its approval policy is never, so it cannot ask.
          default_tools_approval_mode: "approve"
        }]))
      })
    })

    it(`Hermes: the YAML parses and every tool gets a valid function name of at most 64 characters (${label})`, () => {
      const parsed = YAML.parse(hermesYaml(input)) as { mcp_servers: Record<string, unknown> }
      expect(parsed).toEqual({
        mcp_servers: Object.fromEntries(servers(input).map((s) => [hermesServerName(s.name), {
          url: s.url,
          headers: { Authorization: `Bearer ${KEY}` },
          timeout: CLIENT_TOOL_TIMEOUT_S
        }]))
      })
      for (const s of servers(input)) {
        const server = hermesServerName(s.name)
        expect(Object.keys(parsed.mcp_servers)).toContain(server)
        for (const tool of s.tools) {
          const name = hermesToolName(server, tool.name)
          expect(name, `${s.name} / ${tool.name}`).toMatch(FUNCTION_NAME)
        }
      }
    })
  }

  it("raises each configurable timeout above the bridge's longest wait", () => {
    const maximum = (tool: string, field: string) => {
      const properties = toolListing(agentTools.find((t) => t.name === tool)!).inputSchema.properties as Record<string, { maximum?: number }>
      return properties[field]!.maximum!
    }
    expect(CLIENT_TOOL_TIMEOUT_S).toBeGreaterThan(Math.max(maximum("agent_run_wait", "timeout_s"), maximum("agent_run", "wait_s")))
  })

  it("client add prints all three under a heading each, every snippet flush left as it is pasted", () => {
    for (const input of INPUTS) {
      const text = setupText(input)
      const headings = ["Claude Code (run in a shell):", "Codex (add to ~/.codex/config.toml):", "Hermes (add to ~/.hermes/config.yaml, then /reload-mcp):"]
      /** What lies between a heading and the next one (or the end), as an operator copies it. */
      const block = (heading: string) => {
        const start = text.indexOf(`${heading}\n`)
        expect(start, heading).toBeGreaterThanOrEqual(0)
        const rest = text.slice(start + heading.length + 1)
        const next = headings.map((h) => rest.indexOf(`\n${h}`)).filter((i) => i >= 0)
        return (next.length === 0 ? rest : rest.slice(0, Math.min(...next))).trimEnd()
      }
      expect(block("Claude Code (run in a shell):")).toBe(claudeCodeCommands(input).join("\n"))
      expect(block("Codex (add to ~/.codex/config.toml):")).toBe(codexToml(input).trimEnd())
      expect(block("Hermes (add to ~/.hermes/config.yaml, then /reload-mcp):")).toBe(hermesYaml(input).trimEnd())
      // Each printed block, cut out of the output as an operator would copy it, reads as its client reads it.
      expect(parseToml(block("Codex (add to ~/.codex/config.toml):"))).toEqual(parseToml(codexToml(input)))
      expect(YAML.parse(block("Hermes (add to ~/.hermes/config.yaml, then /reload-mcp):"))).toEqual(YAML.parse(hermesYaml(input)))
      for (const heading of ["[mcp_servers.", "mcp_servers:"]) {
        expect(text.split("\n").filter((l) => l.trimStart().startsWith(heading)).every((l) => l.startsWith(heading))).toBe(true)
      }
    }
  })

  it.each(["docs/CONNECT.md", "README.md"])("%s shows exactly the generated snippets", (file) => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../..", file), "utf8")
    expect(doc).toContain(`\`\`\`sh\n${claudeCodeCommands(DOC_EXAMPLE).join("\n")}\n\`\`\``)
    expect(doc).toContain(`\`\`\`toml\n${codexToml(DOC_EXAMPLE)}\`\`\``)
    expect(doc).toContain(`\`\`\`yaml\n${hermesYaml(DOC_EXAMPLE)}\`\`\``)
  })
})
