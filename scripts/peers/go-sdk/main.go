// An MCP server on the official Go SDK with one trivial `echo` tool over Streamable HTTP, for
// scripts/bench-peers.ts. Usage: gosdk-echo PORT (listens on 127.0.0.1:PORT, endpoint /mcp).
package main

import (
	"context"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Message string `json:"message"`
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: gosdk-echo PORT")
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "peer-go-sdk", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes its message."},
		func(_ context.Context, _ *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Message}}}, nil, nil
		})
	// The SDK serves 2026-07-28 requests only on a stateless handler and refuses them on a stateful one
	// (docs/protocol.md, "Stateless Mode"), so each era gets its handler: a 2026-07-28 request (by its
	// MCP-Protocol-Version header) the stateless one, the rest the stateful one, with 2025 sessions.
	getServer := func(*http.Request) *mcp.Server { return server }
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	stateful := mcp.NewStreamableHTTPHandler(getServer, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[1], mux))
}
