/**
 * Secrets right after an escape sequence. Tool results and Hermes error bodies often carry JSON as a
 * string (`"stdout": "$ env\nHF_TOKEN=…"`), and query strings carry URL-encoded text (`q=a%20hf_…`):
 * there the letter or digit before the secret (`n` of `\n`, `f` of `\u002f`, `0` of `%20`) is part of
 * an escape, not of a word, so it must not hide the secret's start.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { leakedIn, makeSecrets, FORMATS } from "./corpus.ts"

const r = makeRedaction([])
const M = MASK
const secrets = makeSecrets(FORMATS.length * 2, 7)

/** The escapes a secret may follow, each as written in text. */
const ESCAPES = ["\\n", "\\r\\n", "\\t", "\\\\n", "\\u002f", "\\u0022", "\\u003d", "%20", "%0A", "%3D", "%2F", "%22"]

describe("a secret right after an escape sequence", () => {
  it("is masked for every shape and named secret of the corpus after every escape", () => {
    const leaks: Array<string> = []
    for (const s of secrets) {
      if (s.placement !== "shape" && s.placement !== "named") continue
      const body = s.placement === "shape" ? s.value : `${s.name}=${s.value}`
      for (const esc of ESCAPES) {
        // Named values stand after escapes of separators only: `%3D`/`%22` would glue onto the name.
        if (s.placement === "named" && esc.startsWith("%")) continue
        const text = `{"stdout":"$ env${esc}${body}${esc}done"}`
        const out = r.text(text, false)
        if (leakedIn(out, s.core) !== undefined) leaks.push(`${s.format} after ${esc}: ${out}`)
      }
    }
    expect(leaks).toEqual([])
  })

  it("masks names and credentials after a JSON newline", () => cases([
    ["line\\nHF_TOKEN=abcdef123", `line\\nHF_TOKEN=${M}`],
    ["line\\nMY_API_KEY=abcdef123", `line\\nMY_API_KEY=${M}`],
    ["a\\u0026TOKEN=abcdef123", `a\\u0026TOKEN=${M}`],
    ["line\\nBearer abcdef0123456789xyz", `line\\nBearer ${M}`],
    ["$ curl\\n-u admin:hunter2x http://x", `$ curl\\n-u admin:${M} http://x`]
  ]))

  it("keeps ordinary words after escapes", () => cases([
    ["a\\nmax_tokens=4096\\ntoken_count: 12\\npassed: 3", "a\\nmax_tokens=4096\\ntoken_count: 12\\npassed: 3"],
    ["a\\nHF_TOKEN_ENV=HF_TOKEN\\npassword_file=/etc/pw", "a\\nHF_TOKEN_ENV=HF_TOKEN\\npassword_file=/etc/pw"],
    ["see%20hf_hub_download and \\nsk-learn", "see%20hf_hub_download and \\nsk-learn"]
  ]))

  it("is idempotent", () => {
    for (const s of secrets.filter((x) => x.placement === "shape")) {
      const once = r.text(`x\\n${s.value}\\u0022${s.value}%20${s.value}`, false)
      expect(r.text(once, false)).toBe(once)
    }
  })
})

const cases = (rows: ReadonlyArray<readonly [string, string]>) => {
  for (const [input, expected] of rows) expect(r.text(input, false), input).toBe(expected)
}
