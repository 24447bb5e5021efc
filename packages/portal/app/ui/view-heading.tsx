import type { ComponentChildren } from 'preact';

// Every view's section is labelled by its heading, and the page moves focus
// to that heading when the view changes: one id for both, kept here.
const VIEW_HEADING_ID = 'view-heading';

/** Moves focus to the current view's heading (after the view changed, or a form closed). */
export function focusViewHeading(): void {
  document.getElementById(VIEW_HEADING_ID)?.focus();
}

interface ViewSectionProps {
  readonly title: string;
  /** Buttons beside the heading. */
  readonly actions?: ComponentChildren;
  readonly children?: ComponentChildren;
}

/** A view: a section labelled by its heading (focusable, not tabbable), the heading's actions beside it. */
export function ViewSection({ title, actions, children }: ViewSectionProps) {
  return (
    <section aria-labelledby={VIEW_HEADING_ID}>
      <div class="view-head">
        <h2 id={VIEW_HEADING_ID} tabIndex={-1}>
          {title}
        </h2>
        {actions === undefined ? null : <div class="actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
