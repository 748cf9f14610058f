/**
 * Common formats that TruffleHog's detectors find and Betterleaks' rules miss (issue 37): webhook
 * URLs that carry their secret, registry and CI tokens, and keys of email and payment providers.
 * Written in the bridge's own rule shape (`GitleaksRule`, applied by `gitleaks/gitleaks.ts`) from
 * the token formats TruffleHog's detectors document (github.com/trufflesecurity/trufflehog,
 * `pkg/detectors/<name>/<name>.go`: discordwebhook, zapierwebhook, microsoftteamswebhook, nugetapikey,
 * mailchimp, mailgun, mandrill, postmark, sparkpost, squareapp, braintreepayments and others), and
 * from the providers' own documentation; a format is a fact, the regexes are the bridge's.
 *
 * Two shapes:
 * - a token known by its prefix or by the URL it is part of (`oy2…`, `sq0csp-…`,
 *   `discord.com/api/webhooks/<id>/<token>`): tried where its literal stands;
 * - TruffleHog's "provider name, then the key within 40 characters" (`postmark … <uuid>`,
 *   `sparkpost … <40 alphanumerics>`): the name starts the regex, so the name is the trigger, and
 *   the value must be a whole word of the provider's alphabet and length.
 *
 * Where a URL is the credential (a webhook), the part after the host that carries it is masked,
 * the host stays (the reader still sees which service it was).
 */
import type { GitleaksRule } from "./gitleaks/data.ts"

/** The end of a token: no further token character. */
const END = "(?![A-Za-z0-9_-])"
/** A provider's name in either case, as the rules spell it (`[pP][oO]…`), so its literal is the trigger. */
const named = (name: string): string => [...name].map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c)).join("")
/** TruffleHog's reach from the provider's name to its key: up to 40 characters, lines included. */
const NEAR = "(?:.|[\\n\\r]){0,40}?"

