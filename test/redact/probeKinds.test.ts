/**
 * The kinds of secret a probe of the daemon found passing unmasked (issue 23, item 2), each written
 * from the provider's documented format, not from our rules: keys of AI-model and ML-hosting
 * providers with distinctive prefixes, written bare; a format rule's value after the service's name
 * as a label; a Twilio auth token next to its account SID; the short names `pwd`, `auth`,
 * `credentials`; a token with one letter written as an escape (`\u0070`, `\x70`, `%70`); and a word
 * after `token:` standing before the token. Each is also streamed in 3-character deltas.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { mulberry32 } from "./corpus.ts"

const r = makeRedaction([])
const rng = mulberry32(2323)
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const draw = (alphabet: string, n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rng() * alphabet.length)]).join("")
const alnum = (n: number) => draw(ALNUM, n)
const hex = (n: number) => draw("0123456789abcdef", n)
const upper = (n: number) => draw("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", n)
const urlSafe = (n: number) => draw(`${ALNUM}_-`, n)

/** Shown in full: `text` with no mask over `secret`, whole or in 3-character deltas. */
const leaks = (text: string, secret: string): Array<string> => {
  const problems: Array<string> = []
  const whole = r.text(text, false)
  if (whole.includes(secret) || !whole.includes(MASK)) problems.push(`whole: ${whole}`)
  const parts = text.match(/[\s\S]{1,3}/g)!
  const joined = r.segments(parts, {}).join("")
  if (joined.includes(secret) || !joined.includes(MASK)) problems.push(`deltas: ${joined}`)
  return problems
}

const check = (cases: ReadonlyArray<readonly [string, string]>) => {
  const problems = cases.flatMap(([text, secret]) => leaks(text, secret).map((p) => `${JSON.stringify(text)} → ${p}`))
  expect(problems).toEqual([])
}

/** Keys of AI-model and ML-hosting providers, bare in prose (no name before them). */
const AI_KEYS: ReadonlyArray<readonly [string, string]> = [
  ["anthropic", `sk-ant-api03-${urlSafe(93)}AA`],
  ["anthropic admin", `sk-ant-admin01-${urlSafe(93)}AA`],
  ["openai project", `sk-proj-${urlSafe(74)}T3BlbkFJ${urlSafe(74)}`],
  ["openai service account", `sk-svcacct-${urlSafe(58)}T3BlbkFJ${urlSafe(58)}`],
  ["openai short project", `sk-proj-${alnum(48)}`],
  ["hugging face", `hf_${draw("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)}`],
  ["replicate", `r8_${alnum(37)}`],
  ["groq", `gsk_${alnum(52)}`],
  ["perplexity", `pplx-${alnum(48)}`],
  ["xai", `xai-${alnum(80)}`],
  ["together", `tgp_v1_${urlSafe(43)}`],
  ["fireworks", `fw_${alnum(24)}`],
  ["deepseek", `sk-${hex(32)}`],
  ["google", `AIza${urlSafe(35)}`],
  ["openrouter", `sk-or-v1-${hex(64)}`],
  ["cerebras", `csk-${draw("abcdefghijklmnopqrstuvwxyz0123456789", 48)}`],
  ["nvidia", `nvapi-${urlSafe(64)}`],
  ["langsmith", `lsv2_pt_${hex(32)}_${hex(10)}`],
  ["pinecone", `pcsk_${alnum(6)}_${alnum(63)}`],
  ["elevenlabs", `sk_${hex(48)}`],
  ["voyage", `pa-${urlSafe(43)}`],
  ["weights and biases", `wandb_v1_${draw(`${ALNUM}_`, 77)}`],
  ["runpod", `rpa_${upper(40)}${alnum(6)}`],
  ["modal", `ak-${alnum(22)}`],
  ["anthropic oauth", `sk-ant-oat01-${urlSafe(95)}AA`],
  ["tavily", `tvly-dev-${alnum(32)}`],
  ["firecrawl", `fc-${hex(32)}`],
  ["llamacloud", `llx-${alnum(48)}`]
]

describe("keys of AI-model and ML-hosting providers, written bare", () => {
  it.each(AI_KEYS)("%s", (_, key) => check([[`Use ${key} for the call.`, key], [`{"stdout": "${key}\\n"}`, key]]))
})

