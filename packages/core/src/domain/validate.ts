import * as v from 'valibot';
import { ValidationError, type ValidationIssue } from '../errors.js';

/**
 * Runs a valibot schema and turns its issues into a {@link ValidationError}
 * whose field is the dotted path of the first issue.
 */
export function validate<const TSchema extends v.GenericSchema>(schema: TSchema, input: unknown, field = ''): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issues = result.issues.map(
    (issue): ValidationIssue => ({
      field: [field, ...(issue.path ?? []).map((item) => String(item.key))].filter(Boolean).join('.'),
      message: issue.message,
    }),
  );
  throw new ValidationError(issues as [ValidationIssue, ...ValidationIssue[]]);
}

/**
 * The message function for `v.strictObject`: it reports three different
 * problems (unknown key, missing key, not an object) and each deserves its
 * own words, naming the key.
 */
export function objectMessage(notAnObject: string) {
  return (issue: v.BaseIssue<unknown>): string => {
    const key = String(issue.path?.at(-1)?.key ?? '');
    if (issue.expected === 'never') return `unknown property '${key}'`;
    if (issue.kind === 'schema' && issue.path) return `${key} is required`;
    return notAnObject;
  };
}
