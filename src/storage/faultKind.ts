/**
 * The kinds of storage fault the operator can fix (`faults.ts` tells them apart from bugs; each
 * dialect's driver names its own codes' kinds): a leaf, so the drivers and `faults.ts` do not
 * import each other.
 *
 * `unavailable`: the database server does not answer (down, restarting, unreachable); `timeout`:
 * the server cancelled a statement that ran past `storage.statement_timeout_ms`.
 */
export type StorageFaultKind = "full" | "readonly" | "io" | "busy" | "unavailable" | "timeout"
