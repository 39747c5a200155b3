/**
 * Every tuning batch by number, in the order they were written (batches 2-17 in `tuningBatch2.ts`, 18 on in files of
 * their own): tuned on in full, outside the dev/held-out split. `run.ts` reports each; `explain.ts` looks companies up.
 */
import type { Company } from "./companies.js"
import { tuningBatch18 } from "./tuningBatch18.js"
import { tuningBatch19 } from "./tuningBatch19.js"
import { tuningBatch10, tuningBatch11, tuningBatch12, tuningBatch13, tuningBatch14, tuningBatch15, tuningBatch16, tuningBatch17, tuningBatch2, tuningBatch3, tuningBatch4, tuningBatch5, tuningBatch6, tuningBatch7, tuningBatch8, tuningBatch9 } from "./tuningBatch2.js"
import { tuningBatch20 } from "./tuningBatch20.js"
import { tuningBatch21 } from "./tuningBatch21.js"
import { tuningBatch22 } from "./tuningBatch22.js"
import { tuningBatch23 } from "./tuningBatch23.js"
import { tuningBatch24 } from "./tuningBatch24.js"
import { tuningBatch25 } from "./tuningBatch25.js"
import { tuningBatch26 } from "./tuningBatch26.js"
import { tuningBatch27 } from "./tuningBatch27.js"
import { tuningBatch28 } from "./tuningBatch28.js"

/** The tuning batches by number. */
export const tuningBatches: ReadonlyArray<readonly [number, ReadonlyArray<Company>]> = [
  [2, tuningBatch2], [3, tuningBatch3], [4, tuningBatch4], [5, tuningBatch5], [6, tuningBatch6], [7, tuningBatch7], [8, tuningBatch8],
  [9, tuningBatch9], [10, tuningBatch10], [11, tuningBatch11], [12, tuningBatch12], [13, tuningBatch13], [14, tuningBatch14],
  [15, tuningBatch15], [16, tuningBatch16], [17, tuningBatch17], [18, tuningBatch18], [19, tuningBatch19], [20, tuningBatch20],
  [21, tuningBatch21], [22, tuningBatch22], [23, tuningBatch23], [24, tuningBatch24], [25, tuningBatch25], [26, tuningBatch26],
  [27, tuningBatch27], [28, tuningBatch28]
]
