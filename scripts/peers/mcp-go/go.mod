module agent-bridge/peers/mcpgo

go 1.25.5

require github.com/mark3labs/mcp-go v1.2.1
