/** The Hermes contract suite against the simulator's imitation of upstream 0.20.1 (`contract/simTarget.ts`). */
import { simContractSuite } from "./contract/simTarget.ts"

simContractSuite("0.20")
