/**
 * Resolves once `check` returns a value other than undefined or false, checking again each time
 * the event loop had a turn of 10 ms; fails after `within` ms with `what`. For conditions only
 * observable by asking (a reconnection, a message on another connection): never a fixed wait.
 */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  within = 10_000,
): Promise<T> {
  const deadline = Date.now() + within;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
