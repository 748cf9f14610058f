/**
 * The shape of `agent-bridge.yaml` (docs/REFERENCE.md). Every key is optional; defaults are
 * applied here so the rest of the daemon only ever sees a complete, decoded `BridgeConfig`.
 * Secrets (`key`) decode to `Redacted` so they never print by accident.
 */
import { Schema } from "effect"
import { proxyEntryProblem } from "../common/trustedProxies.ts"
import { parseAllowRule } from "../domain/a2a/webhookAllow.ts"
import { A2A_PUSH_POST_TIMEOUT_MS, CLIENT_QUOTA_DEFAULTS, CLUSTER_SECRET_MIN_CHARS, HEAP_SLACK_MIB_DEFAULT } from "../domain/limits.ts"
import { pgUrlProblem } from "./storageUrl.ts"
import { issuerProblem } from "../domain/oauth.ts"

const NonEmpty = Schema.String.pipe(Schema.minLength(1))
const WebhookAllowEntry = Schema.String.pipe(Schema.filter((s) => {
  const rule = parseAllowRule(s)
  return typeof rule === "string" ? rule : true
}))
const Port = Schema.Int.pipe(Schema.between(0, 65535))
export const ProfileName = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,63}$/, {
    message: () => "a profile name: lowercase letters, digits, '_' and '-', at most 64, not starting with '_' or '-'"
  })
)
export const ClientName = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9_-]{0,31}$/, {
    message: () => "a client name: lowercase letters, digits, '_' and '-', at most 32, not starting with '_' or '-'"
  })
)

const ProxyEntry = Schema.String.pipe(Schema.filter((s) => proxyEntryProblem(s) ?? true))

/** `bridge.run_retention_days` when the config does not set it (and where no config is loaded). */
export const DEFAULT_RUN_RETENTION_DAYS = 7

