/** Each rule family with inputs that are just masked and just left alone. */
import { describe, expect, it } from "vitest"
import { isSecretName } from "../../src/domain/redact/names.ts"
import { KNOWN_PREFIXES } from "../../src/domain/redact/prefixes.ts"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"

const r = makeRedaction([])
const M = MASK
const cases = (rows: ReadonlyArray<readonly [string, string]>) => {
  for (const [input, expected] of rows) expect(r.text(input, false), input).toBe(expected)
}

describe("secret-shaped names", () => {
  it.each([
    "HF_TOKEN", "GITHUB_TOKEN", "access_token", "refreshToken", "authtoken", "client_secret", "clientSecret", "SECRETS",
    "DB_PASSWORD", "dbPassword", "passwd", "DB_PASS", "PASS", "OPENAI_API_KEY", "apiKey", "x-api-key", "APIKEY",
    "aws_access_key_id", "AWS_SECRET_ACCESS_KEY", "private_key", "privateKey", "OPENAI_KEY", "signing_key", "KEY",
    "config.hfToken", "token_id"
  ])("%s is secret-shaped", (name) => expect(isSecretName(name)).toBe(true))

  it.each([
    "tokens", "max_tokens", "input_tokens", "token_count", "tokenizer", "passed", "bypass", "compass", "key", "Key",
    "keys", "primary_key", "public_key", "session_key", "idempotency_key", "sort_key", "HF_TOKEN_ENV", "API_KEY_FILE",
    "PASSWORD_PATH", "secret_dir", "password.length", "token_url", "secretary", "monkey", "passkey", "keyboard"
  ])("%s is not", (name) => expect(isSecretName(name)).toBe(false))
})

describe("NAME=value and NAME: value", () => {
  it("masks the value, keeps the name and separator", () => cases([
    ["HF_TOKEN=abc", `HF_TOKEN=${M}`],
    ["export HF_TOKEN=abc; echo ok", `export HF_TOKEN=${M}; echo ok`],
    ["api_key: abc123", `api_key: ${M}`],
    ['{"api_key": "abc", "n": 1}', `{"api_key": "${M}", "n": 1}`],
    ["{\\\"api_key\\\":\\\"abc\\\"}", `{\\"api_key\\":\\"${M}\\"}`],
    ["env['HF_TOKEN'] = 'abc'", `env['HF_TOKEN'] = '${M}'`],
    ["password := \"hunter2\"", `password := "${M}"`],
    ["GET /x?access_token=abc&page=2", `GET /x?access_token=${M}&page=2`],
    ['PASSWORD="correct horse battery"', `PASSWORD="${M}"`],
    ["HF_TOKEN=...", `HF_TOKEN=${M}`],
    ["HF_TOKEN=$Api_Key", `HF_TOKEN=${M}`],
    ["HF_TOKEN=${HF_TOKEN}x", `HF_TOKEN=${M}`],
    ["password: 12345", `password: ${M}`],
    ["token = f\"abc{x}\"", `token = f"${M}"`]
  ]))

  it("leaves code, references, keywords and non-secret names alone", () => cases([
    ["max_tokens=100", "max_tokens=100"],
    ["token_count: 5", "token_count: 5"],
    ["key: app", "key: app"],
    ["readonly token: string", "readonly token: string"],
    ["const token = getToken()", "const token = getToken()"],
    ["token = os.environ[\"HF_TOKEN\"]", "token = os.environ[\"HF_TOKEN\"]"],
    ["apiKey: Redacted.Redacted", "apiKey: Redacted.Redacted"],
    ["secrets: ReadonlyArray<string>", "secrets: ReadonlyArray<string>"],
    ["HF_TOKEN=$HF_TOKEN", "HF_TOKEN=$HF_TOKEN"],
    ["HF_TOKEN: ${{ secrets.HF_TOKEN }}", "HF_TOKEN: ${{ secrets.HF_TOKEN }}"],
    ["if (token === expected)", "if (token === expected)"],
    ["password: null", "password: null"],
    ["HF_TOKEN=", "HF_TOKEN="],
    [`HF_TOKEN=${M}`, `HF_TOKEN=${M}`],
    ["PASSWORD_FILE=/run/secrets/db", "PASSWORD_FILE=/run/secrets/db"],
    ["const base64Inner = (secret: Buffer, offset: number)", "const base64Inner = (secret: Buffer, offset: number)"],
    ["  readonly secrets: ExactSecrets", "  readonly secrets: ExactSecrets"],
    ["({ token: token ?? \"\", session })", "({ token: token ?? \"\", session })"],
    ["{ progressToken: token, progress: last }", "{ progressToken: token, progress: last }"],
    ["content_key: DELETE_CONTENT_KEY,", "content_key: DELETE_CONTENT_KEY,"],
    ["export const ERROR_META_KEY = \"agent-bridge/error\"", "export const ERROR_META_KEY = \"agent-bridge/error\""],
    ["export const MAX_PREFIXED_KEY = 256", "export const MAX_PREFIXED_KEY = 256"],
    ["case \"secrets\": d = { ...d, secrets: true }", "case \"secrets\": d = { ...d, secrets: true }"],
    ["log(`session token: ${session.token}`)", "log(`session token: ${session.token}`)"]
  ]))

  it("masks what only looks like code where values are written plainly", () => cases([
    ["HF_TOKEN=Your_Key", `HF_TOKEN=${M}`],
    ["HF_TOKEN=abc&&./run", `HF_TOKEN=${M}&&./run`],
    ["readonly API_KEY=abc", `readonly API_KEY=${M}`],
    ["export const API_KEY = \"9f8e7d6c5b4a\"", `export const API_KEY = "${M}"`],
    ["export const STRIPE_KEY = \"x9f8e7d6c5b4a\"", `export const STRIPE_KEY = "${M}"`],
    ["signing_key: correcthorse", `signing_key: ${M}`]
  ]))
})

