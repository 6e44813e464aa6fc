import { useCallback, useState, type FormEvent } from 'react';

/**
 * One action at a time for a form, a card or a list of rows: `busy` while it runs (`busyKey` says which row
 * or button, so only that one spins), the error it threw (cleared when the next one starts).
 * `run` resolves to false when the action threw, for callers that must tidy up only then.
 */
export function useAsyncAction() {
  const [busyKey, setBusyKey] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (action: () => Promise<unknown>, key = 'busy'): Promise<boolean> => {
    setBusyKey(key);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusyKey(null);
    }
  }, []);
  /** A form's submit handler: the browser does not navigate, the action runs. */
  const onSubmit = useCallback(
    (action: () => Promise<unknown>) => (e: FormEvent) => {
      e.preventDefault();
      void run(action);
    },
    [run],
  );
  return { busy: busyKey !== null, busyKey, error, setError, run, onSubmit };
}
