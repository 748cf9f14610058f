/**
 * The compact catalog's three meta tools, in the shapes of Hermes's own tool bridge: `tool_search`, `tool_describe`, `tool_call`. They reach the same tools a direct call
 * could, for the same caller, and nothing else.
 */
import type { ToolDef } from "../ToolDef.ts"
import type { ReachableTools } from "./reachable.ts"
import { toolCall } from "./tool_call.ts"
import { toolDescribe } from "./tool_describe.ts"
import { toolSearch } from "./tool_search.ts"

export const META_TOOL_NAMES = ["tool_search", "tool_describe", "tool_call"] as const

/** `all`: every tool the meta tools could ever reach (search indexes it once); `reachable`: per caller. */
export const makeMetaTools = (all: ReadonlyArray<ToolDef>, reachable: ReachableTools): ReadonlyArray<ToolDef> => [
  toolSearch(all, reachable),
  toolDescribe(reachable),
  toolCall(reachable)
]
