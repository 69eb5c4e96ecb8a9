export const ROOT: string;
export const REPORT_DIR: string;
export const UPDATE_HINT: string;
export interface EntryApi {
  values: string[];
  types: string[];
  stars: string[];
}
export function entries(): Array<{ subpath: string; name: string; source: string }>;
export function exportsOf(text: string): EntryApi;
export function reportText(subpath: string, api: EntryApi): string;
export function currentApi(): Array<{
  subpath: string;
  name: string;
  source: string;
  api: EntryApi;
}>;
export function reportPath(name: string): string;
export function differences(): string[];
