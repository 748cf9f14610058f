/**
 * One simulated Hermes API server for scripts/bench-scale.ts, in a process of its own so the
 * bridge's figures are the bridge's. The simulator's options come as JSON in argv[2] (the bench
 * raises `maxConcurrentRuns`, Hermes's cap of 10 in-flight runs per API server, to its share of the
 * runs, and the approval timeout past the bench's length). It prints `{url, key}` on its first
 * line, then every 500 ms one line of figures `{live, subscribed, emitted}`: runs not ended, of
 * those the ones some client is reading, and the events published since the start (the frames the
 * bridge has to follow). SIGTERM stops it.
 */
import { Effect } from "effect"
import { startSimulatorAsync } from "../src/hermes/sim/layer.ts"
import type { SimOptions } from "../src/hermes/sim/options.ts"

const options = JSON.parse(process.argv[2] ?? "{}") as SimOptions
const sim = await startSimulatorAsync(options)
const state = sim.handle.state
let emitted = 0
const publish = state.publish.bind(state)
// Counted when the event is published (when the Effect runs), not when it is described.
state.publish = (run, event, fields) => Effect.zipRight(Effect.sync(() => void emitted++), publish(run, event, fields))

const figures = () => {
  let live = 0
  let subscribed = 0
  for (const run of state.runs.values()) {
    if (run.endedAt !== null) continue
    live++
    if (run.subscribers.size > 0) subscribed++
  }
  return { live, subscribed, emitted }
}

process.stdout.write(`${JSON.stringify({ url: sim.url, key: sim.profile("default").key })}\n`)
const timer = setInterval(() => process.stdout.write(`${JSON.stringify(figures())}\n`), 500)
process.once("SIGTERM", () => {
  clearInterval(timer)
  void sim.close().then(() => process.exit(0))
})
