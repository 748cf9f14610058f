import { Schema } from "effect"
import { AgentCapabilities } from "../../../domain/capabilities.ts"
import { Capabilities } from "../../../services/capabilities/Capabilities.ts"
import { defineTool, Fields } from "../ToolDef.ts"

export default defineTool({
  name: "agent_capabilities",
  title: "Show an agent's capabilities",
  description:
    "Describe what a Hermes profile can do now (version, model aliases, toolsets, MCP server names, skill dirs, platforms, approvals mode), every secret left out; use it to check an agent fits a task. A null field means the profile's config does not set it or could not be read.",
  input: Schema.Struct({ agent: Fields.agent }),
  output: AgentCapabilities,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: ({ agent }) => Capabilities.forAgent(agent)
})