const withDefault = <S extends Schema.Schema.Any>(s: S, value: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(s, { default: value as never })

export const BridgeSection = Schema.Struct({
  enabled: withDefault(Schema.Boolean, () => true),
  host: withDefault(NonEmpty, () => "127.0.0.1"),
  port: withDefault(Port, () => 8765),
  data_dir: withDefault(NonEmpty, () => "./.agent-bridge"),
  allowed_hosts: withDefault(Schema.Array(NonEmpty), () => []),
  /**
   * Browser origins (`scheme://host[:port]`) allowed to call the MCP endpoints. A request that
   * carries any other `Origin` is refused (403); none is allowed by default. Requests without an
   * `Origin` (every non-browser client) are not affected. One origin or a comma-separated list in
   * AGENT_BRIDGE_BRIDGE_ALLOWED_ORIGINS.
   */
  allowed_origins: withDefault(
    Schema.transform(Schema.Union(Schema.Array(NonEmpty), NonEmpty), Schema.Array(NonEmpty), {
      strict: true,
      decode: (v) => (typeof v === "string" ? [v] : v),
      encode: (v) => v
    }),
    () => []
  ),
  run_retention_days: withDefault(Schema.Number.pipe(Schema.finite(), Schema.greaterThan(1)), () => DEFAULT_RUN_RETENTION_DAYS),
  max_concurrent_runs_per_client: withDefault(Schema.Int.pipe(Schema.between(1, 1000)), () => 4),
  /**
   * Runs one client may have waiting in the queue for Hermes's capacity (issue 38), apart from its
   * live runs; past it a start is refused with `bridge.too_many_queued`. 0: no queue for anyone.
   */
  max_queued_runs_per_client: withDefault(Schema.Int.pipe(Schema.between(0, 100_000)), () => 16),
  /**
   * Reverse proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client, e.g. for
   * the inbox sign-in limit; none by default (the header is ignored). One entry may come as a plain
   * string, as `AGENT_BRIDGE_BRIDGE_TRUSTED_PROXIES=127.0.0.1` gives it.
   */
  trusted_proxies: withDefault(
    Schema.Union(
      Schema.Array(ProxyEntry),
      Schema.transform(ProxyEntry, Schema.Array(Schema.String), { strict: true, decode: (s) => [s], encode: (a) => a[0] ?? "" })
    ),
    () => []
  ),
  /** The admin key; unset: created on first start in `<data_dir>/admin.key` (0600). */
  admin_key: Schema.optional(Schema.Redacted(Schema.String.pipe(Schema.minLength(16)))),
  /** The daemon's log: the least severe level written, and one logfmt (`text`) or JSON line per entry. */
  log_level: withDefault(Schema.Literal("debug", "info", "warn", "error"), () => "info" as const),
  log_format: withDefault(Schema.Literal("text", "json"), () => "text" as const),
  /**
   * This daemon's name among replicas on one database (`/metrics` label `replica`); unset: `host:port`
   * (`replicaIdOf`). A plain number from the environment is taken as its text.
   */
  replica_id: Schema.optional(
    Schema.Union(NonEmpty, Schema.transform(Schema.Number, Schema.String, { strict: true, decode: (n) => String(n), encode: (t) => Number(t) }))
  ),
  /** A bearer token for `GET /metrics` only (a scraper then needs no admin key); the admin key always works too. */
  metrics_token: Schema.optional(Schema.Redacted(Schema.String.pipe(Schema.minLength(16)))),
  /**
   * Seconds `serve` gives its shutdown (SIGTERM, SIGINT) to finish; past them it logs one line and
   * exits with code 1, whatever still waits (a database that does not answer).
   */
  shutdown_timeout_s: withDefault(Schema.Number.pipe(Schema.finite(), Schema.between(1, 3600)), () => 20),
  /**
   * MiB of garbage the JavaScript heap's old generation may gather before its next full collection
   * (`daemon/heapSlack.ts`); 0: V8's own policy (up to 3× what is live). It bounds the RSS a daemon
   * holding thousands of parked runs keeps; a small heap is under it and keeps V8's policy.
   */
  heap_slack_mib: withDefault(Schema.Int.pipe(Schema.between(0, 1_048_576)), () => HEAP_SLACK_MIB_DEFAULT)
})

/** The replica's name: `bridge.replica_id`, else `host:port` of its listener. */
export const replicaIdOf = (bridge: { readonly host: string; readonly port: number; readonly replica_id?: string | undefined }): string =>
  bridge.replica_id ?? `${bridge.host}:${bridge.port}`

/** How the bridge reaches one Hermes API server and which key it presents. */
export const HermesEndpoint = Schema.Struct({
  url: Schema.optional(NonEmpty),
  key: Schema.optional(Schema.Redacted(NonEmpty)),
  key_file: Schema.optional(NonEmpty),
  key_env: Schema.optional(NonEmpty),
  /** This profile's capacity: runs in flight at once (`hermes.max_concurrent_runs` when unset). */
  max_concurrent_runs: Schema.optional(Schema.Int.pipe(Schema.between(1, 100_000)))
})

export const HermesSection = Schema.Struct({
  home: withDefault(NonEmpty, () => "~/.hermes"),
  /** An http(s) URL, or "sim" for the built-in simulator. Unset: the simulator. */
  url: Schema.optional(NonEmpty),
  key: Schema.optional(Schema.Redacted(NonEmpty)),
  key_file: Schema.optional(NonEmpty),
  key_env: withDefault(NonEmpty, () => "API_SERVER_KEY"),
  multiplex: withDefault(Schema.Boolean, () => false),
  timeout_ms: withDefault(Schema.Int.pipe(Schema.between(100, 600_000)), () => 30_000),
  /**
   * A run whose stream was opened again (a restart, a failover, a reconnect) on a build that does
   * not number its frames, and that carried no event (keepalives do not count) this long, is checked
   * against Hermes's status (services/runs/quietWatch.ts): an older Hermes can leave a re-attached
   * stream on keepalives only, so only the status tells that the run ended. 10 s: a run Hermes ends
   * is settled within 20 s at worst, for one status read per quiet interval of each such run; a
   * run's first stream is never checked.
   */
  quiet_check_ms: withDefault(Schema.Int.pipe(Schema.between(100, 3_600_000)), () => 10_000),
  /**
   * Runs the bridge keeps in flight at once on each Hermes API server (profile), as Hermes's own
   * `gateway.api_server.max_concurrent_runs` (default 10) allows; more starts wait in the bridge's
   * queue (services/runs/admission.ts). A profile may set its own.
   */
  max_concurrent_runs: withDefault(Schema.Int.pipe(Schema.between(1, 100_000)), () => 10),
  profiles: withDefault(Schema.Record({ key: ProfileName, value: HermesEndpoint }), () => ({}))
})

/**
 * Where the stores live. No `url`: the SQLite file in `bridge.data_dir`, as always. A PostgreSQL URL
 * (`postgres://user:password@host:5432/db`): every store in that database (docs/DEPLOY.md). The URL
 * is a secret (it may carry a password): it decodes to `Redacted` and a refusal never quotes it.
 */
export const StorageSection = Schema.Struct({
  url: Schema.optional(Schema.Redacted(Schema.String.pipe(Schema.filter((s) => pgUrlProblem(s) ?? true)))),
  /** The most connections the daemon holds open to PostgreSQL at once. */
  pool_max: withDefault(Schema.Int.pipe(Schema.between(1, 1000)), () => 10),
  /** A statement running longer on PostgreSQL is cancelled by the server (its `statement_timeout`). */
  statement_timeout_ms: withDefault(Schema.Int.pipe(Schema.between(100, 3_600_000)), () => 5000)
})

/**
 * Runner-to-runner traffic of the run followers on PostgreSQL (docs/DEPLOY.md, "Several replicas"):
 * the address other replicas reach this one at, for `@effect/cluster`'s messages. `port` unset: the
 * bridge port + 1000 (none when the bridge port is 0 or above 64535); `0`: no cluster, this daemon
 * follows the runs it starts and finds unfinished itself, as on SQLite. Without `storage.url` the
 * section is ignored. `host` is both listened on and told to the other replicas.
 */
export const ClusterSection = Schema.Struct({
  host: withDefault(NonEmpty, () => "127.0.0.1"),
  port: Schema.optional(Port),
  /**
   * The secret every replica of the deployment shares: a connection to the cluster port must prove
   * it before anything it sends is read (daemon/clusterSocket.ts). Required with a cluster (else the
   * start is refused); `secret_file` (read, trimmed) when unset. At least 32 characters.
   */
  secret: Schema.optional(Schema.Redacted(Schema.String.pipe(Schema.minLength(CLUSTER_SECRET_MIN_CHARS)))),
  secret_file: Schema.optional(NonEmpty)
})

/**
 * The A2A face (`/a2a`, `/.well-known/agent-card.json`; false: both answer 404) and its push
 * notifications: `webhook_allow`, where they may go (URL prefixes, host names, `*.domain`,
 * addresses and CIDR blocks: domain/a2a/webhookAllow.ts; empty, the default, refuses push); one
 * attempt's deadline for the whole exchange (connect, request, the answer's status); how many
 * attempts run at once in all, to one receiving host, and for one client's configs.
 */
export const A2aSection = Schema.Struct({
  enabled: withDefault(Schema.Boolean, () => true),
  webhook_allow: withDefault(Schema.Array(WebhookAllowEntry), () => []),
  push_timeout_ms: withDefault(Schema.Int.pipe(Schema.between(100, 600_000)), () => A2A_PUSH_POST_TIMEOUT_MS),
  push_concurrency: withDefault(Schema.Int.pipe(Schema.between(1, 1000)), () => 32),
  push_per_host: withDefault(Schema.Int.pipe(Schema.between(1, 1000)), () => 4),
  push_per_client: withDefault(Schema.Int.pipe(Schema.between(1, 1000)), () => 4)
})

/**
 * OAuth for connectors that take no key (docs/REFERENCE.md, "OAuth"). Off unless `issuer` is set:
 * the public base URL of this bridge (`https://host[:port]`, no path; plain `http` only for a
 * loopback host, for local tests). `redirect_hosts`: hosts a dynamically registered client may name
 * in its redirect URIs, beside loopback and the ChatGPT and Claude callback hosts
 * (`domain/oauth.ts`). `client_metadata_allow`: where a Client ID Metadata Document may be fetched
 * from (the webhook allow list's syntax); empty, any public HTTPS host.
 */
const IssuerUrl = Schema.String.pipe(Schema.filter((s) => issuerProblem(s) ?? true))
const RedirectHost = Schema.String.pipe(Schema.pattern(/^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
  message: () => "a host name (lowercase), or *.domain for every name under it"
}))
export const OAuthSection = Schema.Struct({
  issuer: IssuerUrl,
  access_token_ttl_s: withDefault(Schema.Int.pipe(Schema.between(1, 86_400)), () => 3600),
  refresh_token_ttl_days: withDefault(Schema.Int.pipe(Schema.between(1, 365)), () => 30),
  consent_timeout_s: withDefault(Schema.Int.pipe(Schema.between(5, 86_400)), () => 600),
  redirect_hosts: withDefault(Schema.Array(RedirectHost), () => []),
  client_metadata_allow: withDefault(Schema.Array(WebhookAllowEntry), () => []),
  /** false: no Client ID Metadata Documents (the bridge fetches nothing; clients register instead). */
  client_metadata_documents: withDefault(Schema.Boolean, () => true)
})
export type OAuthSection = typeof OAuthSection.Type

