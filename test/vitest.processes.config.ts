/**
 * The multi-process suite (`npm run test:processes`): the files whose tests start several daemon
 * processes (replicas behind nginx, failover by SIGKILL and SIGTERM, a PostgreSQL server restarted
 * under them) or run the CLI as a child process dozens of times. They were about 40% of the
 * ordinary suite's time while using little of its CPU (most of it is waiting for children to start
 * and stop), so they run apart from `npm test`, like `test:chaos`: the README's "all tests" command
 * and `.ci/run` run all three. Same options as the ordinary suite (`vitest.config.ts`).
 */
import { defineConfig } from "vitest/config"
import base from "../vitest.config.ts"
import { PROCESS_FILES } from "./processFiles.ts"

export default defineConfig({
  test: {
    ...base.test,
    include: [...PROCESS_FILES],
    exclude: []
  }
})
