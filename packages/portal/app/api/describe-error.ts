import { PlantStoreClientError } from '@plant-store/client';

/** A failure as one sentence for the status region, with the request id to quote when the service gave one. */
export function describeError(error: unknown): string {
  if (error instanceof PlantStoreClientError) {
    const reference = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    switch (error.code) {
      case 'forbidden':
        return `Not allowed: this sign-in may only read. ${error.message}${reference}`;
      case 'network':
        return `The service could not be reached: ${error.message}`;
      default:
        return `${error.message}${reference}`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/** True for the service refusing the token itself (unknown, expired or revoked): the page signs out. */
export function isSignedOut(error: unknown): boolean {
  return error instanceof PlantStoreClientError && error.code === 'unauthenticated';
}
