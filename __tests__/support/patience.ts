/**
 * How long a test waits for one event (a line on stderr, a request the fake saw, a row in the
 * queue, a file) before it gives up. A last guard, never a pace: every wait returns as soon as
 * its event is seen, so a quiet machine is not slowed, and a loaded one (two CPU-bound processes
 * on two cores: docs/development.md, "Tests under load") still passes. It stays below jest's
 * per-test limit (jest.config.js) so that a failure names the event it waited for.
 */
export const WAIT_MS = 30_000;

/**
 * How long the fake platform holds a stalled request in the tests that stop a run while it waits
 * on one: longer than a stop takes on a loaded machine, so "stopped within the stalled request"
 * and "caught after page 2" do not depend on the machine's speed; shorter than the client's own
 * request timeout (SVC_TIMEOUT_MS, 30 s), so a run that waited for the request in flight would
 * still show. The fake drops its timer when the client goes away: nothing waits it out.
 */
export const STALL_MS = 20_000;