export const TRUFFLE_FORMATS: ReadonlyArray<GitleaksRule> = [
  // ---- Webhook URLs that carry their secret.
  {
    id: "discord-webhook-url",
    keywords: ["discord"],
    regex: String.raw`discord(?:app)?\.com/api(?:/v\d{1,2})?/webhooks/\d{17,20}/([A-Za-z0-9_-]{60,80})` + END
  },
  {
    id: "slack-workflow-webhook-url",
    keywords: ["hooks.slack.com"],
    regex: String.raw`hooks\.slack\.com/(?:workflows|triggers)/(T[A-Z0-9]{6,12}/[A-Za-z0-9/]{8,80}/[A-Za-z0-9]{20,48})` + END
  },
  {
    id: "zapier-webhook-url",
    keywords: ["hooks.zapier.com"],
    regex: String.raw`hooks\.zapier\.com/hooks/catch/(\d{4,12}/[A-Za-z0-9]{4,16})` + END
  },
  {
    id: "ifttt-webhook-key",
    keywords: ["maker.ifttt.com"],
    regex: String.raw`maker\.ifttt\.com/(?:trigger/[\w.-]{1,64}/(?:json/)?with/)?key/([A-Za-z0-9_-]{20,43})` + END
  },
  {
    id: "make-webhook-url",
    keywords: ["make.com", "integromat.com"],
    regex: String.raw`\bhook\.(?:[a-z]{2}\d\.)?(?:make|integromat)\.com/([a-z0-9]{32})` + END
  },
  {
    // Mattermost's incoming webhooks (any host): `/hooks/` and 26 lower-case letters and digits.
    id: "mattermost-webhook-url",
    keywords: ["/hooks/"],
    regex: String.raw`/hooks/([a-z0-9]{26})(?![A-Za-z0-9_/-])`,
    entropy: 3,
    require: ["\\d"]
  },
  {
    // Microsoft Teams (Office 365 connectors): everything after `webhookb2/` (tenant, connector and
    // its secret). Betterleaks' rule keeps a capture group inside the tenant id, so only 5 of its
    // characters were masked.
    id: "microsoft-teams-webhook-path",
    keywords: ["webhook.office.com"],
    regex: String.raw`\.webhook\.office\.com/webhookb2/([A-Za-z0-9-]{36}@[A-Za-z0-9-]{36}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9-]{36}(?:/[A-Za-z0-9_-]{20,80})?)`
  },

  // ---- Registry and CI tokens.
  { id: "nuget-api-key", keywords: ["oy2"], regex: String.raw`\b(oy2[a-z0-9]{43})` + END, entropy: 3 },
  { id: "testpypi-upload-token", keywords: ["pypi-agendgvzdc5wexbplm9yzw"], regex: String.raw`\b(pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9_-]{50,1000})` + END },
  {
    // Jenkins API tokens: `11` and 32 hex digits, near the name `jenkins` (as TruffleHog wants it:
    // 34 hex digits alone would be tried at every `11` of every number).
    id: "jenkins-api-token-near",
    keywords: ["jenkins"],
    regex: named("jenkins") + NEAR + String.raw`\b(11[0-9a-f]{32})(?![0-9A-Za-z])`,
    entropy: 3,
    require: ["[a-f]"]
  },
  { id: "bitbucket-app-password", keywords: ["atbb"], regex: String.raw`\b(ATBB[A-Za-z0-9_=.-]{28,100})` + END, entropy: 3.5 },
  { id: "netlify-personal-access-token", keywords: ["nfp_"], regex: String.raw`\b(nfp_[A-Za-z0-9]{36})` + END, entropy: 3.5 },
  {
    id: "travisci-token-near",
    keywords: ["travis"],
    regex: named("travis") + NEAR + String.raw`\b([A-Za-z0-9_]{22})(?![A-Za-z0-9_-])`,
    entropy: 3.5,
    require: ["\\d", "[A-Z]", "[a-z]"]
  },
  {
    // Azure DevOps PATs of 2024 on: 52 characters, `JQQJ99`, 3, `AZDO`, 4.
    id: "azure-devops-pat",
    keywords: ["azdo"],
    regex: String.raw`\b([A-Za-z0-9]{52}JQQJ99[A-Za-z0-9]{3}AZDO[A-Za-z0-9]{4})` + END
  },

  // ---- Email providers.
  {
    // Mailchimp: 32 hex digits, `-us` and the data centre.
    id: "mailchimp-api-key-bare",
    keywords: ["-us"],
    regex: String.raw`\b([0-9a-f]{32}-us\d{1,2})(?![0-9A-Za-z])`,
    entropy: 3
  },
  { id: "mailgun-api-key-bare", keywords: ["key-"], regex: String.raw`\bkey-([0-9a-f]{32})(?![0-9A-Za-z])`, entropy: 3 },
  {
    id: "mailgun-key-near",
    keywords: ["mailgun"],
    regex: named("mailgun") + NEAR + String.raw`\b([0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}|[A-Za-z0-9-]{72})(?![A-Za-z0-9-])`,
    entropy: 3
  },
  { id: "mandrill-api-key", keywords: ["md-"], regex: String.raw`\bmd-([A-Za-z0-9_-]{22})` + END, entropy: 3.5 },
  {
    id: "postmark-token-near",
    keywords: ["postmark"],
    regex: named("postmark") + NEAR + String.raw`\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b`
  },
  {
    id: "sparkpost-api-key-near",
    keywords: ["sparkpost"],
    regex: named("sparkpost") + NEAR + String.raw`\b([A-Za-z0-9]{40})(?![A-Za-z0-9_-])`,
    entropy: 3.5
  },
  {
    id: "mailjet-key-near",
    keywords: ["mailjet"],
    regex: named("mailjet") + NEAR + String.raw`\b([0-9a-f]{32})(?![0-9A-Za-z])`,
    entropy: 3
  },
  { id: "resend-api-key", keywords: ["re_"], regex: String.raw`\b(re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})` + END, entropy: 3.5 },

  // ---- Payment providers.
  { id: "square-oauth-secret", keywords: ["sq0csp-"], regex: String.raw`\b(sq0csp-[A-Za-z0-9_-]{43})` + END, entropy: 3.5 },
  {
    // PayPal's Braintree access token: `access_token$production$<merchant>$<secret>`.
    id: "paypal-braintree-access-token",
    keywords: ["access_token$"],
    regex: String.raw`\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$([0-9a-f]{32})(?![0-9A-Za-z])`
  },
  {
    id: "braintree-private-key-near",
    keywords: ["braintree"],
    regex: named("braintree") + NEAR + String.raw`\b([0-9a-f]{32})(?![0-9A-Za-z])`,
    entropy: 3
  },
  {
    // Adyen's API keys: `AQE` and a long run of base64 and `-`.
    id: "adyen-api-key",
    keywords: ["aqe"],
    regex: String.raw`\bAQE([A-Za-z0-9+/=_-]{100,300})(?![A-Za-z0-9+/=_-])`,
    entropy: 4
  },
  {
    // Mollie: `live_` or `test_` and 30 letters and digits, a digit among them.
    id: "mollie-api-key",
    keywords: ["live_", "test_"],
    regex: String.raw`\b(?:live|test)_([A-Za-z0-9]{30})(?![A-Za-z0-9_-])`,
    entropy: 3.5,
    require: ["\\d", "[A-Z]", "[a-z]"]
  }
]
