import { prettyJson } from '../ui/format.js';
import { usePortal } from '../ui/portal-context.js';
import { ViewSection } from '../ui/view-heading.js';

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
              <div>
                <h4 id={`${id}-schema`}>JSON Schema</h4>
                <pre tabIndex={0} role="region" aria-labelledby={`${id}-schema`}>
                  {prettyJson(type.schema)}
                </pre>
              </div>
              <div>
                <h4 id={`${id}-example`}>Example</h4>
                <pre tabIndex={0} role="region" aria-labelledby={`${id}-example`}>
                  {prettyJson(type.example)}
                </pre>
              </div>
            </div>
          </article>
        );
      })}
    </ViewSection>
  );
}
