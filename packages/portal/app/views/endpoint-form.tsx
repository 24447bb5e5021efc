import {
  type NewWebhookEndpoint,
  parseJson,
  type WebhookEndpoint,
  type WebhookEndpointFilter,
  type WebhookEndpointOrdering,
  type WebhookEndpointUpdate,
  type WebhookEventType,
  type WebhookFilterCheck,
} from '@plant-store/client';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describeError, isSignedOut } from '../api/portal-api.js';
import { DESTINATION_LABELS, hasMaskedCredentials, kindOfTypedUrl } from '../ui/destination-kind.js';
import { prettyJson, usePortal } from '../ui/parts.js';

/**
 * Without `endpoint` the form creates one; with it, it edits it (the changes carry `filter: null` when the filter was cleared).
 * `onSave` resolves when the change is saved; it rejects with the service's error, shown by the form like its own problems.
 */
type EndpointFormProps = { readonly onCancel: () => void } & (
  | { readonly endpoint?: undefined; readonly onSave: (endpoint: NewWebhookEndpoint) => Promise<void> }
  | { readonly endpoint: WebhookEndpoint; readonly onSave: (changes: WebhookEndpointUpdate) => Promise<void> }
);

/** The form's filter field as a filter (undefined when empty); throws the form's problem for text that is not a JSON object. */
function parseFilter(text: string): WebhookEndpointFilter | undefined {
  if (text.trim() === '') return undefined;
  let filter: unknown;
  try {
    // The client's codec: an integer past 2^53 stays a bigint, so saving the form unchanged keeps it digit for digit.
    filter = parseJson(text);
  } catch {
    throw new Error('Write the filter as JSON, e.g. {"data.tag": {"$in": ["indoor", "rare"]}}.');
  }
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) throw new Error('The filter must be a JSON object.');
  return filter as WebhookEndpointFilter;
}

