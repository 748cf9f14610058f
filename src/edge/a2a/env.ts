/**
 * What an A2A method's program runs with, and the runner that runs it for a request
 * (`routes.ts` makes it over `../runner.ts`). A leaf, so the handler and its stream methods do not
 * import each other.
 */
import type { Effect } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import type { Caller } from "../../request/Caller.ts"
import type { Progress } from "../../request/Progress.ts"
import type { Runs } from "../../services/runs/Runs.ts"
import type { PushEnv } from "./pushMethods.ts"

export type A2AEnv = Runs | Caller | Progress | PushEnv
/** Runs a program with the request's caller; a bridge error comes back as the A2A error for it. */
export type A2ARunner = <A>(program: Effect.Effect<A, BridgeError, A2AEnv>) => Promise<A>