describe("secret CLI flags", () => {
  it("masks the value after the flag", () => cases([
    ["tool --api-key s3cr3t --verbose", `tool --api-key ${M} --verbose`],
    ["tool --token=abc", `tool --token=${M}`],
    ["mysql --password 'p w'", `mysql --password '${M}'`],
    ["curl -u admin:hunter2 https://x", `curl -u admin:${M} https://x`],
    ["curl --user=admin:hunter2 https://x", `curl --user=admin:${M} https://x`]
  ]))

  it("leaves prose and flags without values alone", () => cases([
    ["pass --token to the tool", "pass --token to the tool"],
    ["tool --token --verbose", "tool --token --verbose"],
    ["git push -u origin main", "git push -u origin main"],
    ["tool --token-file ./t", "tool --token-file ./t"]
  ]))
})

describe("authorization", () => {
  it("masks credentials", () => cases([
    ["Authorization: Bearer abc123", `Authorization: Bearer ${M}`],
    ["authorization: token ghx_0123", `authorization: token ${M}`],
    ['curl -H "Authorization: Basic dXNlcjpwYXNz" x', `curl -H "Authorization: Basic ${M}" x`],
    ['{"Authorization": "Bearer abc.d3f.ghi"}', `{"Authorization": "Bearer ${M}"}`],
    ["Authorization: 0123abcd", `Authorization: ${M}`],
    ["sent Bearer aBcDeFgH to the API", `sent Bearer ${M} to the API`],
    ["Basic dXNlcjpwYXNzd29yZA==", `Basic ${M}`]
  ]))

  it("leaves prose alone", () => cases([
    ["Use a Bearer token.", "Use a Bearer token."],
    ["Basic usage", "Basic usage"],
    ["Basic abc123", "Basic abc123"],
    ["the Authorization: header", "the Authorization: header"],
    ["Authorization: Bearer", "Authorization: Bearer"],
    ["headers: { Authorization: `Bearer ${key}` }", "headers: { Authorization: `Bearer ${key}` }"],
    ["Authorization: Bearer $HF_TOKEN", "Authorization: Bearer $HF_TOKEN"],
    ["Authorization: Bearer <token>", "Authorization: Bearer <token>"],
    ["Authorization: Bearer your_token_here", "Authorization: Bearer your_token_here"],
    ["Authorization: Bearer myToken", "Authorization: Bearer myToken"],
    ["You can test for basic JavaScript types", "You can test for basic JavaScript types"],
    ["log(`Bearer ${session.token}`)", "log(`Bearer ${session.token}`)"]
  ]))
})