/** The form's header lines as an object (blank lines skipped); throws the form's problem for a line that is not `Name: value`. */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error(`Write each header as "Name: value" on its own line ("${line}" is not).`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** Create or edit an endpoint: its URL, the events it receives, a description, a rate limit, custom headers, its ordering and (on create) how it is signed. */
export function EndpointForm(props: EndpointFormProps) {
  const { endpoint, onCancel } = props;
  const { api, eventTypes, fail } = usePortal();
  const prefix = endpoint === undefined ? 'new-endpoint' : `edit-${endpoint.id}`;
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [types, setTypes] = useState<readonly string[]>(endpoint?.eventTypes ?? ['plant.created']);
  const [rateLimit, setRateLimit] = useState(endpoint?.rateLimit === undefined ? '' : String(endpoint.rateLimit));
  // One `Name: value` per line.
  const [headers, setHeaders] = useState(() =>
    Object.entries(endpoint?.headers ?? {})
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  );
  const [ordering, setOrdering] = useState<WebhookEndpointOrdering>(endpoint?.ordering ?? 'none');
  const [signature, setSignature] = useState<'hmac' | 'ed25519'>('hmac');
  const [filter, setFilter] = useState(() => (endpoint?.filter === undefined ? '' : prettyJson(endpoint.filter)));
  const [tried, setTried] = useState<WebhookFilterCheck | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => first.current?.focus(), []);
  const kind = kindOfTypedUrl(url);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      if (types.length === 0) throw new Error('Choose at least one event type.');
      const parsedFilter = parseFilter(filter);
      const fields = {
        url: url.trim(),
        eventTypes: types as WebhookEventType[],
        // Always sent, so that clearing the field removes them on an edit.
        headers: parseHeaders(headers),
        ordering,
        ...(description.trim() === '' ? {} : { description: description.trim() }),
        ...(rateLimit.trim() === '' ? {} : { rateLimit: Number(rateLimit) }),
      };
      if (props.endpoint === undefined) {
        await props.onSave({
          ...fields,
          ...(signature === 'ed25519' ? { signature } : {}),
          ...(parsedFilter === undefined ? {} : { filter: parsedFilter }),
        });
      } else {
        // An emptied field removes the filter the endpoint had.
        const filterChange = parsedFilter ?? (props.endpoint.filter === undefined ? undefined : null);
        await props.onSave(filterChange === undefined ? fields : { ...fields, filter: filterChange });
      }
    } catch (error) {
      if (isSignedOut(error)) fail(error);
      else setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  }

  /** Asks the service which of the catalogue's examples the filter matches; nothing is saved. */
  async function tryFilter() {
    setProblem(undefined);
    setTried(undefined);
    try {
      const parsed = parseFilter(filter);
      if (parsed === undefined) throw new Error('Write a filter to try.');
      setTried(await api.checkFilter(parsed));
    } catch (error) {
      if (isSignedOut(error)) fail(error);
      else setProblem(describeError(error));
    }
  }

  return (
    <form class="endpoint-form" aria-label={endpoint === undefined ? 'New endpoint' : `Edit ${endpoint.url}`} onSubmit={submit}>
      <div class="field">
        <label for={`${prefix}-url`}>URL</label>
        <input
          id={`${prefix}-url`}
          ref={first}
          type="url"
          required
          maxLength={2048}
          placeholder="https://example.com/webhooks/plants"
          aria-describedby={`${prefix}-url-help`}
          value={url}
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <p class="help" id={`${prefix}-url-help`} data-testid="url-kind">
          {kind === undefined
            ? 'An http(s) URL, or a message broker where allowed: amqp(s), nats, redis(s) or mqtt(s).'
            : `Destination: ${DESTINATION_LABELS[kind]}.`}
          {hasMaskedCredentials(url) ? ' Its credentials show as ***: save the URL as it is to keep them, or type them in full to change them.' : ''}
        </p>
      </div>
      <fieldset class="field">
        <legend>Event types</legend>
        {eventTypes.map((type) => (
          <div class="check" key={type.type}>
            <input
              id={`${prefix}-type-${type.type}`}
              type="checkbox"
              checked={types.includes(type.type)}
              onChange={(event) => setTypes(event.currentTarget.checked ? [...types, type.type] : types.filter((item) => item !== type.type))}
            />
            <label for={`${prefix}-type-${type.type}`}>{type.type}</label>
          </div>
        ))}
      </fieldset>
      <div class="field">
        <label for={`${prefix}-description`}>Description (optional)</label>
        <input id={`${prefix}-description`} type="text" maxLength={1024} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
      </div>
      <div class="field">
        <label for={`${prefix}-rate`}>Rate limit, deliveries per second (optional)</label>
        <input
          id={`${prefix}-rate`}
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={rateLimit}
          onInput={(event) => setRateLimit(event.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for={`${prefix}-headers`}>Custom headers (optional), one "Name: value" per line</label>
        <textarea
          id={`${prefix}-headers`}
          rows={3}
          spellcheck={false}
          placeholder="Authorization: Bearer …"
          value={headers}
          onInput={(event) => setHeaders(event.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for={`${prefix}-ordering`}>Order</label>
        <select id={`${prefix}-ordering`} value={ordering} onChange={(event) => setOrdering(event.currentTarget.value as WebhookEndpointOrdering)}>
          <option value="none">No order kept</option>
          <option value="plant">Per plant: one plant's messages arrive in the order they were queued</option>
        </select>
      </div>
      <div class="field">
        <label for={`${prefix}-filter`}>Filter (optional): only events that match this query over {'{type, tenant, data}'} are sent</label>
        <textarea
          id={`${prefix}-filter`}
          rows={3}
          spellcheck={false}
          placeholder='{"data.tag": {"$in": ["indoor", "rare"]}}'
          value={filter}
          onInput={(event) => {
            setFilter(event.currentTarget.value);
            setTried(undefined);
          }}
        />
        <div class="actions">
          <button type="button" onClick={tryFilter}>
            Try the filter
          </button>
        </div>
        {tried === undefined ? null : (
          <ul aria-label="Filter against the examples" class="filter-check">
            {tried.results.map(({ eventType, matches }) => (
              <li key={eventType}>
                {eventType}: {matches ? 'matches' : 'does not match'}
              </li>
            ))}
          </ul>
        )}
      </div>
      {endpoint === undefined ? (
        <div class="field">
          <label for={`${prefix}-signature`}>Signature</label>
          <select id={`${prefix}-signature`} value={signature} onChange={(event) => setSignature(event.currentTarget.value as 'hmac' | 'ed25519')}>
            <option value="hmac">HMAC-SHA256 with a shared secret</option>
            <option value="ed25519">Ed25519: the receiver holds only a public key</option>
          </select>
        </div>
      ) : null}
      {problem === undefined ? null : (
        <p class="problem" role="alert">
          {problem}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {endpoint === undefined ? 'Create endpoint' : 'Save changes'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
