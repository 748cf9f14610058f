/** The Hermes contract suite against the simulator's new generation (the target: `contract/simTarget.ts`). */
import { simContractSuite } from "./contract/simTarget.ts"

simContractSuite("new")
