/**
 * The longest delay a timer takes, 2^31 - 1 ms (about 24.8 days): node, browsers and Bun fire a
 * longer `setTimeout` after 1 ms. Options that become timers are capped at it; longer waits are
 * made in steps.
 */
export const MAX_TIMER_MS = 2_147_483_647;
