/**
 * The one spelling of what starts every key the bridge issues (client keys, the admin key it makes
 * on first start): `services/auth/apiKeys.ts` makes keys with it, and the redactor's known prefixes
 * (`redact/prefixes.ts`) and trigger literals (`redact/scan.ts`) find them by it. Here, in the
 * domain, because the redactor may not import a service.
 */
export const BRIDGE_KEY_PREFIX = "hal0bk_"

/** A key's body: 32 random bytes in base62, padded to this many digits (`apiKeys.ts`). */
export const BRIDGE_KEY_BODY_LENGTH = 43
