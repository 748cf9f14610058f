/**
 * Entry of a simulator child process (simProcess.ts starts it): the Hermes simulator with the
 * options given as JSON in argv[2], its address printed as one JSON line, then serving until
 * SIGTERM. Finished runs are forgotten after a few seconds so a long soak measures the bridge's
 * memory, not the simulator's.
 */
import { startSimulatorAsync } from "../../../src/hermes/sim/layer.ts"
import type { SimOptions } from "../../../src/hermes/sim/options.ts"

const options = JSON.parse(process.argv[2] ?? "{}") as SimOptions
const sim = await startSimulatorAsync(options)
const FORGET_AFTER_MS = 5_000
const pruner = setInterval(() => {
  const now = Date.now()
  for (const [id, run] of sim.handle.state.runs) if (run.endedAt !== null && now - run.endedAt > FORGET_AFTER_MS) sim.handle.state.runs.delete(id)
}, 1_000)
process.stdout.write(`${JSON.stringify({ url: sim.url, key: sim.profile("default").key })}\n`)
process.once("SIGTERM", () => {
  clearInterval(pruner)
  void sim.close().then(() => process.exit(0))
})
