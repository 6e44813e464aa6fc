import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { messagingApi } from '@line/bot-sdk';
import { resultMessage, type ResultContext } from '../../src/modules/line/line-messages.js';
import type { TransactionRecord } from '../../src/modules/transactions/transaction-record.js';
import { HAS_CHROMIUM, launchChromium, warnIfNoChromium } from '../helpers/browser.js';

/**
 * Pictures of the LINE result bubbles for reviewers (fresh, replay, duplicate, mismatch; Thai and
 * English). LINE renders Flex itself: this is a small HTML renderer of the same Flex JSON (boxes,
 * texts, separators, colours, flex ratios), an APPROXIMATION labelled as such on every picture.
 * Written to test-output/screenshots, or to docs/screens when SLIPCHECK_UPDATE_SCREENS=1.
 */
warnIfNoChromium('LINE bubbles');
const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCREENS =
  process.env.SLIPCHECK_UPDATE_SCREENS === '1'
    ? path.resolve(HERE, '../../../../docs/screens')
    : path.resolve(HERE, '../../test-output/screenshots');
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);

function render(c: messagingApi.FlexComponent | messagingApi.FlexBox): string {
  if (c.type === 'separator') return '<hr style="border:0;border-top:1px solid #ddd;margin:10px 0">';
  if (c.type === 'text') {
    const size = { sm: 13, md: 15 }[String(c.size)] ?? 14;
    return `<div style="flex:${c.flex ?? 1};font-size:${size}px;color:${c.color ?? '#111'};font-weight:${c.weight === 'bold' ? 700 : 400};margin-top:${c.margin ? 8 : 0}px;white-space:${c.wrap ? 'pre-wrap' : 'nowrap'};overflow:hidden">${esc(c.text ?? '')}</div>`;
  }
  if (c.type === 'box') {
    const row = c.layout !== 'vertical';
    return `<div style="display:flex;flex-direction:${row ? 'row' : 'column'};gap:${c.spacing ? 6 : 0}px;${c.backgroundColor ? `background:${c.backgroundColor};` : ''}${c.paddingAll ? `padding:${c.paddingAll};` : ''}align-items:${row ? 'baseline' : 'stretch'}">${c.contents.map(render).join('')}</div>`;
  }
  return '';
}
function page(m: messagingApi.FlexMessage, label: string): string {
  const b = m.contents as messagingApi.FlexBubble;
  return `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#8CABD9;font-family:'Noto Sans Thai','Noto Sans',sans-serif;width:360px">
<div style="padding:16px"><div id="bubble" style="width:300px;border-radius:14px;overflow:hidden;background:#fff;box-shadow:0 1px 2px #0003">
${b.header ? render(b.header) : ''}<div style="padding:14px">${b.body ? render(b.body) : ''}</div></div>
<p style="font:11px sans-serif;color:#fff;margin:8px 0 0">${esc(label)} - approximation of LINE's Flex rendering</p></div></body>`;
}

const base: TransactionRecord = {
  id: 'tx_demo',
  status: 'SUCCESS',
  verified: true,
  transRef: '2026112312345678',
  amount: 1250.5,
  bankCode: '014',
  bankName: 'Siam Commercial Bank',
  senderName: 'นาย สมชาย ใ',
  senderAccount: 'xxx-x-x4567-x',
  receiverName: 'บจก. ร้านกาแฟ ทดสอบ',
  receiverAccount: 'xxx-xxx660-9',
  transDate: '2026-11-23T03:15:00Z',
  errorCode: null,
  errorMessage: null,
  createdAt: '2026-11-23T03:16:00Z',
  duplicate: false,
  cached: false,
  latencyMs: 900,
  environment: 'live',
  source: 'LINE',
  clientRef: null,
  stale: false,
  printedAmount: null,
  edited: false,
};
const CASES: Array<{ name: string; rec: TransactionRecord; ctx: ResultContext }> = [
  { name: 'fresh', rec: base, ctx: { audience: 'customer', replay: false } },
  { name: 'replay', rec: { ...base, cached: true }, ctx: { audience: 'staff', replay: true } },
  {
    name: 'duplicate',
    rec: { ...base, status: 'DUPLICATE', verified: false, duplicate: true, errorCode: 'DUPLICATE', createdAt: '2026-11-23T05:40:00Z' },
    ctx: { audience: 'staff', replay: false, original: { amount: 1250.5, createdAt: '2026-11-23T03:16:00Z' } },
  },
  {
    name: 'mismatch',
    rec: { ...base, status: 'AMOUNT_MISMATCH', verified: false, errorCode: 'AMOUNT_MISMATCH' },
    ctx: { audience: 'customer', replay: false },
  },
];

describe.skipIf(!HAS_CHROMIUM)('LINE bubbles as pictures (approximation)', () => {
  let browser: import('playwright-core').Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    fs.mkdirSync(SCREENS, { recursive: true });
  });
  afterAll(async () => browser?.close());

  it('renders fresh, replay, duplicate and mismatch bubbles in Thai and English', async () => {
    const p = await browser.newPage({ viewport: { width: 360, height: 400 } });
    for (const c of CASES)
      for (const l of ['th', 'en'] as const) {
        const m = resultMessage(c.rec, l, 'Asia/Bangkok', c.ctx);
        await p.setContent(page(m, `${c.name} · ${c.ctx.audience === 'customer' ? '1:1 (customer)' : 'group (staff)'} · ${l}`));
        const header = (m.contents as messagingApi.FlexBubble).header!;
        // The picture shows the bubble's own verdict and colour.
        expect(await p.locator('#bubble').innerText()).toContain((header.contents[0] as messagingApi.FlexText).text!);
        const bg = await p
          .locator('#bubble > div')
          .first()
          .evaluate((el) => getComputedStyle(el).backgroundColor);
        expect(bg).toMatch(c.name === 'fresh' ? /rgb\(29, 180, 70\)/ : /rgb\(230, 126, 34\)/);
        await p.locator('body > div').screenshot({ path: path.join(SCREENS, `line-bubble-${c.name}-${l}.png`) });
      }
    await p.close();
  });
});
