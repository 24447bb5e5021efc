import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useState } from 'preact/hooks';

export type Tone = 'info' | 'success' | 'error';

interface Announcement {
  readonly text: string;
  readonly tone: Tone;
  /** Distinguishes two equal messages in a row, so the second is read out too. */
  readonly serial: number;
}

type Announce = (text: string, tone?: Tone) => void;

const AnnounceContext = createContext<Announce>(() => undefined);

/** Tells the reader, and a screen reader through the live region, what an action did. */
export function useAnnounce(): Announce {
  return useContext(AnnounceContext);
}

/** The page's one polite status region, present from the start (one added later is not read out), showing the last message. */
export function Announcer({ children }: { readonly children: ComponentChildren }) {
  const [current, setCurrent] = useState<Announcement | undefined>(undefined);
  const announce = useCallback<Announce>((text, tone = 'info') => {
    setCurrent((previous) => ({ text, tone, serial: (previous?.serial ?? 0) + 1 }));
  }, []);
  return (
    <AnnounceContext.Provider value={announce}>
      <div class={`status status-${current?.tone ?? 'info'}`} role="status" aria-live="polite" aria-atomic="true" data-testid="status">
        {current === undefined ? null : <p key={current.serial}>{current.text}</p>}
      </div>
      {children}
    </AnnounceContext.Provider>
  );
}
