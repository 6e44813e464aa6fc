import { useI18n } from '../i18n/i18n.js';
import { MINI_TEXT, type MiniKey } from './miniapp-dict.js';

export { MINI_TEXT };

export function useMiniText() {
  const { lang } = useI18n();
  return (key: MiniKey, vars?: Record<string, string | number>) => {
    const s = MINI_TEXT[lang === 'en' ? 'en' : 'th'][key];
    return vars ? s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) : s;
  };
}
