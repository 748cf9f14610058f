/**
 * A generated corpus of fake secrets (deterministic: a seeded PRNG, no real value anywhere) in many
 * formats, and the contexts they are embedded in. Used by the leak, split, live-edge and property
 * tests, and by scripts/bench-redactor.ts.
 *
 * Each secret has a `core`: the part that must never be visible (a token's body after its public
 * prefix, a password, a PEM body). A leak is any 8 characters of the core (or all of a shorter core)
 * still visible after redaction.
 */

export const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export type Rng = () => number

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const LOWER = "abcdefghijklmnopqrstuvwxyz"
const DIGITS = "0123456789"
const ALNUM = UPPER + LOWER + DIGITS
const HEX = "0123456789abcdef"
const B64 = ALNUM + "+/"
const B64URL = ALNUM + "-_"

export const pick = <A>(rng: Rng, xs: ReadonlyArray<A>): A => xs[Math.floor(rng() * xs.length)]!
export const chars = (rng: Rng, alphabet: string, n: number): string => {
  let s = ""
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng() * alphabet.length)]
  return s
}
const b64url = (s: string): string => Buffer.from(s).toString("base64url")

/** Where a secret can be put: by its shape alone, or as the value of a secret-shaped name. */
export type Placement = "shape" | "named" | "pem" | "url"

export interface SecretFormat {
  readonly name: string
  readonly placement: Placement
  /** The secret text and its core. */
  readonly make: (rng: Rng) => { readonly value: string; readonly core: string }
  /** For a known-prefix token: the prefix (the live-edge test cuts the token after it). */
  readonly prefix?: string
}

const prefixed = (name: string, prefix: string, alphabet: string, n: number): SecretFormat => ({
  name, placement: "shape", prefix,
  make: (rng) => {
    const body = chars(rng, alphabet, n)
    return { value: prefix + body, core: body }
  }
})

const named = (name: string, make: (rng: Rng) => string): SecretFormat => ({
  name, placement: "named",
  make: (rng) => {
    const value = make(rng)
    return { value, core: value }
  }
})

const pem = (name: string, label: string, bodyChars: number): SecretFormat => ({
  name, placement: "pem",
  make: (rng) => {
    const raw = chars(rng, B64, bodyChars)
    const lines = raw.match(/.{1,64}/g)!.join("\n")
    return { value: `-----BEGIN ${label}-----\n${lines}\n-----END ${label}-----`, core: raw }
  }
})

const jwt: SecretFormat = {
  name: "jwt", placement: "shape", prefix: "eyJ",
  make: (rng) => {
    const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))
    const payload = b64url(JSON.stringify({ sub: chars(rng, DIGITS, 10), name: chars(rng, LOWER, 8), iat: 1700000000 }))
    const signature = chars(rng, B64URL, 43)
    return { value: `${header}.${payload}.${signature}`, core: `${payload}.${signature}` }
  }
}

const urlPassword: SecretFormat = {
  name: "url-password", placement: "url",
  make: (rng) => {
    const password = chars(rng, ALNUM, 6) + pick(rng, ["!", "~", "-", "_", "."]) + chars(rng, ALNUM, 9)
    return { value: password, core: password }
  }
}

