/**
 * Properties: masking is idempotent, text with no secret shape comes back unchanged, and a JSON tree
 * keeps its shape (keys, types, array lengths).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { CONTEXTS, embed, FORMATS, makeSecrets } from "./corpus.ts"

const r = makeRedaction(["registered-secret-0042"])
const secrets = makeSecrets(FORMATS.length * 2, 7)
const embedded = secrets.flatMap((s) => CONTEXTS.flatMap((c) => embed(s, c) ?? []))

/** Pieces that look like secrets or come close; cut and glued at random they make hard inputs. */
const SHAPES = [
  ...secrets.map((s) => s.value), ...embedded.slice(0, 80), "HF_TOKEN=", "api_key: ", "--token ", "Bearer ", "Basic ",
  "Authorization: ", "https://u:", "@host/", "-----BEGIN PRIVATE KEY-----\n", "\n-----END PRIVATE KEY-----", "eyJ", ".",
  "\"", "'", "\\\"", "=", ":", " ", "\n", "$", "${", "}", "<", ">", MASK, "***", "registered-secret-0042", "ghp_", "sk-",
  "password", "token", "secret", "KEY", "-u ", "user:", "`", "&", ","
]
const shaped = fc.array(fc.oneof(fc.constantFrom(...SHAPES), fc.string({ maxLength: 12 })), { maxLength: 24 }).map((xs) => xs.join(""))

/** Text with no secret shape: prose, code, ids and near misses. */
const PLAIN = [
  "The agent read the build log and wrote a summary.", "max_tokens=100", "token_count: 5", "passed: 3", "key: app",
  "Bearer token", "Basic usage", "https://example.com:8080/path?q=1", "sk-learn", "hf_hub_download", "AKIAVERSION",
  "the Authorization header", "keys", "monkey", "const token = getToken()", "readonly apiKey: Redacted.Redacted",
  "secrets: ReadonlyArray<string>", "550e8400-e29b-41d4-a716-446655440000", "9ad83a9f62a9b288614ba36f49999ecc79f61ecf",
  "HF_TOKEN=$HF_TOKEN", "api_key: ${{ secrets.API_KEY }}", "token = os.environ[\"HF_TOKEN\"]", "PASSWORD_FILE=/run/pw",
  "session_key: review-42", "npm test", "git push -u origin main", "| col | col |", "eyJ", "-----BEGIN CERTIFICATE-----"
]
const plain = fc
  .array(fc.oneof(fc.constantFrom(...PLAIN), fc.stringOf(fc.constantFrom(..."0123456789 ,.;()[]{}#qwzvjmdfl\n"), { maxLength: 20 })), { maxLength: 16 })
  .map((xs) => xs.join(" "))

describe("properties", () => {
  it("is idempotent", () => {
    fc.assert(fc.property(shaped, fc.boolean(), (x, liveEdge) => {
      const once = r.text(x, liveEdge)
      expect(r.text(once, liveEdge)).toBe(once)
    }), { numRuns: 3000 })
  })

  it("is idempotent on every corpus context", () => {
    for (const text of embedded) {
      const once = r.text(text, false)
      expect(r.text(once, false)).toBe(once)
    }
  })

  it("returns text with no secret shape unchanged", () => {
    fc.assert(fc.property(plain, (x) => {
      expect(r.text(x, false)).toBe(x)
      expect(r.wouldChange(x)).toBe(false)
    }), { numRuns: 2000 })
  })

  it("keeps the shape of a JSON tree", () => {
    const shapeOf = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(shapeOf)
        : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shapeOf(x)]))
        : v === null ? "null" : typeof v
    const withSecrets = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.constantFrom(...SHAPES), fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      node: fc.oneof({ depthSize: "small" }, tie("leaf"), fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("api_key", "token", "Authorization", "__proto__", "key")), tie("node"), { maxKeys: 4 }))
    })).node
    fc.assert(fc.property(withSecrets, (tree) => {
      expect(shapeOf(r.json(tree))).toEqual(shapeOf(tree))
    }), { numRuns: 1000 })
  })
})
