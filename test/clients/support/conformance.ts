/** Runs one release of the official conformance suite against a URL and reads its per-check results. */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import type { ProcessResult } from "../../support/runProcess.ts"
import { run, TOOLS } from "./tools.ts"

export interface Check {
  readonly id: string
  readonly status: string
  readonly errorMessage?: string
}

export interface ConformanceRun {
  readonly result: ProcessResult
  /** Scenario name → its checks (from each scenario's checks.json). */
  readonly scenarios: ReadonlyMap<string, ReadonlyArray<Check>>
}

/** `conformance` is 0.1.x, `conformance-next` the 0.2 pre-release (aliases in test/clients/tools/package.json). */
export const runConformance = async (options: {
  readonly pkg: "conformance" | "conformance-next"
  readonly url: string
  readonly outDir: string
  readonly env: Record<string, string>
  readonly args?: ReadonlyArray<string>
  readonly expectedFailures: string
}): Promise<ConformanceRun> => {
  const entry = path.join(TOOLS, options.pkg, "dist", "index.js")
  const result = await run(
    "node",
    [entry, "server", "--url", options.url, "--expected-failures", options.expectedFailures, "-o", options.outDir, ...(options.args ?? [])],
    { env: options.env, timeoutMs: 300_000 }
  )
  const scenarios = new Map<string, ReadonlyArray<Check>>()
  if (fs.existsSync(options.outDir)) {
    for (const dir of fs.readdirSync(options.outDir)) {
      // server-<scenario>-<ISO timestamp>
      const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1]
      const file = path.join(options.outDir, dir, "checks.json")
      if (name !== undefined && fs.existsSync(file)) scenarios.set(name, JSON.parse(fs.readFileSync(file, "utf8")) as Array<Check>)
    }
  }
  return { result, scenarios }
}

const PASSING = new Set(["SUCCESS", "INFO", "WARNING", "SKIPPED"])

/** The checks of a scenario that did not pass, as readable lines ("" when all passed). */
export const failuresOf = (run: ConformanceRun, scenario: string): string => {
  const checks = run.scenarios.get(scenario)
  if (checks === undefined) return `scenario ${scenario} did not run`
  return checks
    .filter((c) => !PASSING.has(c.status))
    .map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`)
    .join("\n")
}

export const checkOf = (run: ConformanceRun, scenario: string, id: string): Check | undefined =>
  run.scenarios.get(scenario)?.find((c) => c.id === id)

/**
 * The suite's --expected-failures file for this daemon: the source's `server` list, plus each
 * `unless_offered` list whose capability (`resources`, `prompts`, `logging`, `completions`) the
 * daemon does not declare. Written to `outFile`; returns its path.
 */
export const effectiveBaseline = (source: string, capabilities: Record<string, unknown>, outFile: string): string => {
  const parsed = YAML.parse(fs.readFileSync(source, "utf8")) as {
    server: ReadonlyArray<string>
    unless_offered?: Record<string, ReadonlyArray<string>>
  }
  const unless = Object.entries(parsed.unless_offered ?? {}).flatMap(([capability, scenarios]) => (capabilities[capability] === undefined ? scenarios : []))
  fs.writeFileSync(outFile, YAML.stringify({ server: [...parsed.server, ...unless] }))
  return outFile
}
