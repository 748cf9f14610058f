/**
 * The Hermes contract suite (`scenarios.ts`) against the simulator's two generations.
 * The older one is started as the real older builds are: without clarification (a fork feature
 * the simulator has on by default) and without steering. The same scenarios run against the real
 * Hermes in `npm run test:hermes` (`test/hermes-real/`).
 */
import { startSimulatorAsync } from "../../../src/hermes/sim/layer.ts"
import { SIM_UNICODE_TEXT } from "../../../src/hermes/sim/script.ts"
import { contractSuite, type Generation } from "./scenarios.ts"

/** The contract suite against one generation of the simulator (`contract.sim.{old,new}.test.ts`, side by side). */
export const simContractSuite = (generation: Generation) =>
  contractSuite({
    name: `simulator, ${generation} generation`,
    generation,
    runTimeoutMs: 10_000,
    start: async () => {
      const sim = await startSimulatorAsync({ generation, clarify: generation === "new" })
      return {
        url: sim.url,
        key: sim.profile("default").key,
        inputs: {
          plain: "say something",
          unicode: "[sim:unicode]",
          tool: "check the folder",
          approval: "[sim:approval]",
          slow: "[sim:slow=3s]",
          fail: "[sim:fail]"
        },
        unicodeText: SIM_UNICODE_TEXT,
        providerSecret: null,
        close: () => sim.close()
      }
    }
  })
