/**
 * Common formats that TruffleHog detects and Betterleaks' rules miss (issue 37 item 7): webhook URLs
 * that carry their secret, registry and CI tokens, email and payment provider keys, and values of
 * names ending in `PAT`. Each sample is synthetic (a seeded PRNG, realistic in shape only), written
 * bare, in JSON tool output, in YAML, as a shell assignment to a name that is not secret-shaped, and
 * in prose; the part that must never show is its core. Before `rules/truffleFormats.ts` and the
 * `PAT` name, 31 of the 38 reached the output whole; the other 7 (Slack triggers, GitLab runner
 * registration, CircleCI, Docker Hub, a Mailgun key and a Postmark token under their names, Stripe's
 * `rk_test_`) Betterleaks' rules already masked, and stay here as samples of the same families.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction } from "../../src/domain/redact/redact.ts"
import { chars, leakFinder, mulberry32 } from "./corpus.ts"

const r = makeRedaction([])
const rng = mulberry32(3737)
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const HEX = "0123456789abcdef"
const DIGITS = "0123456789"
const URLSAFE = ALNUM + "-_"
const B32 = "abcdefghijklmnopqrstuvwxyz234567"
const uuid = () => [8, 4, 4, 4, 12].map((n) => chars(rng, HEX, n)).join("-")

/** [format, the text as written, the part that must never show]. */
const SAMPLES: ReadonlyArray<readonly [string, string, string]> = [
  // Webhook URLs whose path is the credential.
  ((id, t) => ["discord webhook", `https://discord.com/api/webhooks/${id}/${t}`, t] as const)(chars(rng, DIGITS, 19), chars(rng, URLSAFE, 68)),
  ((id, t) => ["discordapp webhook", `https://discordapp.com/api/webhooks/${id}/${t}`, t] as const)(chars(rng, DIGITS, 18), chars(rng, URLSAFE, 68)),
  ((t) => ["slack workflow webhook", `https://hooks.slack.com/workflows/T${chars(rng, UPPER_ALNUM, 10)}/A${chars(rng, UPPER_ALNUM, 10)}/${chars(rng, DIGITS, 18)}/${t}`, t] as const)(chars(rng, ALNUM, 24)),
  ((t) => ["slack trigger webhook", `https://hooks.slack.com/triggers/T${chars(rng, UPPER_ALNUM, 10)}/${chars(rng, DIGITS, 13)}/${t}`, t] as const)(chars(rng, HEX, 32)),
  ((a, b) => ["zapier webhook", `https://hooks.zapier.com/hooks/catch/${a}/${b}/`, `${a}/${b}`] as const)(chars(rng, DIGITS, 8), chars(rng, LOWER_ALNUM, 7)),
  ((k) => ["ifttt webhook", `https://maker.ifttt.com/trigger/deploy_done/with/key/${k}`, k] as const)(chars(rng, URLSAFE, 22)),
  ((k) => ["make webhook", `https://hook.eu1.make.com/${k}`, k] as const)(chars(rng, LOWER_ALNUM, 32)),
  ((k) => ["mattermost webhook", `https://chat.example.org/hooks/${k}`, k] as const)(chars(rng, LOWER_ALNUM, 26)),
  ((k) => ["teams webhook", `https://contoso.webhook.office.com/webhookb2/${uuid()}@${uuid()}/IncomingWebhook/${k}/${uuid()}`, k] as const)(chars(rng, HEX, 32)),
  // Registry and CI tokens.
  ((k) => ["nuget", `oy2${k}`, k] as const)(chars(rng, LOWER_ALNUM, 43)),
  ((k) => ["testpypi", `pypi-AgENdGVzdC5weXBpLm9yZw${k}`, k] as const)(chars(rng, URLSAFE, 70)),
  ((k) => ["gitlab runner registration", `GR1348941${k}`, k] as const)(chars(rng, URLSAFE, 20)),
  ((a, b) => ["circleci personal", `CCIPAT_${a}_${b}`, `${a}_${b}`] as const)(chars(rng, ALNUM, 22), chars(rng, HEX, 40)),
  ((k) => ["jenkins api token", `jenkins admin 11${k}`, k] as const)(chars(rng, HEX, 32)),
  ((k) => ["bitbucket app password", `ATBB${k}`, k] as const)(chars(rng, ALNUM, 32)),
  ((k) => ["netlify", `nfp_${k}`, k] as const)(chars(rng, ALNUM, 36)),
  ((k) => ["travis", `travis token ${k}`, k] as const)(chars(rng, ALNUM, 22)),
  ((a, b) => ["azure devops pat", `${a}JQQJ99${b}AZDO${chars(rng, ALNUM, 4)}`, a] as const)(chars(rng, ALNUM, 52), chars(rng, ALNUM, 3)),
  ((k) => ["dockerhub", `dckr_pat_${k}`, k] as const)(chars(rng, URLSAFE, 27)),
  // Email and payment providers.
  ((k) => ["mailchimp", `${k}-us21`, k] as const)(chars(rng, HEX, 32)),
  ((k) => ["mailgun key-", `key-${k}`, k] as const)(chars(rng, HEX, 32)),
  ((k) => ["mailgun private key", `mailgun private key: ${k}`, k] as const)(`${chars(rng, HEX, 32)}-${chars(rng, HEX, 8)}-${chars(rng, HEX, 8)}`),
  ((k) => ["mandrill", `md-${k}`, k] as const)(chars(rng, URLSAFE, 22)),
  ((k) => ["postmark", `X-Postmark-Server-Token: ${k}`, k] as const)(uuid()),
  ((k) => ["postmark near", `postmark server ${k}`, k] as const)(uuid()),
  ((k) => ["sparkpost", `sparkpost api ${k}`, k] as const)(chars(rng, ALNUM, 40)),
  ((k) => ["mailjet", `mailjet secret ${k}`, k] as const)(chars(rng, HEX, 32)),
  ((a, b) => ["resend", `re_${a}_${b}`, `${a}_${b}`] as const)(chars(rng, ALNUM, 8), chars(rng, ALNUM, 24)),
  ((k) => ["square oauth secret", `sq0csp-${k}`, k] as const)(chars(rng, URLSAFE, 43)),
  ((a, b) => ["paypal braintree access token", `access_token$production$${a}$${b}`, b] as const)(chars(rng, LOWER_ALNUM, 16), chars(rng, HEX, 32)),
  ((k) => ["braintree private key", `braintree private_key ${k}`, k] as const)(chars(rng, HEX, 32)),
  ((k) => ["adyen", `AQE${k}`, k] as const)(chars(rng, ALNUM + "+/-", 150)),
  ((k) => ["mollie", `live_${k}`, k] as const)(chars(rng, "abcdefghABCDEFGH", 26) + "7q9K"),
  ((k) => ["stripe restricted test", `rk_test_${k}`, k] as const)(chars(rng, ALNUM, 99)),
  // Names that end in PAT.
  ((k) => ["GITHUB_PAT", `GITHUB_PAT=${k}`, k] as const)(chars(rng, ALNUM, 40)),
  ((k) => ["AZURE_DEVOPS_PAT", `AZURE_DEVOPS_PAT=${k}`, k] as const)(chars(rng, B32, 52)),
  ((k) => ["ado pat json", `{"adoPat": "${k}"}`, k] as const)(chars(rng, B32, 52)),
  ((k) => ["gitlabPat yaml", `gitlab_pat: ${k}`, k] as const)(chars(rng, URLSAFE, 26))
]

