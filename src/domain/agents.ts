/**
 * The agent ids a caller can name. `hermes` and `hermes/<profile>` are the configured Hermes
 * profiles; `pi` is listed by `agents_list` (as `runnable: false`) but the bridge delegates to
 * Hermes only, so naming it is `bridge.unknown_agent` (404, not worth retrying) with a message that
 * says so rather than calling it unknown.
 */
import { UnknownAgent } from "./errors.ts"

/** Listed by `agents_list`, never runnable. */
export const NOT_RUNNABLE_AGENT = "pi"

/** The failure for an agent id that names no configured profile. */
export const unknownAgent = (agent: string): UnknownAgent =>
  new UnknownAgent({
    message:
      agent === NOT_RUNNABLE_AGENT
        ? `agent "pi" is listed by agents_list but is not runnable (runnable: false): the bridge runs and teaches Hermes only; use "hermes" or "hermes/<profile>"`
        : `unknown agent "${agent}": use "hermes" or "hermes/<profile>" for a configured profile`
  })
