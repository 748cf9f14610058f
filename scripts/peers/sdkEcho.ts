/**
 * The same-SDK bare server for scripts/bench-peers.ts: @modelcontextprotocol/server's low-level
 * `Server` with one trivial `echo` tool, on `node:http`, in both eras, wired the way the bridge wires
 * the SDK (so its figures are the floor the bridge's edge stands on, with nothing of Effect):
 * - 2026-07-28: `createMcpHandler` (a server instance per request, no session);
 * - 2025-11-25: a `WebStandardStreamableHTTPServerTransport` per session, opened by `initialize`.
 * The body is read once and handed over as `parsedBody` with a body-less `Request`; a JSON answer is
 * sent as one buffer, an SSE answer piped as it comes.
 *
 * Usage: node --import tsx scripts/peers/sdkEcho.ts PORT (endpoint /mcp on 127.0.0.1).
 */
import { createMcpHandler, isLegacyRequest, ProtocolError, ProtocolErrorCode, Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0) throw new Error("usage: sdkEcho.ts PORT")

const makeServer = () => {
  const server = new Server({ name: "peer-sdk-echo", version: "0" }, { capabilities: { tools: {} } })
  server.setRequestHandler("tools/list", async () => ({
    tools: [{ name: "echo", description: "Echoes its message.", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } }]
  }))
  server.setRequestHandler("tools/call", async (req) => {
    // As the bridge does: an unknown tool is a protocol error, not an echo.
    if (req.params.name !== "echo") throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`)
    return { content: [{ type: "text", text: String((req.params.arguments as { message?: unknown } | undefined)?.message ?? "") }] }
  })
  return server
}

const modern = createMcpHandler(() => makeServer(), { legacy: "reject" })
const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()

const openSession = async () => {
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => void sessions.set(id, transport),
    onsessionclosed: (id) => void sessions.delete(id)
  })
  await makeServer().connect(transport)
  return transport
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

const send = async (res: ServerResponse, answer: Response) => {
  const headers: Record<string, string> = {}
  answer.headers.forEach((v, k) => void (headers[k] = v))
  if ((headers["content-type"] ?? "").startsWith("application/json") || answer.body === null) {
    const buf = Buffer.from(await answer.arrayBuffer())
    res.writeHead(answer.status, { ...headers, "content-length": String(buf.length) })
    res.end(buf)
    return
  }
  res.writeHead(answer.status, headers)
  const reader = answer.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    res.write(value)
  }
  res.end()
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  const body = req.method === "POST" ? await readBody(req) : undefined
  const parsedBody = body === undefined || body.length === 0 ? undefined : (JSON.parse(body.toString("utf8")) as unknown)
  const headers = new Headers()
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v)
  const request = new Request(`http://127.0.0.1:${port}${req.url ?? "/"}`, { method: req.method ?? "GET", headers })
  const sid = headers.get("mcp-session-id")
  const legacy = sid !== null || (headers.get("mcp-protocol-version") ?? "").startsWith("2025-") || (await isLegacyRequest(request, parsedBody))
  if (!legacy) return send(res, await modern.fetch(request, { parsedBody }))
  const transport = sid === null ? await openSession() : sessions.get(sid)
  if (transport === undefined) {
    res.writeHead(404, { "content-type": "application/json" })
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }))
    return
  }
  return send(res, await transport.handleRequest(request, { parsedBody }))
}

createServer((req, res) => {
  handle(req, res).catch((e: unknown) => {
    if (!res.headersSent) res.writeHead(500)
    res.end(String(e))
  })
}).listen(port, "127.0.0.1", () => console.log(`sdk-echo listening on ${port}`))
