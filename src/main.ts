/**
 * `agent-bridge` CLI entry: serve | client | inbox | runs | doctor | storage | hermes-sim. Every verb reads the same
 * configuration (`--config`, `AGENT_BRIDGE_CONFIG`, `./agent-bridge.yaml`, `AGENT_BRIDGE_*`).
 */
import { Effect, Either, Layer } from "effect"
import * as fs from "node:fs"
import { clientCommand } from "./cli/client.ts"
import { checkFlags, type FlagSpec, flag, hasFlag, parseArgs, UsageError } from "./cli/args.ts"
import { authLayer, cliLoggingLayer } from "./cli/runtime.ts"
import { serve } from "./cli/serve.ts"
import { loadConfig } from "./config/load.ts"
import { causeLine } from "./daemon/startFailure.ts"

const USAGE = `usage: agent-bridge <verb> [options]

  serve                              run the daemon (default verb; npm start)
  client add NAME [--scope memory|a2a|agents]
                                     admit a client (agents, a2a; memory adds memory; agents: MCP only):
                                     prints its key once and setup for Claude Code, Codex, Hermes
  client list | revoke NAME | rotate NAME
  inbox list | show ID | approve ID [--choice once|session|always] | deny ID
  runs list [--client C] [--status S] [--agent A] | show ID [--events] | stop ID
  doctor                             check config, database, Hermes profiles, skills folder
  storage copy --to URL              copy a stopped box's SQLite data into an empty PostgreSQL database
  hermes-sim [--port N] [--key K] [--profiles a,b] [--generation old|new|0.19|0.20|0.22-fork] [--clarify on|off]

options: --config FILE, --json (listings), --version, --help`

/** The options each verb takes (hermes-sim parses its own); anything else is refused. */
const VERB_FLAGS: Readonly<Record<string, FlagSpec>> = {
  serve: { values: ["config"], booleans: [] },
  client: { values: ["config", "scope"], booleans: ["json"] },
  inbox: { values: ["config", "state", "choice"], booleans: ["json"] },
  runs: { values: ["config", "client", "status", "agent", "limit", "since", "offset"], booleans: ["json", "events"] },
  doctor: { values: ["config"], booleans: ["json"] },
  storage: { values: ["config", "to"], booleans: [] }
}

/** The package's version (the bundle rewrites `import.meta.url` to this file's place in the package). */
const packageVersion = (): string =>
  (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version

const main = async () => {
  const args = parseArgs(process.argv.slice(2))
  const verb = args.positionals[0] ?? "serve"
  if (hasFlag(args, "help") || hasFlag(args, "h") || verb === "help") {
    console.log(USAGE)
    return
  }
  if (hasFlag(args, "version") || verb === "version") {
    console.log(packageVersion())
    return
  }
  if (verb === "hermes-sim") {
    const { runHermesSim } = await import("./cli/hermesSim.ts")
    await runHermesSim(process.argv.slice(3))
    return
  }
  const known = VERB_FLAGS[verb]
  if (known === undefined) throw new UsageError(`unknown verb '${verb}'\n\n${USAGE}`)
  checkFlags(args, known)
  const loaded = loadConfig({ configPath: flag(args, "config") })
  if (Either.isLeft(loaded)) {
    console.error(loaded.left.message)
    process.exit(2)
  }
  const config = loaded.right
  switch (verb) {
    case "serve":
      serve(config)
      return
    case "client": {
      const out = await Effect.runPromise(
        clientCommand(config, args).pipe(
          Effect.catchAll((e) => Effect.sync(() => {
            console.error(e.message)
            process.exitCode = e instanceof UsageError ? 2 : 1
            return ""
          })),
          Effect.provide(authLayer(config).pipe(Layer.provide(cliLoggingLayer))),
          // The database could not be opened or written: one line saying where and what to do.
          Effect.catchAllCause((cause) => Effect.sync(() => {
            console.error(causeLine(cause, { what: "client", dataDir: config.dataDir }))
            process.exitCode = 1
            return ""
          }))
        )
      )
      if (out !== "") console.log(out)
      return
    }
    case "doctor": {
      const { doctor } = await import("./cli/doctor.ts")
      process.exitCode = await doctor(config, args)
      return
    }
    case "inbox": {
      const { inboxCommandLine } = await import("./cli/inboxRuntime.ts")
      process.exitCode = await inboxCommandLine(config, args)
      return
    }
    case "runs": {
      const { runsCommandLine } = await import("./cli/runsRuntime.ts")
      process.exitCode = await runsCommandLine(config, args)
      return
    }
    case "storage": {
      const { storageCommandLine } = await import("./cli/storageCopy.ts")
      process.exitCode = await storageCommandLine(config, args)
      return
    }
    default:
      throw new UsageError(`unknown verb '${verb}'\n\n${USAGE}`)
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof UsageError ? e.message : e)
  process.exit(e instanceof UsageError ? 2 : 1)
})
