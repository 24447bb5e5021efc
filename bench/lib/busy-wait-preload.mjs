// Loaded with `node --import` into the service of the `busy-wait` scenario:
// each response first spins for PLANT_STORE_BENCH_BUSY_WAIT_US microseconds
// of wall-clock time, then is sent as usual. Work of a known size and nothing
// else, so the scenario's ratio says what a few more microseconds per request
// cost in req/s on this machine with this load generator: the scale to read
// the tracing ratio against. Plain JavaScript, as bare `node` loads it.
import { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

const text = process.env.PLANT_STORE_BENCH_BUSY_WAIT_US;
const micros = Number(text);
if (!(micros > 0)) throw new Error(`PLANT_STORE_BENCH_BUSY_WAIT_US must be a positive number of microseconds, got ${JSON.stringify(text)}`);

// performance.now() counts milliseconds.
const millis = micros / 1000;
const end = ServerResponse.prototype.end;
// Three named parameters, not a rest parameter: `end` takes at most three, and
// the wrapper itself should add as little as it can beside the spin.
// A response ended already (a second `end`, which Node ignores) is not spun for again: one spin per response.
ServerResponse.prototype.end = function endAfterBusyWait(chunk, encoding, callback) {
  if (!this.writableEnded) {
    const until = performance.now() + millis;
    while (performance.now() < until);
  }
  return end.call(this, chunk, encoding, callback);
};