/** 38 formats: known prefixes, JWT, PEM blocks, URL passwords and values of secret-shaped names. */
export const FORMATS: ReadonlyArray<SecretFormat> = [
  prefixed("hal0bk", "hal0bk_", ALNUM, 43),
  prefixed("huggingface", "hf_", UPPER + LOWER, 34),
  prefixed("huggingface-org", "api_org_", UPPER + LOWER, 34),
  prefixed("openai-legacy", "sk-", ALNUM, 48),
  prefixed("openai-project", "sk-proj-", B64URL, 156),
  prefixed("anthropic", "sk-ant-api03-", B64URL, 93),
  prefixed("github-classic", "ghp_", ALNUM, 36),
  prefixed("github-oauth", "gho_", ALNUM, 36),
  prefixed("github-user", "ghu_", ALNUM, 36),
  prefixed("github-server", "ghs_", ALNUM, 36),
  prefixed("github-refresh", "ghr_", ALNUM, 36),
  prefixed("github-fine-grained", "github_pat_", ALNUM + "_", 82),
  prefixed("gitlab", "glpat-", ALNUM + "-_", 20),
  prefixed("slack-bot", "xoxb-", DIGITS + "-" + ALNUM, 50),
  prefixed("slack-user", "xoxp-", DIGITS + "-" + ALNUM, 70),
  prefixed("slack-app-level", "xoxa-", ALNUM, 40),
  prefixed("slack-refresh", "xoxr-", ALNUM, 40),
  prefixed("slack-session", "xoxs-", ALNUM, 40),
  prefixed("slack-app", "xapp-", DIGITS + "-" + UPPER + DIGITS, 60),
  prefixed("aws-access-key", "AKIA", UPPER + DIGITS, 16),
  prefixed("aws-session-key", "ASIA", UPPER + DIGITS, 16),
  prefixed("google-api", "AIza", B64URL, 35),
  prefixed("stripe-live", "sk_live_", ALNUM, 24),
  prefixed("stripe-restricted", "rk_live_", ALNUM, 24),
  prefixed("stripe-test", "sk_test_", ALNUM, 24),
  jwt,
  pem("pem-rsa", "RSA PRIVATE KEY", 400),
  pem("pem-pkcs8", "PRIVATE KEY", 300),
  pem("pem-ec", "EC PRIVATE KEY", 160),
  pem("pem-openssh", "OPENSSH PRIVATE KEY", 350),
  urlPassword,
  named("password", (rng) => chars(rng, ALNUM, 10) + pick(rng, ["!", "#", "%", "^", "@"]) + chars(rng, ALNUM, 5)),
  named("hex-api-key", (rng) => chars(rng, HEX, 32)),
  named("base64-secret", (rng) => chars(rng, B64, 40)),
  named("aws-secret-access-key", (rng) => chars(rng, B64, 40)),
  named("uuid-token", (rng) => [8, 4, 4, 4, 12].map((n) => chars(rng, HEX, n)).join("-")),
  named("short-password", (rng) => chars(rng, LOWER, 5) + chars(rng, DIGITS, 3)),
  named("discord-like", (rng) => `${chars(rng, B64URL, 24)}.${chars(rng, B64URL, 6)}.${chars(rng, B64URL, 27)}`)
]

/** Secret-shaped names a named value is given (several spellings). */
const SECRET_NAMES = [
  "DB_PASSWORD", "api_key", "OPENAI_API_KEY", "clientSecret", "AWS_SECRET_ACCESS_KEY", "access_token", "HF_TOKEN",
  "SMTP_PASS", "x-api-key", "private_key", "refreshToken", "GITHUB_TOKEN", "STRIPE_SECRET_KEY", "signing_key", "KEY"
]

export interface Secret {
  readonly format: string
  readonly placement: Placement
  readonly value: string
  readonly core: string
  readonly prefix: string | undefined
  /** The secret-shaped name it is given where a name is needed. */
  readonly name: string
}

/** `count` secrets, cycling over every format. */
export const makeSecrets = (count: number, seed = 20260101): ReadonlyArray<Secret> => {
  const rng = mulberry32(seed)
  const out: Array<Secret> = []
  for (let i = 0; i < count; i++) {
    const f = FORMATS[i % FORMATS.length]!
    const { value, core } = f.make(rng)
    out.push({ format: f.name, placement: f.placement, value, core, prefix: f.prefix, name: pick(rng, SECRET_NAMES) })
  }
  return out
}

export type ContextName = "json" | "yaml" | "shell" | "url" | "log" | "markdown"
export const CONTEXTS: ReadonlyArray<ContextName> = ["json", "yaml", "shell", "url", "log", "markdown"]

const indent = (s: string, by: string): string => s.split("\n").join("\n" + by)

/**
 * `secret` embedded in `context`, or undefined where that context cannot hold it (a PEM block in a
 * URL). A token known by its shape sits under a name that is not secret-shaped, so the shape
 * alone must find it; a named value sits under a secret-shaped name.
 */
