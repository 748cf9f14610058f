/**
 * The bridge's one A2A agent card (`/.well-known/agent-card.json`): a skill per runnable agent,
 * from the same source as `agents_list`; the JSON-RPC interface at `<base>/a2a`; bearer keys (the
 * bridge's client keys, scope `a2a`). Streaming is offered (`taskStream.ts`); push notifications are
 * true when `a2a.webhook_allow` names somewhere they may go.
 * Public, as the spec's discovery wants it: it names the agents and nothing a key would guard
 * (no model ids, no health, no client, and not the bridge's version: `version` is
 * `PUBLIC_CARD_VERSION` unless the request carries the admin key or the metrics token).
 */
import { AgentCard } from "@a2a-js/sdk"
import type { AgentsList } from "../../domain/agents.ts"

export const AGENT_CARD_PATH = "/.well-known/agent-card.json"
export const A2A_PATH = "/a2a"
export const A2A_PROTOCOL_VERSION = "1.0"
const SCHEME_NAME = "bridgeKey"

/** The card's `version` for a reader without the operator's key: the field is required, the build is not told. */
export const PUBLIC_CARD_VERSION = "undisclosed"

export const agentCard = (baseUrl: string, agents: AgentsList, pushNotifications = false, version = PUBLIC_CARD_VERSION): AgentCard => ({
  name: "agent-bridge",
  description:
    "A Hermes agent behind agent-bridge: send a task as a text message (metadata.agent picks the agent, default \"hermes\"); the bridge runs it and keeps it as a task you can read, answer and cancel.",
  supportedInterfaces: [{ url: `${baseUrl}${A2A_PATH}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
  provider: undefined,
  version,
  capabilities: { streaming: true, pushNotifications, extensions: [], extendedAgentCard: false },
  securitySchemes: {
    [SCHEME_NAME]: {
      scheme: {
        $case: "httpAuthSecurityScheme",
        value: { description: "A bridge client key with scope a2a (agent-bridge client add NAME).", scheme: "Bearer", bearerFormat: "" }
      }
    }
  },
  securityRequirements: [{ schemes: { [SCHEME_NAME]: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: agents.agents.flatMap((a) =>
    "agent_id" in a
      ? [{
          id: a.agent_id,
          name: a.name,
          description: `Delegate a task to the Hermes agent "${a.agent_id}" (set metadata.agent to "${a.agent_id}" on the message).`,
          tags: ["hermes", "delegation"],
          examples: [],
          inputModes: ["text/plain"],
          outputModes: ["text/plain"],
          securityRequirements: []
        }]
      : []),
  signatures: []
})

/** The card as its JSON travels. */
export const agentCardJson = (baseUrl: string, agents: AgentsList, pushNotifications = false, version = PUBLIC_CARD_VERSION): unknown =>
  AgentCard.toJSON(agentCard(baseUrl, agents, pushNotifications, version))
