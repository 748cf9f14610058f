/**
 * The floor for scripts/bench-peers.ts: a bare `node:http` server that parses a JSON-RPC request and
 * answers its params as a text block (no MCP). Usage: node scripts/peers/nodeEcho.ts PORT.
 */
import { createServer } from "node:http"

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0) throw new Error("usage: nodeEcho.ts PORT")
createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; params: unknown }
    const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: JSON.stringify(msg.params) }] } })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  })
}).listen(port, "127.0.0.1", () => console.log(`node-echo listening on ${port}`))
