/** The catalog every client sees until per-client settings say otherwise (issue 7 refines this). */
import type { Catalog } from "./catalog.ts"
import { agentTools } from "./tools/index.ts"
import type { ToolDef } from "./ToolDef.ts"

export const makeCatalog = (memoryTools: ReadonlyArray<ToolDef>): Catalog => ({
  tools: (kind) => (kind === "agents" ? agentTools : memoryTools)
})
