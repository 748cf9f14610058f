import { Schema } from "effect"
import { AgentsList } from "../../../domain/agents.ts"
import { Agents } from "../../../services/agents/Agents.ts"
import { defineTool } from "../ToolDef.ts"

export default defineTool({
  name: "agents_list",
  title: "List Hermes agents",
  description:
    "List the Hermes agents this bridge can delegate to, each with its health, whether the bridge holds its key, its model id, and hermes_features: whether that Hermes can take agent_run_steer (steer), resume a dropped event stream (event_replay) and keep idempotency keys durably (durable_idempotency); false means it lacks it, null not known yet. Call it first to pick the `agent` for agent_run.",
  input: Schema.Struct({}),
  output: AgentsList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  handler: () => Agents.list
})
