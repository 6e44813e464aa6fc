import { useEffect, useState, type FormEvent } from 'react';
import { useAsyncAction } from './use-async-action';
import { useLoad } from './use-load';

/**
 * A settings form that loads its values, is edited as a local copy and saved as a whole: `form` is null
 * until the first load, follows every later load (and the saved answer), `saved` shows after a save went
 * through and clears when the next one starts. `save` returns what the server now holds.
 */
export function useSavedForm<T>(load: () => Promise<T>, save: (form: T) => Promise<T>, afterSave?: () => Promise<unknown> | void) {
  const loaded = useLoad(load);
  const [form, setForm] = useState<T | null>(null);
  const [saved, setSaved] = useState(false);
  const { busy, error, run } = useAsyncAction();
  useEffect(() => {
    if (loaded.data) setForm(loaded.data);
  }, [loaded.data]);
  function submit(e: FormEvent) {
    e.preventDefault();
    if (!form) return;
    setSaved(false);
    void run(async () => {
      loaded.setData(await save(form));
      setSaved(true);
      await afterSave?.();
    });
  }
  return { loaded, form, setForm, saved, busy, error, submit };
}
