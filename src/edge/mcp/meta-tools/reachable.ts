/**
 * What the meta tools (`tool_search`, `tool_describe`, `tool_call`) work over: the tools a caller may
 * call on the agents server, after their filter, and never the meta tools themselves. Every meta
 * tool asks this one function, so a filtered tool is unknown to all three alike.
 */
import type { CallerShape } from "../../../request/Caller.ts"
import type { ToolDef } from "../ToolDef.ts"

export type ReachableTools = (caller: CallerShape) => ReadonlyArray<ToolDef>

/** Long names are cut in messages: they are the caller's own input, echoed back. */
export const shownName = (name: string) => (name.length > 80 ? `${name.slice(0, 80)}…` : name)
