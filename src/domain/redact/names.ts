/**
 * Which names hold secrets (docs/REFERENCE.md): the NAME of `NAME=value`, `NAME: value`,
 * `--name value` and of a JSON key. The contract's globs are applied to the name split into words
 * (`HF_TOKEN`, `hf-token`, `hfToken` and `config.hfToken` are all the words `hf token`):
 *
 * - `*SECRET*`, `*TOKEN*`, `*PASSWORD*` (and `passwd`, `passphrase`): a word holding it, so `clientSecret`,
 *   `authtoken` and `DB_PASSWORD` count; but not `tokens`, `max_tokens`, `tokenizer`, `secretary`;
 * - `*PASS`: the last word ends with `pass` (`DB_PASS`, `dbpass`), but not `bypass`, `compass`, ...;
 *   `passed` does not end with `pass`;
 * - `*API_KEY*`, `*ACCESS_KEY*`, `*PRIVATE_KEY*` (also written `apikey`, `accesskey`, `privatekey`);
 * - `*_KEY`: the last word is `key` (`OPENAI_KEY`, `signingKey`), except names of keys that are not
 *   secrets (`primary_key`, `sort_key`, `public_key`, and this product's own `session_key` and
 *   `idempotency_key`, which it shows by design) and keys of a lookup (`pattern_key`, `rule_key`);
 * - `KEY` alone, in upper case only (a lower-case `key:` is everywhere in YAML and code);
 * - `*_PAT`: the last word is `pat`, a personal access token (`GITHUB_PAT`, `AZURE_DEVOPS_PAT`,
 *   `adoPat`), or `PAT` alone in upper case.
 *
 * A name whose last word describes the secret rather than holding it is not secret-shaped: the
 * contract's `_env`, `_file`, `_path`, `_dir`, and likewise `_count`, `_length`, `_url`, `_type` ...
 * (`token_count`, `PASSWORD_FILE`, `api_key_env`); so is one that starts with `max`, `min`, `num`,
 * `is`, `has`, `use` (`MAX_TOKEN_LENGTH`, `has_token`, `use_auth_token`).
 *
 * The `*_KEY`, `KEY`, `*PASS` and `*_PAT` names are weak: many keys are map keys and constants
 * (`ERROR_META_KEY = "agent-bridge/error"`), so in code their value must also look random.
 *
 * The short generic names whose last word is `pwd`, `auth`, `credentials` (`credential`, `creds`)
 * hold secrets too (`pwd=…`, `"auth": "…"`, issue 23), but the same words name other things
 * everywhere (`credentials: "include"`, `auth: basic`, `pwd: /home/alice`): under them a value is
 * a secret only when it looks random, however it is written. So is the name `pass` written in lower
 * case alone, which is mostly the English word (`First pass: identify the nodes`).
 */

/** Last words that make a name a description of a secret, not the secret (`HF_TOKEN_FILE`). */
const DESCRIPTOR_WORDS: ReadonlySet<string> = new Set([
  "env", "file", "files", "path", "paths", "dir", "dirs", "count", "counts", "limit", "limits", "len",
  "length", "size", "type", "types", "usage", "url", "urls", "uri", "endpoint", "name", "names",
  "header", "prefix", "expiry", "expires", "expiration", "ttl", "policy", "hint", "label", "field",
  "param", "min", "max", "budget", "estimate", "format", "regex", "pattern", "rule", "rules", "mode",
  "chars", "bytes", "lines", "ms", "seconds", "secs", "timeout", "enabled", "required", "valid", "kind"
])
/** First words that make a name a limit, a count or a flag about a secret. */
const DESCRIPTOR_FIRST_WORDS: ReadonlySet<string> = new Set(["max", "min", "num", "n", "is", "has", "use", "should"])

/** Words that hold `token` but name no secret. */
const TOKEN_WORDS_NOT_SECRET = /^(?:.*tokens|tokeni[sz].*|tokenless)$/
/** Words ending in `pass` that are ordinary words. */
const PASS_WORDS_NOT_SECRET: ReadonlySet<string> = new Set([
  "bypass", "compass", "encompass", "surpass", "overpass", "underpass", "trespass", "firstpass", "onepass"
])
/** `*_KEY` names of keys that are not secrets. */
const KEY_NAMES_NOT_SECRET: ReadonlySet<string> = new Set([
  "public_key", "primary_key", "foreign_key", "sort_key", "cache_key", "partition_key", "routing_key",
  "idempotency_key", "session_key", "hash_key", "range_key", "row_key", "object_key", "lookup_key",
  "group_key", "map_key", "dedup_key", "dedupe_key", "unique_key", "composite_key", "shard_key",
  "sharding_key", "index_key", "order_key", "join_key", "sort_by_key", "react_key", "storage_state_key",
  "cursor_key", "event_key", "message_key", "i18n_key", "translation_key", "label_key", "column_key"
])