describe("URL passwords, JWTs, PEM blocks", () => {
  it("masks them", () => cases([
    ["postgres://user:pa55@db/x", `postgres://user:${M}@db/x`],
    ["redis://:pa55@cache:6379", `redis://:${M}@cache:6379`],
    ["mongodb://u:p@ss@host/db", `mongodb://u:${M}@host/db`],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", M],
    ["-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----", `-----BEGIN PRIVATE KEY-----\n${M}\n-----END PRIVATE KEY-----`],
    ["-----BEGIN OPENSSH PRIVATE KEY-----\\nb3Blbg==\\n-----END OPENSSH PRIVATE KEY-----", `-----BEGIN OPENSSH PRIVATE KEY-----\\n${M}\\n-----END OPENSSH PRIVATE KEY-----`],
    ["cut: -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE", `cut: -----BEGIN EC PRIVATE KEY-----\n${M}`]
  ]))

  it("leaves look-alikes alone", () => cases([
    ["https://example.com:8080/x", "https://example.com:8080/x"],
    ["https://user@example.com/x", "https://user@example.com/x"],
    ["git@github.com:org/repo.git", "git@github.com:org/repo.git"],
    ["eyJhbGciOiJIUzI1NiJ9 alone", "eyJhbGciOiJIUzI1NiJ9 alone"],
    ["-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"],
    ["-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----", "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----"]
  ]))
})

describe("known prefixes", () => {
  it("masks a whole token at its realistic length, not a short or glued one", () => cases([
    ["ghp_0123456789abcdefghij", M],
    ["ghp_0123456789abcdefghi", "ghp_0123456789abcdefghi"],
    ["xghp_0123456789abcdefghij", "xghp_0123456789abcdefghij"],
    ["**ghp_0123456789abcdefghij**", `**${M}**`],
    ["AKIA0123456789ABCDEF", M],
    ["AKIA0123456789ABCDE", "AKIA0123456789ABCDE"],
    ["hf_hub_download", "hf_hub_download"],
    ["pip install sk-learn-extra-tools", "pip install sk-learn-extra-tools"]
  ]))
})

describe("JSON trees", () => {
  it("masks strings, and whole strings under secret-shaped keys", () => {
    const tree = { a: "HF_TOKEN=abc", api_key: "plain", n: 1, t: true, z: null, list: [{ Authorization: "Bearer x" }], secrets: { x: ["y"] } }
    expect(r.json(tree)).toEqual({ a: `HF_TOKEN=${M}`, api_key: M, n: 1, t: true, z: null, list: [{ Authorization: M }], secrets: { x: [M] } })
  })

  it("keeps an own __proto__ key as a key", () => {
    const tree = JSON.parse('{"__proto__": {"token": "abc"}}') as unknown
    expect(JSON.stringify(r.json(tree))).toBe(`{"__proto__":{"token":"${M}"}}`)
  })
})

describe("segments", () => {
  it("masks each piece of a split secret in its own part and keeps the number of parts", () => {
    expect(r.segments(["HF_TO", "KEN=ab", "c def"], {})).toEqual(["HF_TO", `KEN=${M}`, `${M} def`])
    expect(r.segments(["x ghp_0123456789", "abcdefghij", "", " y"], {})).toEqual([`x ${M}`, M, "", " y"])
  })

  it("uses the context on each side but returns only the parts", () => {
    expect(r.segments(["abc def"], { before: "export HF_TOKEN=x" })).toEqual([`${M} def`])
    expect(r.segments(["export HF_TO"], { after: "KEN=abc" })).toEqual(["export HF_TO"])
    expect(r.segments(["key is ghp_0123456789"], { after: "abcdefghij and more" })).toEqual([`key is ${M}`])
  })

  it("takes at most 8192 characters of context from each side", () => {
    const far = "export HF_TOKEN=x" + " ".repeat(8192)
    expect(r.segments(["abc"], { before: "HF_TOKEN=x" })).toEqual([`${M}`])
    expect(r.segments(["abc"], { before: far.slice(0, 17) + "y".repeat(8192) })).toEqual(["abc"])
  })
})

describe("trigger coverage", () => {
  it("finds every known prefix", () => {
    for (const k of KNOWN_PREFIXES) {
      const body = Array.from({ length: k.min }, (_, i) => ["A", "1", "b"].filter((c) => k.body.test(c))[i % 2] ?? "A").join("")
      expect(r.text(`x ${k.prefix}${body} y`, false), k.prefix).toBe(`x ${M} y`)
    }
  })
})
