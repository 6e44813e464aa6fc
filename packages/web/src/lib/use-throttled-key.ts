import { useEffect, useRef, useState } from 'react';

/**
 * `key`, changing at most once per `ms`: a change after a quiet spell passes at once; changes inside
 * the window are folded into one at its end, so the last one is never lost. For a reload key fed by
 * live events, where each reload is a costly query (the money card's sums).
 */
export function useThrottledKey<K>(key: K, ms: number): K {
  const [out, setOut] = useState(key);
  const last = useRef(0);
  useEffect(() => {
    if (Object.is(key, out)) return;
    const pass = () => {
      last.current = Date.now();
      setOut(key);
    };
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      pass();
      return;
    }
    const timer = setTimeout(pass, wait);
    return () => clearTimeout(timer);
  }, [key, ms, out]);
  return out;
}
