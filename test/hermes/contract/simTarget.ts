/**
 * The Hermes contract suite (`scenarios.ts`) against the simulator's generations, one file each
 * (`contract.sim.*.test.ts`, side by side). Each generation is started as the real build it imitates
 * is: the older ones and the builds named after real ones without clarification (a fork feature the
 * simulator has on by default). The same scenarios run against the real builds in
 * `npm run test:hermes` (`test/hermes-real/`).
 */
import { startSimulatorAsync } from "../../../src/hermes/sim/layer.ts"
import { SIM_UNICODE_TEXT } from "../../../src/hermes/sim/script.ts"
import { contractSuite, type Generation } from "./scenarios.ts"

/** The contract suite against one generation of the simulator. */
export const simContractSuite = (generation: Generation) =>
  contractSuite({
    name: `simulator, ${generation} generation`,
    generation,
    runTimeoutMs: 10_000,
    restartable: true,
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
          hold: "[sim:slow=30s]",
          fail: "[sim:fail]",
          long: "[sim:events=1200]",
          subagent: "[sim:subagent] ask a helper"
        },
        unicodeText: SIM_UNICODE_TEXT,
        providerSecret: null,
        restart: () => sim.restart(),
        close: () => sim.close()
      }
    }
  })