const contexts = (v: string): ReadonlyArray<readonly [string, string]> => [
  ["bare", v],
  ["json", JSON.stringify({ tool: "terminal", stdout: `configured ${v} for the release` })],
  ["yaml", `notify:\n  target: ${v}\n  retries: 3\n`],
  ["shell", `export TARGET='${v}'\n./notify.sh`],
  ["prose", `I set it to ${v} and pushed.`]
]

describe("formats TruffleHog detects", () => {
  it.each(SAMPLES.map(([name, v, core]) => [name, v, core] as const))("%s is masked in every context", (_, v, core) => {
    const leak = leakFinder(core)
    const problems = contexts(v).flatMap(([name, text]) => {
      const out = r.text(text, false)
      return leak(out) === undefined ? [] : [`${name}: ${out}`]
    })
    expect(problems).toEqual([])
  })

  it("leaves look-alikes that carry no secret", () => {
    for (const text of [
      "https://discord.com/api/webhooks/ (the docs page)",
      "see https://hooks.zapier.com/hooks/catch/ in the Zapier docs",
      "en-us and fr-fr locales; the key-value store",
      "mailchimp audience: newsletter",
      "postmark templates are in templates/",
      "a PAT is a personal access token: create one under Settings",
      "const compat = require('./compat')",
      "sparkpost: see the docs",
      "travis: build passed in 42 s",
      "test_handles_long_input_correctly()"
    ]) expect(r.text(text, false)).toBe(text)
  })
})
