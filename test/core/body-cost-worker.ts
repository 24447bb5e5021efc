// Run in a child process by body-cost.test.ts: parses and validates each
// body it is given exactly as a create request does, and reports the CPU
// time of each, so a quadratic (or hanging) parse shows up as a number or a
// timeout in the parent instead of a stalled test run.
import { ValidationError } from '@plant-store/core';
import { NewPlantSchema, parseJson, validate } from '@plant-store/core/adapter';

const bodies = JSON.parse(
  await new Promise<string>((resolve) => {
    let input = '';
    process.stdin
      .setEncoding('utf8')
      .on('data', (chunk: string) => (input += chunk))
      .on('end', () => resolve(input));
  }),
) as string[];

const costs = bodies.map((body) => {
  const start = process.cpuUsage();
  try {
    validate(NewPlantSchema, parseJson(body));
  } catch (error) {
    if (!(error instanceof ValidationError) && !(error instanceof SyntaxError)) throw error;
  }
  const used = process.cpuUsage(start);
  return { bytes: Buffer.byteLength(body), cpuMs: (used.user + used.system) / 1000 };
});
process.stdout.write(JSON.stringify(costs));
