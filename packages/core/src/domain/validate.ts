import * as v from 'valibot';
import { ValidationError, type ValidationIssue } from '../errors.js';

/**
 * Runs a valibot schema and turns its issues into a {@link ValidationError}
 * whose field is the dotted path of the first issue.
 */
export function validate<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  field = '',
): v.InferOutput<TSchema> {
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
