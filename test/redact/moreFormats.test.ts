/**
 * Formats no gitleaks rule covers, which a probe of the daemon found passing unmasked: cookie
 * headers, docker's `"auth"`, `mysql -pPASS`, an Azure SAS signature, a bare Telegram bot token
 * (`src/domain/redact/rules/moreFormats.ts`), and the look-alikes that stay as written.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction } from "../../src/domain/redact/redact.ts"
import { chars, leakFinder, mulberry32 } from "./corpus.ts"

const r = makeRedaction([])
const rng = mulberry32(1414)
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const B64 = ALNUM + "+/"

const session = chars(rng, ALNUM, 32)
const csrf = chars(rng, ALNUM, 24)
const dockerAuth = Buffer.from(`deploy:${chars(rng, ALNUM, 20)}`).toString("base64")
const mysqlPassword = `${chars(rng, ALNUM, 10)}!${chars(rng, ALNUM, 3)}`
const sig = chars(rng, B64, 43) + "="
const sasSig = encodeURIComponent(sig)
const botToken = `AA${chars(rng, ALNUM + "_-", 33)}`

/** [what, text, the part that must never show]. */
const CASES: ReadonlyArray<readonly [string, string, string]> = [
  ["Cookie header", `> Cookie: sessionid=${session}; csrftoken=${csrf}`, session],
  ["Cookie header, second cookie", `> Cookie: sessionid=${session}; csrftoken=${csrf}`, csrf],
  ["Set-Cookie header", `< Set-Cookie: __Host-session=${session}; Path=/; Secure; HttpOnly`, session],
  ["cookie in a headers object", JSON.stringify({ headers: { Cookie: `sid=${session}` } }), session],
  ["curl -H cookie", `curl -H 'Cookie: connect.sid=s%3A${session}' https://app.example.com/api`, session],
  ["docker config auth", JSON.stringify({ auths: { "registry.example.com": { auth: dockerAuth } } }, null, 2), dockerAuth],
  ["docker config auth, one line", `{"auths":{"ghcr.io":{"auth":"${dockerAuth}"}}}`, dockerAuth],
  ["mysql -pPASS", `mysql -h db.internal -u root -p${mysqlPassword} orders`, mysqlPassword],
  ["mysqldump -p'PASS'", `mysqldump -uroot -p'${mysqlPassword}' --all-databases > dump.sql`, mysqlPassword],
  ["mysql --password=", `mysql --user=app --password=${mysqlPassword} -e 'select 1'`, mysqlPassword],
  ["Azure SAS sig in a URL", `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&sig=${sasSig}`, sasSig],
  ["Azure SAS sig first", `GET /c/b.txt?sig=${sasSig}&sv=2022-11-02 HTTP/1.1`, sasSig],
  ["Telegram bot token", `the bot's token is 7412345678:${botToken}, keep it safe`, botToken],
  ["Telegram bot token in a URL", `curl https://api.telegram.org/bot123456789:${botToken}/getMe`, botToken]
]

describe("formats no gitleaks rule covers", () => {
  for (const [what, text, core] of CASES) {
    it(`masks ${what}`, () => {
      expect(leakFinder(core)(r.text(text, false)), `${what}: ${text}`).toBeUndefined()
      // And cut at every offset across two events.
      const at = text.indexOf(core)
      for (let cut = Math.max(0, at - 12); cut <= at + core.length; cut++) {
        const parts = r.segments([text.slice(0, cut), text.slice(cut)], {})
        expect(leakFinder(core)(parts.join("")), `${what} cut at ${cut - at}`).toBeUndefined()
      }
    })
  }

  it("leaves the look-alikes as written", () => {
    for (const text of [
      "Cookie: a small piece of data the browser keeps",
      "set the cookie: `document.cookie = name + '=' + value`",
      "const cookie = headers.get('Cookie')",
      '"auth": "none"',
      '{"auth": "oauth2", "scopes": ["repo"]}',
      "mysql -p orders   # asks for the password",
      "mysql -P 3306 -h db orders",
      "select * from t where sig = 'x'",
      "the signature is in sig=abc",
      "at 12:34:56 on 2026-01-01 the build took 1234567890:AAA seconds",
      "https://example.com/page?sig=short&x=1"
    ]) {
      expect(r.text(text, false), text).toBe(text)
    }
  })
})
