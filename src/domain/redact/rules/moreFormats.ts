/**
 * Formats no gitleaks rule covers, written as data of the same shape (`GitleaksRule`) and applied
 * by the same code (`gitleaks/gitleaks.ts`): a trigger read from the regex or a keyword, then one
 * anchored attempt. Each was found passing unmasked by a probe of the daemon.
 *
 * - Cookie headers (`Cookie:`, `Set-Cookie:`, also as a key of a headers object): the whole list of
 *   `name=value` pairs after the name, to the end of the line or the closing quote. A cookie header
 *   is session state by design, so every value in it is treated as a credential (`theme=dark` too).
 * - Docker's `config.json`: `"auth": "<base64 of user:password>"`, also JSON-escaped.
 * - The MySQL and MariaDB clients' `-pPASSWORD` (glued to `-p`, quoted or not, also with the quotes
 *   JSON-escaped: `-p\"…\"` in a command inside a JSON string); `--password=` is the assignment rule's.
 * - An Azure shared access signature's `sig=` in a URL (base64, usually percent-encoded).
 * - A Telegram bot token outside an assignment: the bot's id, `:`, and 35 characters from `AA`.
 */
import type { GitleaksRule } from "./gitleaks/data.ts"

export const MORE_FORMATS: ReadonlyArray<GitleaksRule> = [
  {
    id: "cookie-header",
    keywords: ["cookie"],
    regex: String.raw`\b(?:[sS][eE][tT]-)?[cC][oO][oO][kK][iI][eE]["']?[ \t]*:[ \t]*["']?([!#$%&*+.^|~\w-]{1,64}=[^\r\n"'\\]{1,4096})`
  },
  {
    id: "docker-config-auth",
    keywords: [`"auth`],
    regex: String.raw`\\?"auth\\?"[ \t]*:[ \t]*\\?"([A-Za-z0-9+/]{12,4096}={0,2})\\?"`,
    entropy: 3
  },
  {
    id: "mysql-password-flag",
    keywords: ["mysql", "mariadb"],
    regex: String.raw`\b(?:mysql|mariadb)[\w-]*(?:[ \t]+[^\s|;&]+){0,20}?[ \t]+-p(?:\\"((?:(?!\\")[^\r\n]){1,256})\\"|\\'((?:(?!\\')[^\r\n]){1,256})\\'|'([^'\r\n]{1,256})'|"([^"\r\n]{1,256})"|([^\s'"\\-][^\s'"]{0,255}))`
  },
  {
    id: "azure-sas-signature",
    keywords: ["sig="],
    regex: String.raw`(?<=[?&;])sig=((?:[A-Za-z0-9+/]|%2[BbFf]){30,256}(?:=|%3[Dd]){0,2})(?![A-Za-z0-9+/%])`,
    entropy: 3
  },
  {
    id: "telegram-bot-token-bare",
    keywords: [":aa"],
    regex: String.raw`(?<![0-9])([0-9]{8,10}):(AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])`,
    group: 2
  }
]
