/**
 * `agent-bridge hermes-sim [--port N] [--key K] [--profiles a,b] [--generation old|new|0.19|0.20|0.22-fork]
 * [--clarify on|off] [--speed X] [--host H]`: runs the Hermes simulator in the foreground until
 * Ctrl-C, printing each profile's URL and key. Run-input directives are in docs/SIMULATOR.md.
 */
import { Cause, Effect } from "effect"
import { SIM_GENERATIONS, type SimGeneration, type SimOptions } from "../hermes/sim/options.ts"
import { startSimulator } from "../hermes/sim/server.ts"

export class HermesSimUsage extends Error {}

const USAGE =
  "usage: agent-bridge hermes-sim [--port N] [--key K] [--profiles a,b] [--generation old|new|0.19|0.20|0.22-fork] [--clarify on|off] [--speed X] [--host H]"

const onOff = (flag: string, v: string) => {
  if (v === "on") return true
  if (v === "off") return false
  throw new HermesSimUsage(`${flag} takes on or off\n${USAGE}`)
}

/** Parses the verb's arguments into simulator options (throws `HermesSimUsage` on a bad one). */
export const parseHermesSimArgs = (argv: ReadonlyArray<string>): SimOptions => {
  let port = 0
  let host = "127.0.0.1"
  let key: string | undefined
  let names: ReadonlyArray<string> = []
  let generation: SimGeneration = "new"
  // Unset: the generation's own default (on for old and new, off for the builds named after real ones).
  let clarify: boolean | undefined
  let speed = 1
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ""
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined]
    const value = () => {
      const v = inline ?? argv[++i]
      if (v === undefined) throw new HermesSimUsage(`${flag} needs a value\n${USAGE}`)
      return v
    }
    switch (flag) {
      case "--port": {
        const v = value()
        port = Number(v)
        if (!/^\d+$/.test(v) || port > 65535) throw new HermesSimUsage(`--port takes a port number\n${USAGE}`)
        break
      }
      case "--host": host = value(); break
      case "--key": key = value(); break
      case "--profiles": names = value().split(",").map((s) => s.trim()).filter((s) => s !== "" && s !== "default"); break
      case "--generation": {
        const v = value()
        const known = SIM_GENERATIONS.find((g) => g === v)
        if (known === undefined) throw new HermesSimUsage(`--generation takes ${SIM_GENERATIONS.join(", ")}\n${USAGE}`)
        generation = known
        break
      }
      case "--clarify": clarify = onOff("--clarify", value()); break
      case "--speed": {
        speed = Number(value())
        if (!(speed > 0)) throw new HermesSimUsage(`--speed takes a positive number\n${USAGE}`)
        break
      }
      case "-h":
      case "--help":
        throw new HermesSimUsage(USAGE)
      default:
        throw new HermesSimUsage(`unknown argument ${arg}\n${USAGE}`)
    }
  }
  return { port, host, generation, clarify, speed, profiles: ["default", ...names].map((name) => ({ name, key })) }
}

const waitForSignal = Effect.async<void>((resume) => {
  const done = () => resume(Effect.void)
  process.once("SIGINT", done)
  process.once("SIGTERM", done)
  return Effect.sync(() => {
    process.off("SIGINT", done)
    process.off("SIGTERM", done)
  })
})

export const runHermesSim = async (argv: ReadonlyArray<string>): Promise<void> => {
  let options: SimOptions
  try {
    options = parseHermesSimArgs(argv)
  } catch (e) {
    if (e instanceof HermesSimUsage) {
      process.stderr.write(`${e.message}\n`)
      process.exitCode = 2
      return
    }
    throw e
  }
  const program = Effect.gen(function* () {
    const sim = yield* startSimulator(options)
    const lines = [
      `Hermes simulator (${sim.options.generation} generation, clarification ${sim.options.clarify ? "on" : "off"}) at ${sim.url}`,
      ...sim.profiles.map((p) => `  ${p.name === "default" ? "hermes" : `hermes/${p.name}`}  ${p.url}  key ${p.key}`),
      "Scripted behaviours: put [sim:...] directives in a run's input (docs/SIMULATOR.md). Ctrl-C stops."
    ]
    process.stdout.write(`${lines.join("\n")}\n`)
    yield* waitForSignal
  })
  const exit = await Effect.runPromiseExit(Effect.scoped(program))
  if (exit._tag === "Failure") {
    // A failure to start (a bad profile name, a port in use) is its message; only a defect gets the whole cause.
    const failure = Cause.failureOption(exit.cause)
    process.stderr.write(`hermes-sim: ${failure._tag === "Some" ? failure.value.message : Cause.pretty(exit.cause)}\n`)
    process.exitCode = 1
  }
}
