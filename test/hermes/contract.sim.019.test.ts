/** The Hermes contract suite against the simulator's imitation of upstream 0.19.0 (`contract/simTarget.ts`). */
import { simContractSuite } from "./contract/simTarget.ts"

simContractSuite("0.19")
