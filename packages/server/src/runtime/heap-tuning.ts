import { setFlagsFromString } from 'node:v8';

/**
 * The V8 flag the `plant-store` process runs with: no allocation-site
 * pretenuring.
 *
 * V8 watches each object and array literal in the code and, when nearly
 * all of them outlive a young-generation GC, starts allocating that literal
 * straight in the old generation. Under a burst of writes the database
 * driver's query objects live long enough for that (they wait on commits),
 * so pg's `Query` and `Result` literals get pretenured, for good. From then
 * on every result's row array sits in the old generation; the rows and
 * strings it points to survive young GCs through it and are promoted too,
 * until a full GC. On lists over PostgreSQL that cost about a fifth of the
 * service's CPU per request and raised its p99 by half
 * (docs/performance.md). Every object this service allocates per request dies with
 * the request, which is the case pretenuring cannot win, so it is off.
 *
 * Set at start, before any request: the flag is read at every GC, so
 * setting it at run time takes effect from the next one.
 */
const HEAP_FLAGS = '--no-allocation-site-pretenuring';

setFlagsFromString(HEAP_FLAGS);
