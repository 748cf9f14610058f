/** Hermes outage and restart, old protocol generation (the suite: `support/hermesOutageSuite.ts`). */
import { hermesOutageSuite } from "./support/hermesOutageSuite.ts"

hermesOutageSuite("old")
