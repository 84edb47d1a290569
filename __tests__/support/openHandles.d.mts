/** Types of openHandles.mjs (plain JavaScript, loaded by the jest environment outside ts-jest). */
export function liveResources(): Map<string, number>;
export function heldOpen(before: Map<string, number>): Promise<string | undefined>;
