/**
 * Every limit a client can see, in one place. The tools' Schemas and descriptions are built from
 * these numbers, the services enforce them, the tests import them, and docs/REFERENCE.md states them
 * (the reference test checks that it names each tool; the goldens pin the published schemas). To
 * change a limit, change it here and run `npm run golden:update`.
 */

/** Sizes are bytes of UTF-8; `kib(16384)` is "16 KiB", how descriptions spell them. */
export const kib = (bytes: number): string => `${bytes / 1024} KiB`

// Runs

/** The newest events a run keeps; older ones are dropped as new ones arrive. */
export const EVENTS_KEPT = 500
/** `agent_run_events` `limit`: the largest page and the default. */
export const EVENTS_PAGE_MAX = 500
export const EVENTS_PAGE_DEFAULT = 100
/** The longest wait of `agent_run` `wait_s` and `agent_run_wait` `timeout_s`, in seconds. */
export const WAIT_MAX_SECONDS = 600
/** `agent_run_wait` without `timeout_s`. */
export const WAIT_DEFAULT_SECONDS = 120
/** A wait's `events_tail`: the newest events it carries. */
export const TAIL_EVENTS = 20
/** One `output` window. */
export const WINDOW_BYTES = 16 * 1024
/** Any other text a view carries (`error`, `pending`, an event) is cut here. */
export const TEXT_LIMIT_BYTES = 16 * 1024
/** `input_preview` and `output_preview` length, in characters. */
export const PREVIEW_CHARS = 200
/** `agent_runs_list` `limit`: the largest list and the default. */
export const RUNS_LIST_MAX = 200
export const RUNS_LIST_DEFAULT = 20

// Teach

/** Pending skill changes (puts and deletes) one client may hold. */
export const PENDING_SKILL_CHANGES_MAX = 8

/** The numbers of the skill push rules. */
export const SKILL_LIMITS = {
  nameMax: 64,
  descriptionMax: 1024,
  dataUriMax: 1024,
  filesMax: 16,
  fileNameBytesMax: 200,
  skillMdBytesMax: 16 * 1024,
  totalBytesMax: 48 * 1024
} as const

/** Notes and searches of both memory servers. */
export const MEMORY_LIMITS = {
  textBytesMax: 16 * 1024,
  limitMin: 1,
  limitMax: 50,
  limitDefault: 10,
  listDefault: 20,
  tagsMax: 32,
  tagCharsMax: 128
} as const

/** The A2A face: a JSON-RPC request body, and the text of one message (all its parts). */
export const A2A_BODY_MAX_BYTES = 1024 * 1024
export const A2A_INPUT_MAX_BYTES = 256 * 1024
/** How deep a request's JSON may nest (arrays and objects; the request itself is level 1). */
export const A2A_JSON_DEPTH_MAX = 64
/** A task's output artifact holds at most this much (16 KiB windows, one part each). */
export const A2A_ARTIFACT_MAX_BYTES = 1024 * 1024
/** `ListTasks`: the page size when none is asked for, and the most it may ask. */
export const A2A_LIST_DEFAULT = 50
export const A2A_LIST_MAX = 100

/**
 * A2A push notifications: configs per task; how long a notification is tried before it is given up
 * (24 hours) and how many times at most; the retry backoff (1 s doubling, at most 10 minutes); one
 * POST's deadline by default (`a2a.push_timeout_ms` sets it); how often at most run changes bring
 * the worker a pass.
 */
export const A2A_PUSH_CONFIGS_PER_TASK = 10
export const A2A_PUSH_DELIVERY_MAX_MS = 24 * 60 * 60 * 1000
export const A2A_PUSH_ATTEMPTS_MAX = 200
export const A2A_PUSH_BACKOFF_FIRST_MS = 1000
export const A2A_PUSH_BACKOFF_MAX_MS = 10 * 60 * 1000
export const A2A_PUSH_POST_TIMEOUT_MS = 10_000
/** The push worker's passes that run changes bring, at most one per this long (a burst is one pass); a failed pass is tried again after it. */
export const A2A_PUSH_POLL_MS = 250
/** Due notifications the worker looks at per pass, at least (more wait for the next pass). */
export const A2A_PUSH_PER_PASS = 50

