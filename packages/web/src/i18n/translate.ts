// The dashboard's words by key, in a plain module (no React) so tests outside the web build can render
// a message exactly as the screen does.
import { en } from './en.js';
import { th, type MessageKey } from './th.js';

export type Lang = 'th' | 'en';
const DICTS: Record<Lang, Record<MessageKey, string>> = { th, en };

/**
 * `{n|one|other}`: the word for a count, by the language's plural rule ("1 slip", "2 slips"). Thai has
 * no plural and does not use it; English does, so a count never reads "1 slips".
 */
const PLURAL = /\{(\w+)\|([^|{}]*)\|([^|{}]*)\}/g;
const pluralRules = { th: new Intl.PluralRules('th'), en: new Intl.PluralRules('en') };

/** `{name}` placeholders and `{name|one|other}` plurals; unknown keys fall back to Thai so a gap never shows a raw key. */
export function translate(lang: Lang, key: MessageKey, vars?: Record<string, string | number>): string {
  const s = DICTS[lang][key] ?? th[key] ?? key;
  if (!vars) return s;
  return s
    .replace(PLURAL, (m, k: string, one: string, other: string) =>
      // Counts arrive as numbers or as locale-formatted text ("1,250"): only an exact 1 reads as one.
      k in vars ? (pluralRules[lang].select(Number(vars[k])) === 'one' ? one : other) : m,
    )
    .replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}
