import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Loads data on mount, when `key` changes (e.g. the id on the page) and on `reload()`; keeps the
 * previous data while reloading so the page does not flash. One key, not a dependency list: the hooks
 * linter can check a fixed list, and every caller needs one value at most.
 */
export function useLoad<T>(fn: () => Promise<T>, key?: unknown) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const n = ++seq.current;
    setLoading(true);
    try {
      const d = await fnRef.current();
      if (n === seq.current) {
        setData(d);
        setError(null);
      }
    } catch (e) {
      if (n === seq.current) setError(e);
    } finally {
      if (n === seq.current) setLoading(false);
    }
  }, []);
  useEffect(() => {
    void reload();
  }, [reload, key]);
  return { data, error, loading, reload, setData };
}
