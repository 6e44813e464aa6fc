import { describe, expect, it } from 'vitest';
import { STATUS_COLOR } from '../src/components/status';

// Okabe & Ito's palette for colour-vision deficiency, plus grey and black.
const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#000000', '#999999'];

describe('status colours', () => {
  it('come from the Okabe-Ito palette, one colour per status (issue 21: duplicate and mismatch were two near-identical oranges)', () => {
    const colours = Object.values(STATUS_COLOR);
    for (const c of colours) expect(OKABE_ITO).toContain(c);
    expect(new Set(colours).size).toBe(colours.length);
    expect(STATUS_COLOR.DUPLICATE).not.toBe(STATUS_COLOR.AMOUNT_MISMATCH);
  });
});
