/**
 * CPU timing shared by the in-process benchmarks (bench-redactor, bench-keys): the process's own CPU
 * time, so other processes on a shared machine do not count, and the best of several rounds in which
 * the jobs take turns, so whatever else loads the machine (caches, memory bandwidth) hits them alike.
 */

/** This process's CPU time in ms (user + system). */
export const cpuMs = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/** Best CPU time (ms) of each job over `runs` rounds, after one warm-up call of each. */
export const bestTimes = (jobs: ReadonlyArray<() => void>, runs: number): Array<number> => {
  for (const job of jobs) job()
  const best = jobs.map(() => Infinity)
  for (let i = 0; i < runs; i++) {
    jobs.forEach((job, j) => {
      const start = cpuMs()
      job()
      best[j] = Math.min(best[j]!, cpuMs() - start)
    })
  }
  return best
}
