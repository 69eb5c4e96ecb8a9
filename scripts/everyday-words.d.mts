export const ROOT: string;
export const TARGET: string;
export const KEPT: number;
export function everydayWordsModule(
  entries: ReadonlyArray<{ word: string; count: number }>,
): string;
export function currentSource(): string;