/**
 * Per-client quotas (`domain/limits.ts`, `CLIENT_QUOTA_DEFAULTS`): what one client may accumulate
 * (memory notes and their bytes, A2A push configs) or hold open (event streams, 2025 MCP sessions).
 */
const Quota = (max: number) => Schema.Int.pipe(Schema.between(1, max))
export const LimitsSection = Schema.Struct({
  memory_notes_per_client: withDefault(Quota(10_000_000), () => CLIENT_QUOTA_DEFAULTS.memory_notes_per_client),
  memory_bytes_per_client: withDefault(Quota(Number.MAX_SAFE_INTEGER), () => CLIENT_QUOTA_DEFAULTS.memory_bytes_per_client),
  open_streams_per_client: withDefault(Quota(100_000), () => CLIENT_QUOTA_DEFAULTS.open_streams_per_client),
  push_configs_per_client: withDefault(Quota(10_000_000), () => CLIENT_QUOTA_DEFAULTS.push_configs_per_client),
  mcp_sessions_per_client: withDefault(Quota(100_000), () => CLIENT_QUOTA_DEFAULTS.mcp_sessions_per_client)
})

export const ToolFilter = Schema.Struct({
  include: withDefault(Schema.Array(NonEmpty), () => []),
  exclude: withDefault(Schema.Array(NonEmpty), () => [])
})

