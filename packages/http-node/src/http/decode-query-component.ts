import { ValidationError } from '@plant-store/core';

/** Form-style decoding of one query value (`+` is a space), as browsers and URLSearchParams encode queries. */
export function decodeQueryComponent(parameter: string, raw: string): string {
  if (raw.indexOf('%') === -1 && raw.indexOf('+') === -1) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    throw ValidationError.of(parameter, `${parameter} is not valid percent-encoded UTF-8`);
  }
}
