/**
 * A process that rejects a promise nobody waits for, with or without the daemon's listener
 * (`node --import tsx test/support/strayRejectionChild.ts [guarded]`). Prints "still running" if it
 * survives the rejection.
 */
import { Effect } from "effect"
import { StrayRejectionsLogged } from "../../src/daemon/strayRejections.ts"

const guarded = process.argv.includes("guarded")
const program = Effect.gen(function* () {
  void Promise.reject(new Error("nobody is waiting for this"))
  yield* Effect.sleep("300 millis")
  yield* Effect.sync(() => process.stdout.write("still running\n"))
})
await Effect.runPromise(guarded ? program.pipe(Effect.provide(StrayRejectionsLogged)) : program)