export const embed = (s: Secret, context: ContextName): string | undefined => {
  const v = s.value
  if (s.placement === "url") {
    const url = `postgres://app_user:${v}@db.internal.example:5432/orders`
    switch (context) {
      case "json": return `{"service": "orders", "database": {"url": ${JSON.stringify(url)}, "pool": 5}}`
      case "yaml": return `orders:\n  database_url: ${url}\n  pool: 5\n`
      case "shell": return `export DATABASE_URL='${url}'\npsql "$DATABASE_URL" -c 'select 1'`
      case "url": return `git clone https://deploy:${v}@git.example.com/team/repo.git`
      case "log": return `2026-01-02T03:04:05Z INFO db: connecting to ${url} (attempt 2)`
      case "markdown": return "Connect with:\n\n```sh\npsql " + url + "\n```\n"
    }
  }
  if (s.placement === "pem") {
    switch (context) {
      case "json": return `{"type": "service_account", "private_key": ${JSON.stringify(v + "\n")}, "client_id": "1234"}`
      case "yaml": return `tls:\n  cert_file: /etc/tls/cert.pem\n  private_key: |\n    ${indent(v, "    ")}\n  verify: true\n`
      case "shell": return `cat > ~/.ssh/id_deploy <<'EOF'\n${v}\nEOF\nchmod 600 ~/.ssh/id_deploy`
      case "url": return undefined
      case "log": return `2026-01-02T03:04:05Z DEBUG tls: loaded key material: ${v.replace(/\n/g, "\\n")}`
      case "markdown": return "The deploy key:\n\n```\n" + v + "\n```\n"
    }
  }
  if (s.placement === "shape") {
    switch (context) {
      case "json": return `{"tool": "terminal", "result": {"stdout": "found credential ${v} in config", "exit_code": 0}}`
      case "yaml": return `steps:\n  - run: deploy\n    with:\n      credential: ${v}\n      region: eu-west-1\n`
      case "shell": return `export CREDENTIAL=${v}\n./deploy.sh --region eu-west-1`
      case "url": return `curl -s "https://api.example.com/v1/models?credential=${encodeURIComponent(v)}&limit=10"`
      case "log": return `2026-01-02T03:04:05Z WARN auth: rejected ${v} for client ci-runner`
      case "markdown": return "Run this:\n\n```bash\ncurl -H 'Authorization: Bearer " + v + "' https://api.example.com/v1/me\n```\n"
    }
  }
  switch (context) {
    case "json": return `{"env": {${JSON.stringify(s.name)}: ${JSON.stringify(v)}, "REGION": "eu-west-1"}}`
    case "yaml": return `config:\n  ${s.name}: "${v}"\n  region: eu-west-1\n`
    case "shell": return `export ${s.name.replace(/-/g, "_")}='${v}'\nnpm run deploy`
    case "url": return `GET https://api.example.com/v1/items?${s.name}=${encodeURIComponent(v)}&page=2 HTTP/1.1`
    case "log": return `2026-01-02T03:04:05Z INFO boot: settings loaded ${s.name}=${v} region=eu-west-1`
    case "markdown": return "Set it first:\n\n```env\n" + s.name + "=" + v + "\n```\n"
  }
}

/**
 * A leak finder for one core: any `window` characters of the core (or the whole core when it is
 * shorter), as written or URL-encoded or JSON-escaped, visible in a text.
 */
export const leakFinder = (core: string, window = 8): ((out: string) => string | undefined) => {
  const forms = [...new Set([core, encodeURIComponent(core), JSON.stringify(core).slice(1, -1)])]
  const whole = forms.filter((f) => f.length <= window)
  const pieces = new Set<string>()
  for (const f of forms) for (let i = 0; f.length > window && i + window <= f.length; i++) pieces.add(f.slice(i, i + window))
  return (out) => {
    for (const f of whole) if (out.includes(f)) return f
    if (pieces.size === 0) return undefined
    for (let i = 0; i + window <= out.length; i++) {
      const w = out.slice(i, i + window)
      if (pieces.has(w)) return w
    }
    return undefined
  }
}

/** The first leak of `core` in `out` (see `leakFinder`). */
export const leakedIn = (out: string, core: string, window = 8): string | undefined => leakFinder(core, window)(out)
