/** A small argv parser: positionals, `--flag`, `--key value` and `--key=value`. */
export interface ParsedArgs {
  readonly positionals: ReadonlyArray<string>
  readonly flags: ReadonlyMap<string, string | true>
}

/** Flags that never take a value (so `--json list` is not read as json=list). */
const BOOLEAN_FLAGS = new Set(["json", "help", "h", "version", "events"])

export const parseArgs = (argv: ReadonlyArray<string>): ParsedArgs => {
  const positionals: Array<string> = []
  const flags = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--") {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (a.startsWith("--") || (a.startsWith("-") && a.length === 2)) {
      const body = a.replace(/^--?/, "")
      const eq = body.indexOf("=")
      if (eq !== -1) flags.set(body.slice(0, eq), body.slice(eq + 1))
      else if (!BOOLEAN_FLAGS.has(body) && i + 1 < argv.length && !argv[i + 1]!.startsWith("-")) flags.set(body, argv[++i]!)
      else flags.set(body, true)
    } else positionals.push(a)
  }
  return { positionals, flags }
}

export const flag = (args: ParsedArgs, name: string): string | undefined => {
  const v = args.flags.get(name)
  return typeof v === "string" ? v : undefined
}

export const hasFlag = (args: ParsedArgs, name: string): boolean => args.flags.has(name)

export class UsageError extends Error {}

/** The options one verb takes: `values` need a value (`--key value`, `--key=value`), `booleans` take none. */
export interface FlagSpec {
  readonly values: ReadonlyArray<string>
  readonly booleans: ReadonlyArray<string>
}

/**
 * Refuses an option the verb does not know, a value option given without its value, and a value
 * given to a switch: each would otherwise be ignored and the verb would go on doing something else
 * (`client add NAME --scope` without `memory` admitted an agents-only client and exited 0).
 */
export const checkFlags = (args: ParsedArgs, spec: FlagSpec): void => {
  for (const [name, value] of args.flags) {
    const shown = name.length === 1 ? `-${name}` : `--${name}`
    if (spec.values.includes(name)) {
      if (value === true || value === "") throw new UsageError(`${shown} needs a value`)
    } else if (spec.booleans.includes(name)) {
      if (value !== true) throw new UsageError(`${shown} takes no value`)
    } else throw new UsageError(`unknown option ${shown}`)
  }
}
