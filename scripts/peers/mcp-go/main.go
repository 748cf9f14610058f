// An MCP server on mcp-go with one trivial `echo` tool over Streamable HTTP, for scripts/bench-peers.ts.
// Usage: mcpgo-echo PORT (listens on 127.0.0.1:PORT, endpoint /mcp).
package main

import (
	"context"
	"log"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: mcpgo-echo PORT")
	}
	s := server.NewMCPServer("peer-mcp-go", "0", server.WithToolCapabilities(false))
	tool := mcp.NewTool("echo", mcp.WithDescription("Echoes its message."), mcp.WithString("message", mcp.Required()))
	s.AddTool(tool, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		msg, err := req.RequireString("message")
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(msg), nil
	})
	if err := server.NewStreamableHTTPServer(s).Start("127.0.0.1:" + os.Args[1]); err != nil {
		log.Fatal(err)
	}
}
