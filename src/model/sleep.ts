/** Waits `ms` (none when negative). The one timer both clients back off with. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
