import { useEffect, useRef, useState } from 'react';
import { api, withQuery } from './client';
import { ROUTES } from './routes';
import type { TransactionRecord } from './types';

export type LiveState = 'connecting' | 'open' | 'reconnecting';

/**
 * Subscribes to new results over server-sent events. EventSource cannot send the bearer token, so
 * each (re)connection asks for a short-lived ticket first; after a drop it reconnects with backoff and
 * passes the last seen id so the server replays what was missed.
 */
export function useLiveResults(onRecord: (r: TransactionRecord) => void, enabled = true, onResync?: () => void): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const cb = useRef(onRecord);
  cb.current = onRecord;
  const resync = useRef(onResync);
  resync.current = onResync;
  useEffect(() => {
    if (!enabled) return;
    let es: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    let lastId: string | null = null;
    let failures = 0;
    let opened = false;

    const schedule = () => {
      if (stopped) return;
      setState('reconnecting');
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures, 5));
      failures++;
      timer = setTimeout(connect, delay);
    };

    async function connect() {
      if (stopped) return;
      try {
        const { ticket } = await api<{ ticket: string }>(ROUTES.eventsTicket, { method: 'POST' });
        if (stopped) return;
        es = new EventSource(withQuery(ROUTES.events, { ticket, lastEventId: lastId }));
        es.addEventListener('ready', () => {
          failures = 0;
          setState('open');
          // Without a last id the server cannot replay what happened while we were away: refetch instead.
          if (opened && !lastId) resync.current?.();
          opened = true;
        });
        es.addEventListener('transaction.created', (ev) => {
          const me = ev as MessageEvent<string>;
          if (me.lastEventId) lastId = me.lastEventId;
          try {
            cb.current(JSON.parse(me.data) as TransactionRecord);
          } catch {
            /* ignore a malformed event */
          }
        });
        es.onerror = () => {
          // The browser retries by itself with the same (expired) ticket; take over with a fresh one.
          es?.close();
          es = null;
          schedule();
        };
      } catch {
        schedule();
      }
    }

    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      es?.close();
    };
  }, [enabled]);
  return state;
}
