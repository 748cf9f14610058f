/**
 * Keys of AI-model and ML-hosting providers that Betterleaks has no rule for, or has only with the
 * provider's name before the key, though the key's prefix alone tells what it is. Data of the
 * gitleaks shape (`GitleaksRule`), applied by `gitleaks/gitleaks.ts` like every format rule. Each
 * was written from the provider's documented key format; a probe of the daemon found such keys
 * passing unmasked when written bare (issue 23).
 */
import type { GitleaksRule } from "./gitleaks/data.ts"

/** The end of a token: no further token character. */
const END = "(?![A-Za-z0-9_-])"

export const AI_FORMATS: ReadonlyArray<GitleaksRule> = [
  // Fireworks AI: `fw_` and 24 letters and digits.
  { id: "fireworks-api-key", keywords: ["fw_"], regex: String.raw`\b(fw_[A-Za-z0-9]{24,48})` + END, entropy: 3 },
  // ElevenLabs: `sk_` and 48 hex digits (Betterleaks wants the name `elevenlabs` before it).
  { id: "elevenlabs-api-key-bare", keywords: ["sk_"], regex: String.raw`\b(sk_[0-9a-f]{48})` + END, entropy: 3 },
  // Voyage AI: `pa-` and 43 URL-safe base64 characters.
  { id: "voyage-api-key", keywords: ["pa-"], regex: String.raw`\b(pa-[A-Za-z0-9_-]{43})` + END, entropy: 4 },
  // Modal: a token id `ak-` and a token secret `as-`, each 22 letters and digits.
  { id: "modal-token", keywords: ["ak-", "as-"], regex: String.raw`\b((?:ak|as)-[A-Za-z0-9]{22})` + END, entropy: 3.5 },
  // Anthropic's OAuth tokens (Claude Code's `sk-ant-oat01-…`), which Betterleaks' api03 and admin01 rules miss.
  { id: "anthropic-oauth-token", keywords: ["sk-ant-oat"], regex: String.raw`\b(sk-ant-oat\d\d-[A-Za-z0-9_-]{40,200})` + END, entropy: 4 },
  // Tavily: `tvly-`, an optional environment, and 32 letters and digits.
  { id: "tavily-api-key", keywords: ["tvly-"], regex: String.raw`\b(tvly-(?:dev-|prod-)?[A-Za-z0-9]{32})` + END, entropy: 3.5 },
  // Firecrawl: `fc-` and 32 hex digits.
  { id: "firecrawl-api-key", keywords: ["fc-"], regex: String.raw`\b(fc-[0-9a-f]{32})` + END, entropy: 3 },
  // LlamaIndex's LlamaCloud: `llx-` and 48 letters and digits.
  { id: "llamacloud-api-key", keywords: ["llx-"], regex: String.raw`\b(llx-[A-Za-z0-9]{48})` + END, entropy: 4 },
  // A Twilio auth token (32 hex digits, no prefix) after its account SID (`AC` and 32 hex digits), as
  // the two are passed together (`Client("AC…", "…")`, `-u AC…:…`, one per line); the SID is an id.
  {
    id: "twilio-auth-token-after-sid",
    keywords: ["ac"],
    regex: String.raw`\bAC[0-9a-f]{32}(?![0-9A-Za-z])[^0-9A-Za-z]{1,12}([0-9a-f]{32})(?![0-9A-Za-z])`,
    entropy: 3
  }
]
