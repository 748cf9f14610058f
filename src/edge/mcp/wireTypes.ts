/** The MCP wire types the edge uses, from the one SDK package the daemon depends on. */
export type { CallToolResult, ServerNotification, Tool } from "@modelcontextprotocol/server"
