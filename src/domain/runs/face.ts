/** Which face started a run: the MCP run tools or A2A (migration 0009; older runs are `mcp`). */
export type RunFace = "mcp" | "a2a"
export const RUN_FACES: ReadonlyArray<RunFace> = ["mcp", "a2a"]
