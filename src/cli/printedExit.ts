import { Effect } from "effect"
import { type BridgeError, errorText, isBridgeError } from "../domain/errors.ts"
import { UsageError } from "./args.ts"

/**
 * Runs a verb's command: its output to stdout and exit 0, or its error to stderr and exit 2 for a
 * usage error, 1 for any other (a `bridge.*` error as `bridge.<code>: <message>`).
 */
export const printedExit = <R>(command: Effect.Effect<string, BridgeError | UsageError, R>): Effect.Effect<number, never, R> =>
  command.pipe(
    Effect.flatMap((out) => Effect.sync(() => {
      process.stdout.write(`${out}\n`)
      return 0
    })),
    Effect.catchAll((e) =>
      Effect.sync(() => {
        process.stderr.write(`${isBridgeError(e) ? errorText(e) : e.message}\n`)
        return e instanceof UsageError ? 2 : 1
      })
    )
  )