// The faces: what each protocol face keeps alive, advises and holds, in one place

/** A day in milliseconds (retention windows, the console's usage window). */
export const DAY_MS = 24 * 60 * 60 * 1000
/** An SSE comment frame on every open stream of every face (MCP, A2A, the console): proxies and clients drop a silent connection. */
export const SSE_KEEP_ALIVE_MS = 15_000
/** The `pollIntervalMs` an MCP task advises its client (how often to call `tasks/get` if it polls). */
export const TASK_POLL_INTERVAL_MS = 1000
/** Task ids one MCP Tasks `subscriptions/listen` stream may name (more are dropped, not refused). */
export const TASK_LISTEN_IDS_MAX = 32
/** A 2025-era MCP session unused this long is closed (and its stored row with it). */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000
/** How often a session's stored last use is moved forward (a write per request would be a write per call). */
export const MCP_SESSION_TOUCH_EVERY_MS = 60_000
/**
 * Sessions one client may hold recorded in the store, over every replica, per session one client
 * may hold in one process (`limits.mcp_sessions_per_client`): that cap is each process's (its least
 * recently used copy goes, and its row with it), this one bounds the rows that replicas which died
 * left behind until their idle expiry (oldest stored use first).
 */
export const MCP_STORED_SESSIONS_FACTOR = 4
/** The operator's signed-in inbox sessions kept at once: the oldest ends first. */
export const INBOX_SESSIONS_MAX = 32

// Several replicas (PostgreSQL): the run followers' failover through @effect/cluster

/**
 * The numbers behind "another replica follows a run within 10 s of its follower's death"
 * (docs/ARCHITECTURE.md, "Who follows a run"). A SIGKILLed replica's shard locks (PostgreSQL
 * advisory locks) go with its sessions at once; what the others wait for is its runner row to look
 * dead: no heartbeat for `lockExpirationMs`. The heartbeat (and the lock refresh) runs every
 * `lockRefreshMs`, a third of the expiry, so a live replica that misses one beat keeps its shards.
 * Then a survivor sees the new membership within `assignmentsRefreshMs`, takes the shards (its
 * acquisition loop retries each second) and reads the dead replica's unanswered Follow messages at
 * once (the library reads the message table on every acquisition): 4 + 1 + 1 ≈ 6 s at worst,
 * measured 3–5.2 s (test/runs/runs-failover.e2e.test.ts). Shorter expiries would
 * make a replica on a loaded machine (or a slow PostgreSQL) lose its shards while alive.
 *
 * `messagePollMs` is not on that path: a Follow reaches its runner as a notification (over the
 * cluster socket, or in-process), which makes the runner read the message table then; the poll only
 * catches a notification that was lost. At 0.5 s it was half of an idle replica's CPU (10.7 → 6.6
 * ms/s measured at 10 s, the library's default); `assignmentsRefreshMs` at 3 s would take that to
 * 4.7 ms/s but add up to 2 s to every failover and hand-over, so it stays at 1 s.
 *
 * On SIGTERM a replica unregisters at once and ends its followers after at most
 * `terminationTimeoutMs` (a follower never ends by itself before its run does, so the wait is
 * always the whole timeout), then frees its locks: measured, it exits 1.7–2.3 s after the signal
 * and its runs move on elsewhere 2.8 s after it (the others retry the locks each second).
 *
 * `shards`: runs are spread over this many shards (hash of the run id); fixed for a deployment
 * (every replica must use the same number). 64 spreads 2–3 replicas evenly and keeps each poll
 * of the message table one small query.
 */