/**
 * Words that, standing right before a last word `key`, say what the key looks up, so the name is
 * of a lookup key, not a secret: `pattern_key` (the rule an approval matched, in Hermes's events and
 * the daemon's log), `rule_key`, `field_key`, `type_key`.
 */
const LOOKUP_WORDS: ReadonlySet<string> = new Set([
  "pattern", "patterns", "rule", "name", "type", "kind", "field", "category", "tool", "command", "action", "column", "label", "option", "setting"
])

/** `fooBarBaz` / `FOO-bar.baz` → `["foo", "bar", "baz"]`. */
export const nameWords = (name: string): ReadonlyArray<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_\-.\s]+/)
    .filter((w) => w.length > 0)

const holdsToken = (w: string): boolean => w.includes("token") && !TOKEN_WORDS_NOT_SECRET.test(w)
const holdsSecret = (w: string): boolean => w.includes("secret") && !w.startsWith("secretar")
const holdsPassword = (w: string): boolean => w.includes("password") || w.includes("passwd") || w.includes("passphrase")

const isKeyNameNotSecret = (joined: string): boolean => {
  for (const n of KEY_NAMES_NOT_SECRET) if (joined === n || joined.endsWith(`_${n}`)) return true
  return false
}

export type NameStrength = "strong" | "weak" | "random"

/** Last words of the short generic names (see the module comment). */
const SHORT_NAMES: ReadonlySet<string> = new Set(["pwd", "auth", "credentials", "credential", "creds"])

/**
 * How `name` is secret-shaped, or undefined when it is not. `name` is the bare name: no leading
 * dashes or `$`, and for a dotted property path only its last segment counts (`self.api_key`,
 * `password.length`).
 */
export const secretNameStrength = (rawName: string): NameStrength | undefined => {
  const dot = rawName.lastIndexOf(".")
  const name = dot >= 0 ? rawName.slice(dot + 1) : rawName
  if (name === "KEY") return "weak"
  const words = nameWords(name)
  const last = words[words.length - 1]
  if (last === undefined || DESCRIPTOR_WORDS.has(last) || DESCRIPTOR_FIRST_WORDS.has(words[0]!)) return undefined
  const joined = words.join("_")
  if (words.some((w) => holdsToken(w) || holdsSecret(w) || holdsPassword(w))) return "strong"
  if (/(?:api_?key|access_?key|private_?key)/.test(joined)) return "strong"
  // A lone lower-case `pass` is mostly the English word ("First pass: identify …"); `PASS=` is not.
  if (SHORT_NAMES.has(last) || name === "pass" || name === "Pass") return "random"
  if (last.endsWith("pass") && !PASS_WORDS_NOT_SECRET.has(last)) return "weak"
  // A personal access token: `GITHUB_PAT`, `AZURE_DEVOPS_PAT`, `adoPat` (not `pat` alone, a name).
  if (last === "pat" && (words.length >= 2 || name === "PAT")) return "weak"
  return last === "key" && words.length >= 2 && !isKeyNameNotSecret(joined) && !LOOKUP_WORDS.has(words[words.length - 2]!) ? "weak" : undefined
}

/** Names recur (`token`, `apiKey`): their strength is remembered, up to a bound. */
const memo = new Map<string, NameStrength | undefined>()
const MEMO_SIZE = 4096

/** `secretNameStrength`, remembered. */
export const secretNameStrengthCached = (name: string): NameStrength | undefined => {
  if (memo.has(name)) return memo.get(name)
  if (memo.size >= MEMO_SIZE) memo.clear()
  const strength = secretNameStrength(name)
  memo.set(name, strength)
  return strength
}

/** True when `name` is secret-shaped (see `secretNameStrength`). */
export const isSecretName = (name: string): boolean => secretNameStrength(name) !== undefined
