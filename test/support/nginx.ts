/**
 * A throwaway nginx in front of bridge replicas (issue 25 item 1), configured with the block of
 * docs/DEPLOY.md ("nginx in front") as written: the test reads the fenced `nginx` block, puts the
 * replicas' addresses in place of its `upstream` server lines and its own port in `listen`, and wraps
 * it in a minimal `nginx.conf` of its own (pid, logs and temp folders in a temp prefix, one worker).
 * nginx runs as a `daemon off` child process, killed at teardown.
 *
 * Debian's `nginx` binary (`/usr/sbin/nginx`, or `AGENT_BRIDGE_NGINX`); as root with apt-get the
 * package is installed once when absent, as pgServer.ts does for PostgreSQL. Otherwise the start
 * fails with what to install: these tests are never skipped.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { aptInstall } from "./aptInstall.ts"
import { freeLoopbackPort } from "./freePort.ts"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
export const DEPLOY_DOC = path.join(REPO, "docs", "DEPLOY.md")
const DEBIAN_NGINX = "/usr/sbin/nginx"
const INSTALL_TIMEOUT_MS = 15 * 60_000
const START_TIMEOUT_MS = 20_000

const log = (line: string) => process.stderr.write(`[nginx] ${line}\n`)

/** The fenced ```nginx block of docs/DEPLOY.md (exactly one). */
export const documentedConfig = (doc: string = fs.readFileSync(DEPLOY_DOC, "utf8")): string => {
  const blocks = [...doc.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]!)
  if (blocks.length !== 1) throw new Error(`docs/DEPLOY.md must hold exactly one \`\`\`nginx block, found ${blocks.length}`)
  return blocks[0]!
}

/**
 * The documented block with `upstreams` (host:port) as its upstream's servers and `port` in its
 * `listen`. Each documented `server host:port …;` line of the upstream is the pattern: its options
 * (max_fails, fail_timeout) are kept for every replica. Throws when the block has no such lines.
 */
export const fillConfig = (block: string, upstreams: ReadonlyArray<string>, port: number): string => {
  const serverLine = /^([ \t]*)server[ \t]+127\.0\.0\.1:\d+([^;\n]*);[ \t]*\n/gm
  const lines = [...block.matchAll(serverLine)]
  if (lines.length === 0) throw new Error("the documented nginx block has no `server 127.0.0.1:PORT …;` upstream line")
  const [indent, options] = [lines[0]![1]!, lines[0]![2]!]
  let first = true
  const withServers = block.replace(serverLine, () => {
    if (!first) return ""
    first = false
    return upstreams.map((u) => `${indent}server ${u}${options};\n`).join("")
  })
  const listen = /^([ \t]*)listen[ \t]+127\.0\.0\.1:\d+;/m
  if (!listen.test(withServers)) throw new Error("the documented nginx block has no `listen 127.0.0.1:PORT;` line")
  return withServers.replace(listen, (_, ind: string) => `${ind}listen 127.0.0.1:${port};`)
}

/** The whole nginx.conf around the documented block: everything in `prefix`, one worker, logs kept. */
export const wrapConfig = (httpBlock: string, prefix: string): string => `daemon off;
master_process on;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 512; }
http {
    # The tests' own: which replica answered each request (the documented block sets no log).
    log_format replicas '$request_method $status $upstream_addr $http_mcp_session_id $uri';
    access_log ${prefix}/access.log replicas;
    client_body_temp_path ${prefix}/client_body;
    proxy_temp_path ${prefix}/proxy;
    fastcgi_temp_path ${prefix}/fastcgi;
    uwsgi_temp_path ${prefix}/uwsgi;
    scgi_temp_path ${prefix}/scgi;
${httpBlock}
}
`

const isRoot = () => process.getuid?.() === 0

