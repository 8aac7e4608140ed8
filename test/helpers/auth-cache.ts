import { HEARD_WITHIN_MS } from '../../src/auth/cache/own-ticks.ts';

/**
 * How soon B must be asked again for its answer to show that it kept the entry: well within the lag
 * its listener tolerates (own-ticks.ts; a loaded machine that answers later makes the attempt count
 * for nothing, and the test tries again).
 */
export const keptCheckMs = HEARD_WITHIN_MS / 2;