export const CLUSTER_TIMING = {
  shards: 64,
  lockRefreshMs: 1_300,
  lockExpirationMs: 4_000,
  assignmentsRefreshMs: 1_000,
  messagePollMs: 10_000,
  terminationTimeoutMs: 1_000
} as const
/** The cluster port when `cluster.port` is unset: the bridge port plus this. */
export const CLUSTER_PORT_OFFSET = 1000

/**
 * The cluster port's guard (daemon/clusterSocket.ts). A connection must prove the shared
 * `cluster.secret` (an HMAC challenge-response) before any byte of it reaches the RPC decoder:
 *
 * - `handshakeMs`: the whole hello exchange, from accept to the last proof, or it is closed; a peer
 *   replica on a busy machine answers in milliseconds (the client side allows itself the same);
 * - `pendingHandshakes`: connections in their hello at once; one more is closed unread, so idle or
 *   slow connections hold at most this many sockets for at most `handshakeMs`;
 * - `connections`: every connection at once, authenticated or not (a replica opens two or three to
 *   each other replica: its messages, its health pings);
 * - `frameBytes`: the most an authenticated peer may send of one RPC message before it is whole
 *   (the msgpack parser's buffer; the library's default is 16 MiB). The run followers' messages are
 *   a run id and the cluster's headers, a few hundred bytes.
 */
export const CLUSTER_PORT_LIMITS = {
  handshakeMs: 3_000,
  pendingHandshakes: 16,
  connections: 256,
  frameBytes: 1024 * 1024
} as const
/** The fewest characters of `cluster.secret` (`openssl rand -base64 32` gives 44). */
export const CLUSTER_SECRET_MIN_CHARS = 32
// Per-client quotas: what one client may accumulate or hold open

/**
 * What one client may hold at once, each refused past its quota with `bridge.quota_exceeded`
 * (nothing written or opened), and each a key of the config's `limits` section (these are the
 * defaults, far above what one real client holds, so only a runaway or hostile client meets them).
 * docs/REFERENCE.md ("Per-client quotas") lists them with the quotas that predate the section:
 * live runs (`bridge.max_concurrent_runs_per_client`, `bridge.too_many_runs`) and pending skill
 * changes (`PENDING_SKILL_CHANGES_MAX`, `bridge.too_many_pending`).
 *
 * - `memory_notes_per_client`, `memory_bytes_per_client`: notes a client wrote (every namespace)
 *   and their stored bytes (text and tags, UTF-8), counted in the database, so over every replica.
 * - `open_streams_per_client`: event streams a client holds open on one replica, of every kind
 *   (A2A `SendStreamingMessage` and `SubscribeToTask`, a 2025 MCP session's GET stream, an MCP
 *   Tasks `subscriptions/listen`); a closed stream frees its slot at once.
 * - `push_configs_per_client`: A2A push configs a client has stored, over all its tasks (each task
 *   holds at most `A2A_PUSH_CONFIGS_PER_TASK`); they go with their task's retention.
 * - `mcp_sessions_per_client`: 2025-era MCP sessions a client holds on one replica; past it, its
 *   least recently used session is closed (not refused: a client that lost track of its sessions
 *   must still be able to start one). The store keeps 4× as many rows over every replica.
 */
export const CLIENT_QUOTA_DEFAULTS = {
  memory_notes_per_client: 10_000,
  memory_bytes_per_client: 64 * 1024 * 1024,
  open_streams_per_client: 64,
  push_configs_per_client: 10_000,
  mcp_sessions_per_client: 64
} as const
export type ClientQuotaKey = keyof typeof CLIENT_QUOTA_DEFAULTS
export type ClientQuotaLimits = { readonly [K in ClientQuotaKey]: number }

/**
 * `bridge.heap_slack_mib`'s default: the MiB of garbage the heap's old generation may gather before
 * its next full collection (`daemon/heapSlack.ts`). bench-scale names it beside an RSS per run read
 * over few runs, where this slack is most of the figure.
 */
export const HEAP_SLACK_MIB_DEFAULT = 128
