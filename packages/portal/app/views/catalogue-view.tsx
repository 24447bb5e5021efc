import { prettyJson, usePortal, ViewSection } from '../ui/parts.js';

/** Every event type an endpoint can receive, with the JSON Schema of its body and an example. */
export function CatalogueView() {
  const { eventTypes } = usePortal();
  return (
    <ViewSection title="Event catalogue">
      <p>
        Each delivery is a POST of one event's body as JSON, signed as Standard Webhooks describes, with the event type in the <code>plant-store-event</code>{' '}
        header.
      </p>
      {eventTypes.map((type) => {
        const id = `event-${type.type.replace(/[^a-z0-9-]/gi, '-')}`;
        return (
          <article class="card event-type" key={type.type} aria-labelledby={id}>
            <h3 id={id}>
              <code>{type.type}</code>
            </h3>
            <p>{type.description}</p>
            <div class="columns">
              {[['schema', 'JSON Schema', type.schema] as const, ['example', 'Example', type.example] as const].map(([part, title, value]) => (
                <div key={part}>
                  <h4 id={`${id}-${part}`}>{title}</h4>
                  <pre tabIndex={0} role="region" aria-labelledby={`${id}-${part}`}>
                    {prettyJson(value)}
                  </pre>
                </div>
              ))}
            </div>
          </article>
        );
      })}
    </ViewSection>
  );
}
