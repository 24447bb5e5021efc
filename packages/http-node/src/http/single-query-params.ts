import { ValidationError } from '@plant-store/core';
import { decodeQueryComponent } from './decode-query-component.js';

/**
 * The values of the parameters in `names` found in a raw query string
 * (without the `?`), decoded. Each may be given at most once and must not be
 * empty: a repeated or empty one is a `ValidationError` naming it. Unknown
 * parameters are ignored (cache busters, tracing, …).
 */
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
