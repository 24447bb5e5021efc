import { ValidationError } from '@plant-store/core';
import { decodeQueryComponent } from './decode-query-component.js';

/** The decoded values of `names` in a raw query, each at most once and not empty; unknown parameters (cache busters, …) are ignored. */
export function singleQueryParams<N extends string>(query: string, names: readonly N[]): Partial<Record<N, string>> {
  const values: Partial<Record<N, string>> = {};
  if (query === '') return values;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = (eq === -1 ? pair : pair.slice(0, eq)) as N;
    if (!names.includes(name)) continue;
    if (values[name] !== undefined) throw ValidationError.of(name, `${name} must be given at most once`);
    const value = decodeQueryComponent(name, eq === -1 ? '' : pair.slice(eq + 1));
    if (value === '') throw ValidationError.of(name, `${name} must not be empty`);
    values[name] = value;
  }
  return values;
}
