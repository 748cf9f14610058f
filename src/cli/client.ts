/** `agent-bridge client add|list|revoke|rotate`: manage bridge clients (keys are shown once). */
import { Effect } from "effect"
import type { ResolvedConfig } from "../config/load.ts"
import { Auth, type ClientRecord } from "../services/auth/Auth.ts"
import type { Scope } from "../request/Caller.ts"
import { flag, hasFlag, type ParsedArgs, UsageError } from "./args.ts"
import { setupText } from "./clientSetup.ts"
import { cliCommand } from "./invocation.ts"
import { mcpUrl } from "./runtime.ts"

/** The table; a VIA column (key, or OAuth and the host it came from) only once an OAuth client exists. */
const table = (rows: ReadonlyArray<ClientRecord>): string => {
  const via = rows.some((r) => r.via !== undefined)
  const head = ["NAME", "SCOPES", "CREATED", "LAST USED", "REVOKED", ...(via ? ["VIA"] : [])]
  const body = rows.map((r) => [
    r.name, r.scopes.join(","), r.created_at, r.last_used_at ?? "-", r.revoked_at ?? "-",
    ...(via ? [r.via === undefined ? "key" : `oauth (${r.via.host})`] : [])
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  return [head, ...body].map((cols) => cols.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n")
}

const printKey = (config: ResolvedConfig, name: string, key: string, scopes: ReadonlyArray<Scope>, verb: string) => {
  const url = mcpUrl(config)
  const lines = [
    `${verb} client '${name}' (scopes: ${scopes.join(", ")}).`,
    "",
    `Key (shown once, store it now): ${key}`,
    `MCP URL: ${url}`,
    ...(scopes.includes("memory") ? [`Memory MCP URL: ${mcpUrl(config, "memory")}`] : []),
    "",
    setupText(scopes.includes("memory") ? { url, key, memoryUrl: mcpUrl(config, "memory") } : { url, key })
  ]
  return lines.join("\n")
}

/**
 * What `--scope` grants. A new key has `a2a` unless told otherwise (`--scope agents`: the MCP
 * agents server alone); `memory` adds the memory server to the default.
 */
const SCOPE_FLAG: Readonly<Record<string, ReadonlyArray<Scope>>> = {
  a2a: ["agents", "a2a"],
  memory: ["agents", "a2a", "memory"],
  agents: ["agents"]
}

// A failure, not a throw: a throw inside Effect.gen is a defect, which reached the user as a stack trace.
const usage = (message: string) => Effect.fail(new UsageError(message))

export const clientCommand = (config: ResolvedConfig, args: ParsedArgs) =>
  Effect.gen(function* () {
    const auth = yield* Auth
    const [, sub, name] = args.positionals
    const json = hasFlag(args, "json")
    switch (sub) {
      case "add": {
        if (name === undefined) return yield* usage("usage: agent-bridge client add NAME [--scope memory|a2a|agents]")
        const scope = flag(args, "scope")
        if (scope !== undefined && !Object.hasOwn(SCOPE_FLAG, scope)) return yield* usage("--scope takes memory, a2a or agents")
        const { key, client } = yield* auth.addClient(name, SCOPE_FLAG[scope ?? "a2a"] ?? ["agents", "a2a"])
        return json ? JSON.stringify({ ...client, key, url: mcpUrl(config) }, null, 2) : printKey(config, name, key, client.scopes, "Added")
      }
      case "list": {
        const rows = yield* auth.listClients
        return json ? JSON.stringify({ clients: rows }, null, 2) : rows.length === 0 ? `no clients yet (${cliCommand()} client add NAME)` : table(rows)
      }
      case "revoke": {
        if (name === undefined) return yield* usage("usage: agent-bridge client revoke NAME")
        const client = yield* auth.revoke(name)
        return json ? JSON.stringify(client, null, 2) : `Revoked client '${name}': its key no longer works.`
      }
      case "rotate": {
        if (name === undefined) return yield* usage("usage: agent-bridge client rotate NAME")
        const { key, client } = yield* auth.rotate(name)
        return json ? JSON.stringify({ ...client, key }, null, 2) : printKey(config, name, key, client.scopes, "Rotated")
      }
      default:
        return yield* usage("usage: agent-bridge client add|list|revoke|rotate ...")
    }
  })
