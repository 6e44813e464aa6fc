import { ERROR_CODES, type ErrorCode } from '@slipcheck/sdk';

/**
 * `error.<CODE>` for every code of the SDK's error catalogue, in one language: the dashboard's words
 * for an API refusal are the catalogue's, so a code the server sends always reads as a sentence in
 * the owner's language. th.ts and en.ts spread these first and override only where the screen says
 * more (e.g. VALIDATION_ERROR with the field the server named).
 */
export function errorWords(lang: 'th' | 'en'): { readonly [K in ErrorCode as `error.${K}`]: string } {
  return Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [`error.${code}`, e[lang]])) as {
    [K in ErrorCode as `error.${K}`]: string;
  };
}
