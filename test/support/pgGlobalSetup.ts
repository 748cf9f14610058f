/**
 * The PostgreSQL project's one server (vitest globalSetup of `test/vitest.pg.config.ts`): a
 * throwaway cluster (`postgres.ts`) started before any file runs and stopped after the last, its
 * base URL handed to the workers as `pgBaseUrl` (vitest's provide/inject). Each test database is
 * made on it by `testDb.ts`. A server that cannot start fails the whole run: this project exists to
 * run the suites on PostgreSQL, so skipping it would pass without testing anything.
 */
import type { TestProject } from "vitest/node"
import { startPostgres } from "./pgServer.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://bridge_test@127.0.0.1:<port>/postgres`: the server's maintenance database. */
    pgBaseUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres()
  project.provide("pgBaseUrl", server.url("postgres"))
  return () => server.stop()
}