/** The nginx binary, installing Debian's package first when absent and allowed (root with apt-get). */
export const ensureNginx = async (): Promise<string> => {
  const own = process.env["AGENT_BRIDGE_NGINX"]
  if (own !== undefined && own !== "") return own
  if (fs.existsSync(DEBIAN_NGINX)) return DEBIAN_NGINX
  if (!isRoot() || !fs.existsSync("/usr/bin/apt-get")) {
    throw new Error(`no nginx at ${DEBIAN_NGINX}: install Debian's nginx package (apt-get install nginx), or set AGENT_BRIDGE_NGINX`)
  }
  log("installing Debian's nginx with apt-get (once)")
  await aptInstall({ packages: ["nginx"], unless: DEBIAN_NGINX, timeoutMs: INSTALL_TIMEOUT_MS })
  if (!fs.existsSync(DEBIAN_NGINX)) throw new Error(`apt-get installed nginx but there is no ${DEBIAN_NGINX}`)
  return DEBIAN_NGINX
}

export interface PassedRequest {
  readonly method: string
  readonly status: number
  /** The replicas nginx tried, in order (a refused one first, then the one that answered). */
  readonly upstreams: ReadonlyArray<string>
  readonly sessionId: string | undefined
  /** The request's path, without its query (nginx's `$uri`). */
  readonly path: string
}

/** The lines of the `replicas` log format (wrapConfig). */
export const parseAccessLog = (text: string): ReadonlyArray<PassedRequest> =>
  text.split("\n").filter((l) => l.trim() !== "").map((line) => {
    const [method = "", status = "0", upstream = "-", ...rest] = line.split(" ")
    // Several replicas tried: "127.0.0.1:1, 127.0.0.1:2" (the space after the comma splits it too).
    const more = rest.slice(0, -2)
    const session = rest.at(-2)
    const upstreams = [upstream, ...more].join(" ").split(",").map((u) => u.trim()).filter((u) => u !== "" && u !== "-")
    return { method, status: Number(status), upstreams, sessionId: session === undefined || session === "-" ? undefined : session, path: rest.at(-1) ?? "" }
  })

export interface Nginx {
  readonly url: string
  readonly port: number
  readonly prefix: string
  /** The end of error.log (for failure messages). */
  readonly errors: () => string
  /** The requests nginx passed on so far, in order: method, status, the replica(s) tried, the session id ("-": none). */
  readonly passed: () => ReadonlyArray<PassedRequest>
  /** Kills nginx (SIGKILL to the master and, by its process group, its worker) and removes the prefix. Idempotent. */
  readonly stop: () => Promise<void>
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => (socket.destroy(), resolve(true)))
    socket.once("error", () => resolve(false))
  })

/**
 * Starts nginx in front of `upstreams` (`127.0.0.1:port` each) with the documented configuration,
 * listening on `listenPort` (chosen before the replicas start, when their config names nginx's
 * address: `oauth.issuer`) or on a free port.
 */
export const startNginx = async (upstreams: ReadonlyArray<string>, listenPort?: number): Promise<Nginx> => {
  const bin = await ensureNginx()
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-nginx-"))
  const port = listenPort ?? (await freeLoopbackPort())
  const conf = path.join(prefix, "nginx.conf")
  fs.writeFileSync(conf, wrapConfig(fillConfig(documentedConfig(), upstreams, port), prefix))
  const errors = () => {
    const file = path.join(prefix, "error.log")
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").slice(-10).join("\n") : ""
  }
  // Its own process group, so that teardown reaches the worker too.
  const child: ChildProcess = spawn(bin, ["-p", prefix, "-c", conf], { detached: true, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4096)))
  let running = true
  const exited = new Promise<void>((resolve) => child.once("exit", () => ((running = false), resolve())))
  const killGroup = () => {
    if (running && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {
        child.kill("SIGKILL")
      }
    }
  }
  process.once("exit", killGroup)
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    killGroup()
    await exited
    process.removeListener("exit", killGroup)
    fs.rmSync(prefix, { recursive: true, force: true })
  }
  const deadline = Date.now() + START_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (!running) {
      const why = `${stderr}\n${errors()}`.trim()
      await stop()
      throw new Error(`nginx exited during start-up: ${why}`)
    }
    const passed = () => {
      const file = path.join(prefix, "access.log")
      return fs.existsSync(file) ? parseAccessLog(fs.readFileSync(file, "utf8")) : []
    }
    if (await accepts(port)) return { url: `http://127.0.0.1:${port}`, port, prefix, errors, passed, stop }
    await new Promise((r) => setTimeout(r, 50))
  }
  const why = errors()
  await stop()
  throw new Error(`nginx did not listen on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms: ${why}`)
}
