/**
 * Masking as real checkers return it. The same account is shown differently depending on which
 * bank printed it and in which direction, e.g. 123-4-56660-9 appears as `xxx-x-x6660-x`
 * (KBank->KBank), `XXX-X-XX660-9` (KTB->KBank) or `xxx-xxx660-9` (SCB). The server's receiver
 * matching must cope with all of them, so the sandbox picks a style deterministically per bank pair.
 */

export type MaskStyle = 'kbank' | 'ktb' | 'scb' | 'bbl' | 'last4';
const STYLES: MaskStyle[] = ['kbank', 'ktb', 'scb', 'bbl', 'last4'];

/** Hand-picked pairs matching slips seen in the wild; every other pair is hashed onto a style. */
const KNOWN: Record<string, MaskStyle> = {
  '004>004': 'kbank',
  '006>004': 'ktb',
  '014>004': 'scb',
  '014>014': 'scb',
  '002>004': 'bbl',
};

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

export function maskStyleFor(sendingBank: string, receivingBank: string, role: 'sender' | 'receiver'): MaskStyle {
  const known = KNOWN[`${sendingBank}>${receivingBank}`];
  if (known && role === 'receiver') return known;
  return STYLES[hash(`${sendingBank}>${receivingBank}:${role}`) % STYLES.length];
}

/** Each style: digit groups for a 10-digit account, which digit indexes stay visible, mask char. */
const LAYOUT: Record<MaskStyle, { groups: number[]; visible: [number, number]; x: string }> = {
  kbank: { groups: [3, 1, 5, 1], visible: [5, 8], x: 'x' },
  ktb: { groups: [3, 1, 5, 1], visible: [6, 9], x: 'X' },
  scb: { groups: [3, 6, 1], visible: [6, 9], x: 'x' },
  bbl: { groups: [3, 1, 5, 1], visible: [4, 8], x: 'X' },
  last4: { groups: [10], visible: [6, 9], x: 'x' },
};

export function maskAccount(account: string, style: MaskStyle): string {
  const digits = account.replace(/\D/g, '');
  const l = LAYOUT[style];
  if (digits.length !== 10) {
    // Accounts of other lengths (GSB, BAAC use 12) are shown with the last four digits only.
    return l.x.repeat(Math.max(0, digits.length - 4)) + digits.slice(-4);
  }
  const masked = [...digits].map((d, i) => (i >= l.visible[0] && i <= l.visible[1] ? d : l.x)).join('');
  const parts: string[] = [];
  let at = 0;
  for (const g of l.groups) {
    parts.push(masked.slice(at, at + g));
    at += g;
  }
  return parts.join('-');
}

export function maskProxy(type: 'PHONE' | 'NATID' | 'EWALLET', value: string): string {
  const d = value.replace(/\D/g, '');
  if (type === 'PHONE') return `xxx-xxx-${d.slice(-4)}`;
  if (type === 'NATID') return `x-xxxx-xxxxx-${d.slice(-3, -1)}-${d.slice(-1)}`;
  return 'x'.repeat(Math.max(0, d.length - 4)) + d.slice(-4);
}

const TITLES = /^(นาย|นางสาว|นาง|น\.ส\.|ด\.ช\.|ด\.ญ\.|MR\.?|MRS\.?|MS\.?|MISS)\s*/i;

/**
 * Some banks print the full name, others the first name plus the first letter of the surname
 * ("นาย สมชาย ใ", "MR. SOMCHAI J"). Which one is deterministic per bank pair and role.
 */
export function displayName(name: string, sendingBank: string, receivingBank: string, role: 'sender' | 'receiver'): string {
  const partial = hash(`${sendingBank}>${receivingBank}:${role}:name`) % 2 === 0;
  if (!partial) return name;
  const m = name.match(TITLES);
  const title = m ? m[1] : '';
  const rest = name
    .slice(m ? m[0].length : 0)
    .trim()
    .split(/\s+/);
  // Companies (บจก., บริษัท ...) keep their full name on every slip.
  if (rest.length < 2 || /บจก|บริษัท|CO\.|LTD|LIMITED/i.test(name)) return name;
  const first = rest[0];
  const initial = [...rest[rest.length - 1]][0];
  return [title, first, initial].filter(Boolean).join(' ');
}
