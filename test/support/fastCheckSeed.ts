/**
 * One seed for every property test that names none, so a run of the suite is the same run on every
 * machine: a counterexample found once is found again, and CI never turns red on a draw a laptop
 * did not make. `FC_SEED=<n>` explores other draws (e.g. `FC_SEED=$RANDOM npx vitest run test/redact`);
 * fast-check prints the seed of a failure to replay it.
 */
import fc from "fast-check"

const seed = Number(process.env["FC_SEED"] ?? 20261202)
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number.isInteger(seed) ? seed : 20261202 })
