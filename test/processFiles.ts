/**
 * The files of the multi-process suite (`test/vitest.processes.config.ts`, `npm run test:processes`),
 * left out of the ordinary `npm test` run (`vitest.config.ts`). Sorted, one a line. A file belongs
 * here when its time is mostly child processes starting and stopping: several replicas, the CLI
 * spawned per case, a database server restarted. A file with one daemon process (the SIGKILL
 * tests, the JSON log format) stays in `npm test`.
 */
export const PROCESS_FILES: ReadonlyArray<string> = [
  "test/cli/cli.process.test.ts",
  "test/cli/storageFaults.process.test.ts",
  "test/cluster/replicas.e2e.test.ts",
  "test/console/runs-cli.process.test.ts",
  "test/edge/replicaTools.e2e.test.ts",
  "test/edge/replicas.e2e.test.ts",
  "test/inbox/replicaSessions.e2e.test.ts",
  "test/oauth/nginx.e2e.test.ts",
  "test/reliability/pgRestart.e2e.test.ts",
  "test/reliability/rollingRestart.e2e.test.ts",
  "test/reliability/shutdownDeadline.e2e.test.ts",
  "test/runs/replicaCaps.e2e.test.ts",
  "test/runs/runs-failover.e2e.test.ts"
]
