/** The Hermes contract suite against the simulator's old generation (the target: `contract/simTarget.ts`). */
import { simContractSuite } from "./contract/simTarget.ts"

simContractSuite("old")