export const ClientSettings = Schema.Struct({
  catalog: withDefault(Schema.Literal("full", "compact"), () => "full" as const),
  tools: withDefault(ToolFilter, () => ({ include: [], exclude: [] }))
})

export const ConfigFile = Schema.Struct({
  bridge: withDefault(BridgeSection, () => Schema.decodeSync(BridgeSection)({})),
  hermes: withDefault(HermesSection, () => Schema.decodeSync(HermesSection)({})),
  memory: withDefault(Schema.Struct({ enabled: withDefault(Schema.Boolean, () => true) }), () => ({ enabled: true })),
  /** The A2A face and its push notifications (`A2aSection`). */
  a2a: withDefault(A2aSection, () => Schema.decodeSync(A2aSection)({})),
  storage: withDefault(StorageSection, () => Schema.decodeSync(StorageSection)({})),
  cluster: withDefault(ClusterSection, () => Schema.decodeSync(ClusterSection)({})),
  limits: withDefault(LimitsSection, () => Schema.decodeSync(LimitsSection)({})),
  skills: withDefault(Schema.Struct({ dropin_dir: Schema.optional(NonEmpty) }), () => ({})),
  /** Closed inbox rows (decided, expired, withdrawn) are deleted this many days after closing; pending ones never. */
  inbox: withDefault(
    Schema.Struct({ history_retention_days: withDefault(Schema.Number.pipe(Schema.finite(), Schema.greaterThan(0)), () => 30) }),
    () => ({ history_retention_days: 30 })
  ),
  clients: withDefault(Schema.Record({ key: ClientName, value: ClientSettings }), () => ({})),
  /** OAuth for key-less connectors; absent (the default), the bridge takes keys only. */
  oauth: Schema.optional(OAuthSection)
})
export type ConfigFile = typeof ConfigFile.Type
export type StorageSection = typeof StorageSection.Type
export type ClusterSection = typeof ClusterSection.Type
export type LimitsSection = typeof LimitsSection.Type
export type HermesEndpoint = typeof HermesEndpoint.Type
export type ClientSettings = typeof ClientSettings.Type
