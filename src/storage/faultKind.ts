/** The kinds of storage fault (`faults.ts` tells them apart): a leaf, so the dialect drivers and `faults.ts` do not import each other. */
/**
 * `unavailable`: the database server does not answer (down, restarting, unreachable); `timeout`:
 * the server cancelled a statement that ran past `storage.statement_timeout_ms`.
 */
export type StorageFaultKind = "full" | "readonly" | "io" | "busy" | "unavailable" | "timeout"
