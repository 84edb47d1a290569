/** A count with its noun in the right number: "1 event", "2 events", "1 platform request". */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
