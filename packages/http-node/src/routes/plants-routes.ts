import { plantNotFoundMessage, plantToJson } from '@plant-store/core/adapter';
import { errorBody } from '../http/error-response.js';
import { authorizeRequest } from '../http/authenticate-request.js';
import { nextLink } from '../http/next-link.js';
import { parseListQuery } from '../http/parse-list-query.js';
import { parsePlantId } from '../http/parse-path-id.js';
import { readJsonBody } from '../http/read-json-body.js';
import { sendJson, sendNoContent } from '../http/send-json.js';
import { writePlantList, writePlantPage } from '../http/write-plant-list.js';
import type { Exchange, RouteContext } from './route-context.js';

// Every handler authenticates and checks the scope first: a caller without valid credentials learns nothing about its input.

export async function createPlant(context: RouteContext, exchange: Exchange): Promise<void> {
  const { req } = exchange;
  const principal = await authorizeRequest(context.store, exchange, 'plants:write');
  const body = await readJsonBody(req, context.maxBodyBytes);
  const { plant } = await context.store.plants.create(principal, body);
  // 200 for a replay too: a retry must look exactly like the first call.
  sendJson(exchange.res, exchange.requestId, 200, plantToJson(plant));
}

export async function listPlants(context: RouteContext, exchange: Exchange): Promise<void> {
  const principal = await authorizeRequest(context.store, exchange, 'plants:read');
  const options = parseListQuery(exchange.query);
  const listing = await context.store.plants.listAsJson(principal, options);
  const extraHeaders =
    listing.nextAfter === undefined
      ? undefined
      : ['link', nextLink(context.basePath, '/plants', pageParams(options.limit ?? 0, listing.nextAfter, options.tags))];
  if (exchange.head) {
    exchange.res.writeHead(200, withIds(['content-type', 'application/json'], exchange.requestId, extraHeaders));
    exchange.res.end();
    return;
  }
  if ('json' in listing) sendJson(exchange.res, exchange.requestId, 200, listing.json, extraHeaders);
  else if (listing.page !== undefined) writePlantPage(exchange.res, exchange.requestId, listing.page, extraHeaders);
  else await writePlantList(exchange.res, exchange.requestId, listing.batches, extraHeaders);
}

export async function getPlant(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await authorizeRequest(context.store, exchange, 'plants:read');
  sendJson(exchange.res, exchange.requestId, 200, await context.store.plants.getAsJson(principal, parsePlantId(idSegment)));
}

export async function deletePlant(context: RouteContext, exchange: Exchange, idSegment: string): Promise<void> {
  const principal = await authorizeRequest(context.store, exchange, 'plants:write');
  const id = parsePlantId(idSegment);
  if (await context.store.plants.deleteIfExists(principal, id)) sendNoContent(exchange.res, exchange.requestId);
  // The same answer a NotFoundError gets, without building one: a miss is a routine answer here.
  else sendJson(exchange.res, exchange.requestId, 404, errorBody(404, plantNotFoundMessage(id)));
}

function pageParams(limit: number, after: bigint, tags: readonly string[] | undefined): [string, number | bigint | string][] {
  const params: [string, number | bigint | string][] = [
    ['limit', limit],
    ['after', after],
  ];
  if (tags !== undefined) for (const tag of tags) params.push(['tag', tag]);
  return params;
}

function withIds(headers: string[], requestId: string, extraHeaders: readonly string[] | undefined): string[] {
  headers.push('x-request-id', requestId);
  if (extraHeaders !== undefined) headers.push(...extraHeaders);
  return headers;
}
