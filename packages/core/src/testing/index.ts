// @plant-store/core/testing: test code only, on vitest (an optional peer dependency of core: install it to use this entry).

export { describeStorageConformance, type StorageCapabilities, type StorageConformanceOptions } from './storage-conformance.js';
export type { DropDueTime } from './line-check-conformance.js';
export { delivery as sampleDelivery, plant as samplePlant } from './storage-fixtures.js';
export { createTestStore, type TestStore, type TestStoreOptions } from './create-test-store.js';
export { MANUAL_CLOCK_START, manualClock, type ManualClock } from './manual-clock.js';
export { capturingTransport, type CaptureReply, type CapturedWebhook, type CapturingTransport } from './capturing-transport.js';
