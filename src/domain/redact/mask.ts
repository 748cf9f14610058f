/** The mask that replaces every secret. It holds no secret shape itself, so masking is idempotent. */
export const MASK = "***REDACTED***"