describe("a format rule's value after the service's name, as a label", () => {
  const twilio = `SK${hex(32)}`
  const stripe = `sk_live_${alnum(24)}`
  const mistral = alnum(32)
  const cohere = alnum(40)
  const adafruit = urlSafe(32)
  it.each([
    ["twilio label", `twilio: ${twilio}`, twilio],
    ["twilio variable", `TWILIO_API_KEY=${twilio}`, twilio],
    ["stripe in JSON", `{"stripe": "${stripe}"}`, stripe],
    ["mistral label", `mistral: ${mistral}`, mistral],
    ["cohere in JSON", `{"cohere": "${cohere}"}`, cohere],
    ["adafruit in YAML", `adafruit: '${adafruit}'`, adafruit],
    ["adafruit in a URL", `https://io.example.com/feeds?adafruit=${adafruit}&x=1`, adafruit]
  ])("%s", (_, text, secret) => check([[text, secret]]))
})

describe("a Twilio auth token next to its account SID", () => {
  const sid = `AC${hex(32)}`
  const token = hex(32)
  it.each([
    ["two arguments", `client = Client("${sid}", "${token}")`],
    ["user and password", `curl -X POST https://api.twilio.com/2010-04-01/Accounts -u ${sid}:${token}`],
    ["two words", `${sid} ${token}`],
    ["two lines", `sid ${sid}\n${token}`]
  ])("%s", (_, text) => check([[text, token]]))
})

describe("the short generic names", () => {
  const v = `Zq8${alnum(14)}`
  it.each(["pwd", "auth", "credentials", "PWD", "AUTH", "CREDENTIALS", "db_pwd", "proxy_auth"])("%s", (name) =>
    check([
      [`${name}=${v}`, v],
      [`${name}: ${v}`, v],
      [`"${name}": "${v}"`, v],
      [`{"${name}":"${v}"}`, v],
      [`export ${name}='${v}'`, v],
      [`https://h.example/?${name}=${v}&x=1`, v]
    ]))

  it("masks them in a JSON tree, and leaves ordinary values there", () => {
    expect(r.json({ db: { pwd: v, credentials: "include", auth: "oauth2" } })).toEqual({ db: { pwd: MASK, credentials: "include", auth: "oauth2" } })
  })

  it("leaves the ordinary uses of these words alone", () => {
    for (const s of [
      `fetch(url, { credentials: "include" })`, `credentials: 'same-origin'`, `auth: true`, `auth: none`,
      `pwd: /home/alice`, `$ pwd`, `auth=basic`, `auth: { type: "oauth" }`, `credentials: []`, `{"auth": "oauth2"}`
    ]) expect(r.text(s, false), s).toBe(s)
  })
})

describe("a token with one letter written as an escape", () => {
  const body = alnum(36)
  const tokens: ReadonlyArray<readonly [string, string, string]> = [
    ["ghp_", `gh\\u0070_${body}`, body],
    ["hf_", `\\u0068f_${body}`, body],
    ["sk-ant-", `sk-\\u0061nt-api03-${urlSafe(93)}AA`, "api03-"],
    ["x-escape", `gh\\x70_${body}`, body],
    ["upper-case hex", `sk\\u005Flive_${body}`, body],
    ["percent", `gh%70_${body}`, body]
  ]
  it.each(tokens)("%s", (_, written, secret) => {
    const text = `{"stdout": "found ${written} in .env"}`
    const problems = [...leaks(text, secret)]
    if (r.text(text, false).includes(secret.slice(0, 12))) problems.push("a piece shows")
    expect(problems).toEqual([])
  })
})

describe("a word after `token:` before the token", () => {
  const token = `${hex(8)}${alnum(24)}`
  it.each([
    ["token: live ", `token: live ${token}`],
    ["Token: new ", `Token: new ${token}`],
    ["token: is ", `your token: is ${token}`],
    ["api key: the ", `api_key: the ${token}`]
  ])("%s", (_, text) => check([[text, token]]))

  it("masks the value alone where the word is the value", () => {
    expect(r.text("token: hunter2hunter2 (rotated)", false)).toBe(`token: ${MASK} (rotated)`)
  })
})
