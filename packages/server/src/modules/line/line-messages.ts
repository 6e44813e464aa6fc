import type { TransactionRecord } from '../transactions/transaction-record.js';
import type { LineMessage } from './line-client.js';

/**
 * Everything the bot says, in Thai first and English for shops that chose it. Shop owners and staff
 * read these on a phone in a busy chat: short lines, the verdict first, then what to do.
 */
export type Lang = 'th' | 'en';

const text = (t: string): LineMessage => ({ type: 'text', text: t });

const T = {
  joinPrompt: {
    th: 'สวัสดีค่ะ 🙏 ระบบตรวจสลิปพร้อมใช้งานในกลุ่มนี้แล้ว\nเจ้าของร้านโปรดพิมพ์ "รหัสเชื่อมต่อ" จากหน้าแดชบอร์ด (เมนู LINE) ลงในกลุ่มนี้ เพื่อเชื่อมกลุ่มกับร้าน',
    en: 'Hello! To start checking slips in this group, the shop owner should type the link code from the dashboard (LINE page) here.',
  },
  groupLinked: {
    th: (shop: string) => `✅ เชื่อมกลุ่มนี้กับร้าน "${shop}" แล้ว\nส่งรูปสลิปในกลุ่มได้เลย ระบบจะตรวจให้อัตโนมัติ\nพิมพ์ "ยกเลิก" เพื่อยกเลิกการเชื่อมต่อ (เฉพาะผู้ที่เชื่อมต่อ)`,
    en: (shop: string) => `✅ This group is now linked to "${shop}".\nPost slip images here and they are checked automatically.\nType "unlink" to disconnect (only the person who linked it).`,
  },
  groupAlreadyLinked: {
    th: 'กลุ่มนี้เชื่อมกับร้านอยู่แล้วค่ะ',
    en: 'This group is already linked.',
  },
  ownerLinked: {
    th: (shop: string) => `✅ เชื่อมบัญชี LINE ของคุณกับร้าน "${shop}" แล้ว\nคุณจะได้รับการแจ้งเตือนสำคัญของร้านทางแชทนี้`,
    en: (shop: string) => `✅ Your LINE account is now linked to "${shop}".\nYou will receive the shop's important alerts in this chat.`,
  },
  ownerAlreadyLinked: {
    th: 'บัญชี LINE นี้เชื่อมกับร้านอยู่แล้วค่ะ',
    en: 'This LINE account is already linked to the shop.',
  },
  ownerUnlinked: {
    th: 'ยกเลิกการรับแจ้งเตือนของร้านทางแชทนี้แล้วค่ะ',
    en: 'You will no longer receive the shop\'s alerts in this chat.',
  },
  codeInvalid: {
    th: 'รหัสเชื่อมต่อไม่ถูกต้อง โปรดตรวจสอบรหัสจากหน้าแดชบอร์ดอีกครั้ง',
    en: 'That link code is not valid. Please check the code in the dashboard.',
  },
  codeExpired: {
    th: 'รหัสเชื่อมต่อหมดอายุแล้ว โปรดสร้างรหัสใหม่ในหน้าแดชบอร์ด',
    en: 'That link code has expired. Please create a new one in the dashboard.',
  },
  codeUsed: {
    th: 'รหัสเชื่อมต่อนี้ถูกใช้ไปแล้ว (ใช้ได้ครั้งเดียว) โปรดสร้างรหัสใหม่ในหน้าแดชบอร์ด',
    en: 'That link code was already used (codes work once). Please create a new one in the dashboard.',
  },
  groupLimit: {
    th: (n: number) => `ไม่สามารถเชื่อมกลุ่มนี้ได้: แพ็กเกจปัจจุบันใช้ได้สูงสุด ${n} กลุ่ม\nยกเลิกการเชื่อมต่อกลุ่มอื่นในแดชบอร์ด หรืออัปเกรดแพ็กเกจ`,
    en: (n: number) => `This group cannot be linked: your plan allows at most ${n} group(s).\nUnlink another group in the dashboard or upgrade your plan.`,
  },
  groupUnlinked: {
    th: 'ยกเลิกการเชื่อมกลุ่มนี้กับร้านแล้ว ระบบจะไม่ตรวจสลิปในกลุ่มนี้อีก',
    en: 'This group is no longer linked to the shop; slips here will not be checked.',
  },
  notLinker: {
    th: 'เฉพาะผู้ที่เชื่อมกลุ่มนี้ หรือเจ้าของร้านผ่านแดชบอร์ด เท่านั้นที่ยกเลิกการเชื่อมต่อได้',
    en: 'Only the person who linked this group (or the owner in the dashboard) can unlink it.',
  },
  quotaExhausted: {
    th: 'ขออภัยค่ะ ขณะนี้ร้านใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว จึงยังตรวจสลิปนี้ไม่ได้\nทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏',
    en: 'Sorry, the shop has used up this month\'s slip checks, so this slip could not be checked automatically.\nThe shop will confirm your payment manually.',
  },
  trialEnded: {
    th: 'ขออภัยค่ะ ช่วงทดลองใช้ของร้านสิ้นสุดแล้ว จึงยังตรวจสลิปนี้อัตโนมัติไม่ได้\nทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏',
    en: 'Sorry, the shop\'s trial has ended, so this slip could not be checked automatically.\nThe shop will confirm your payment manually.',
  },
  contentGone: {
    th: 'ไม่สามารถเปิดรูปนี้ได้แล้ว (รูปหมดอายุ) โปรดส่งรูปสลิปอีกครั้งค่ะ',
    en: 'That image is no longer available. Please send the slip image again.',
  },
  contentFailed: {
    th: 'ขออภัยค่ะ ดาวน์โหลดรูปจาก LINE ไม่สำเร็จ โปรดส่งรูปสลิปอีกครั้งในอีกสักครู่',
    en: 'Sorry, the image could not be downloaded from LINE. Please send the slip again in a moment.',
  },
  tooLarge: {
    th: 'รูปมีขนาดใหญ่เกินไป โปรดส่งภาพหน้าจอสลิปแทนค่ะ',
    en: 'The image is too large. Please send a screenshot of the slip instead.',
  },
  badImage: {
    th: 'ไม่ใช่รูปที่ตรวจได้ โปรดส่งรูปสลิป (JPEG หรือ PNG) ค่ะ',
    en: 'This image cannot be checked. Please send the slip as a JPEG or PNG picture.',
  },
  noPayee: {
    th: 'ร้านยังไม่ได้ตั้งค่าบัญชีรับเงิน จึงยังตรวจสลิปไม่ได้ เจ้าของร้านโปรดเพิ่มบัญชีรับเงินในแดชบอร์ด',
    en: 'The shop has not set up a receiving account yet, so slips cannot be checked. The owner should add one in the dashboard.',
  },
} as const;

export const msg = {
  joinPrompt: (l: Lang) => [text(T.joinPrompt[l])],
  groupLinked: (l: Lang, shop: string) => [text(T.groupLinked[l](shop))],
  groupAlreadyLinked: (l: Lang) => [text(T.groupAlreadyLinked[l])],
  ownerLinked: (l: Lang, shop: string) => [text(T.ownerLinked[l](shop))],
  ownerAlreadyLinked: (l: Lang) => [text(T.ownerAlreadyLinked[l])],
  ownerUnlinked: (l: Lang) => [text(T.ownerUnlinked[l])],
  codeInvalid: (l: Lang) => [text(T.codeInvalid[l])],
  codeExpired: (l: Lang) => [text(T.codeExpired[l])],
  codeUsed: (l: Lang) => [text(T.codeUsed[l])],
  groupLimit: (l: Lang, n: number) => [text(T.groupLimit[l](n))],
  groupUnlinked: (l: Lang) => [text(T.groupUnlinked[l])],
  notLinker: (l: Lang) => [text(T.notLinker[l])],
  quotaExhausted: (l: Lang) => [text(T.quotaExhausted[l])],
  trialEnded: (l: Lang) => [text(T.trialEnded[l])],
  contentGone: (l: Lang) => [text(T.contentGone[l])],
  contentFailed: (l: Lang) => [text(T.contentFailed[l])],
  tooLarge: (l: Lang) => [text(T.tooLarge[l])],
  badImage: (l: Lang) => [text(T.badImage[l])],
  noPayee: (l: Lang) => [text(T.noPayee[l])],
};

const STATUS: Record<string, { th: string; en: string; color: string; advice?: { th: string; en: string } }> = {
  SUCCESS: { th: '✅ สลิปถูกต้อง', en: '✅ Slip verified', color: '#1DB446' },
  DUPLICATE: {
    th: '⚠️ สลิปซ้ำ', en: '⚠️ Duplicate slip', color: '#E67E22',
    advice: { th: 'รายการโอนนี้เคยใช้ยืนยันไปแล้ว อย่าส่งสินค้าหรือบันทึกยอดซ้ำ', en: 'This transfer was already used. Do not hand over goods or credit the order twice.' },
  },
  AMOUNT_MISMATCH: {
    th: '⚠️ ยอดเงินไม่ตรง', en: '⚠️ Amount does not match', color: '#E67E22',
    advice: { th: 'ตรวจยอดโอนเทียบกับยอดสั่งซื้ออีกครั้ง', en: 'Compare the transferred amount with the order total.' },
  },
  RECEIVER_MISMATCH: {
    th: '❌ บัญชีผู้รับไม่ใช่ของร้าน', en: '❌ Paid to another account', color: '#D32F2F',
    advice: { th: 'เงินไม่ได้โอนเข้าบัญชีของร้าน ตรวจบัญชีรับเงินในแดชบอร์ด หรือขอให้ลูกค้าตรวจสอบการโอน', en: 'The money did not go to the shop\'s account. Check the receiving accounts in the dashboard, or ask the customer to check the transfer.' },
  },
  INVALID: {
    th: '❌ สลิปไม่ถูกต้อง', en: '❌ Invalid slip', color: '#D32F2F',
    advice: { th: 'อ่านสลิปไม่ได้หรือไม่ใช่สลิปล่าสุด ขอให้ลูกค้าส่งรูปสลิปที่ชัดเจนอีกครั้ง', en: 'The slip could not be read or is not a recent one. Ask the customer for a clear image of the slip.' },
  },
  FRAUD: {
    th: '🚫 สลิปไม่ตรงกับข้อมูลธนาคาร', en: '🚫 Slip does not match bank data', color: '#B71C1C',
    advice: { th: 'อาจเป็นสลิปปลอม อย่าส่งสินค้า ตรวจยอดเงินเข้าในแอปธนาคารก่อน', en: 'This may be a forged slip. Do not hand over goods; check your bank app for the incoming money first.' },
  },
  QUOTA_EXCEEDED: {
    th: '⏸️ ใช้สิทธิ์ตรวจครบแล้ว', en: '⏸️ Slip checks used up', color: '#757575',
    advice: { th: 'ตรวจยอดเงินเข้าด้วยตนเอง หรืออัปเกรดแพ็กเกจในแดชบอร์ด', en: 'Confirm the payment manually, or upgrade the plan in the dashboard.' },
  },
  PROVIDER_ERROR: {
    th: '⏳ ตรวจสอบไม่ได้ชั่วคราว', en: '⏳ Could not check right now', color: '#757575',
    advice: { th: 'ระบบธนาคารขัดข้องชั่วคราว โปรดส่งสลิปอีกครั้งในอีกสักครู่', en: 'The bank check is temporarily unavailable. Please send the slip again in a moment.' },
  },
};

const REPLAYED = {
  th: '⚠️ สลิปนี้เคยส่งแล้ว', en: '⚠️ Slip already sent', color: '#E67E22',
  advice: { th: 'รูปสลิปนี้ถูกตรวจและยืนยันไปแล้ว อย่าส่งสินค้าหรือบันทึกยอดซ้ำ', en: 'This slip image was already checked and accepted. Do not hand over goods or credit the order twice.' },
};

const LABELS = {
  checkedAt: { th: 'ตรวจครั้งแรกเมื่อ', en: 'First checked' },
  amount: { th: 'ยอดเงิน', en: 'Amount' },
  sender: { th: 'ผู้โอน', en: 'From' },
  receiver: { th: 'ผู้รับ', en: 'To' },
  time: { th: 'เวลาโอน', en: 'Time' },
  ref: { th: 'เลขอ้างอิง', en: 'Ref.' },
  cached: { th: 'รูปนี้เคยตรวจแล้ว (ผลเดิม)', en: 'This image was checked before (earlier result)' },
  stale: { th: 'สลิปนี้เก่ากว่าที่กำหนด โปรดตรวจสอบว่าเป็นการโอนล่าสุด', en: 'This slip is older than usual; make sure it is a recent transfer.' },
  staleInvalid: { th: 'สลิปเก่าเกินกำหนด ขอให้ลูกค้าส่งสลิปของการโอนล่าสุด', en: 'The slip is too old. Ask the customer for the slip of the latest transfer.' },
};

export function formatAmount(amount: number | null, l: Lang): string {
  if (amount === null) return '-';
  const n = new Intl.NumberFormat(l === 'th' ? 'th-TH' : 'en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount);
  return l === 'th' ? `${n} บาท` : `THB ${n}`;
}

export function formatTime(iso: string | null, l: Lang, timeZone: string): string {
  if (!iso) return '-';
  return new Intl.DateTimeFormat(l === 'th' ? 'th-TH' : 'en-GB', {
    timeZone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  }).format(new Date(iso));
}

const row = (label: string, value: string): LineMessage => ({
  type: 'box', layout: 'baseline', spacing: 'sm', contents: [
    { type: 'text', text: label, size: 'sm', color: '#8C8C8C', flex: 2 },
    { type: 'text', text: value || '-', size: 'sm', color: '#333333', flex: 5, wrap: true },
  ],
});

/** One Flex bubble: verdict header, the slip's facts, and for a failure what to do next. */
export function resultMessage(r: TransactionRecord, l: Lang, timeZone: string): LineMessage {
  // The same picture sent again replays the earlier record; in a chat a second green tick would
  // invite paying out twice, so a replayed SUCCESS is shown as "already sent".
  const replayedSuccess = r.cached && r.status === 'SUCCESS';
  const s = replayedSuccess ? REPLAYED : STATUS[r.status] ?? STATUS.INVALID!;
  const title = s[l];
  const facts: LineMessage[] = [
    row(LABELS.amount[l], formatAmount(r.amount, l)),
    row(LABELS.sender[l], [r.senderName, r.bankName].filter(Boolean).join(' · ')),
    row(LABELS.receiver[l], [r.receiverName, r.receiverAccount].filter(Boolean).join(' · ')),
    row(LABELS.time[l], formatTime(r.transDate, l, timeZone)),
  ];
  if (r.transRef) facts.push(row(LABELS.ref[l], r.transRef));
  const notes: string[] = [];
  if (r.errorCode === 'STALE_SLIP') notes.push(LABELS.staleInvalid[l]);
  else if (s.advice) notes.push(s.advice[l]);
  if (r.status === 'SUCCESS' && r.stale) notes.push(LABELS.stale[l]);
  if (replayedSuccess) notes.push(`${LABELS.checkedAt[l]} ${formatTime(r.createdAt, l, timeZone)}`);
  else if (r.cached) notes.push(LABELS.cached[l]);
  const body: LineMessage[] = [{ type: 'box', layout: 'vertical', spacing: 'sm', contents: facts }];
  if (notes.length) {
    body.push({ type: 'separator', margin: 'md' });
    for (const n of notes) body.push({ type: 'text', text: n, size: 'sm', color: '#555555', wrap: true, margin: 'md' });
  }
  const alt = `${title} ${r.amount !== null ? formatAmount(r.amount, l) : ''}`.trim();
  return {
    type: 'flex', altText: alt.slice(0, 400),
    contents: {
      type: 'bubble', size: 'kilo',
      header: { type: 'box', layout: 'vertical', backgroundColor: s.color, paddingAll: '12px', contents: [{ type: 'text', text: title, color: '#FFFFFF', weight: 'bold', size: 'md', wrap: true }] },
      body: { type: 'box', layout: 'vertical', spacing: 'md', contents: body },
    },
  };
}

/** Owner alerts pushed to the owner's LINE user. */
export function ownerAlertMessage(type: string, l: Lang, ctx: { shopName: string; amount?: string; trialEndsAt?: string; used?: number; limit?: number }): LineMessage[] {
  const shop = ctx.shopName;
  const lines: Record<string, { th: string; en: string }> = {
    STALE_SLIP: {
      th: `⚠️ ร้าน "${shop}": ได้รับสลิปเก่า${ctx.amount ? ` (${ctx.amount})` : ''} โปรดตรวจสอบว่าเป็นการโอนล่าสุดก่อนส่งสินค้า`,
      en: `⚠️ "${shop}": an old slip was received${ctx.amount ? ` (${ctx.amount})` : ''}. Check that it is a recent transfer before handing over goods.`,
    },
    QUOTA_80: {
      th: `📊 ร้าน "${shop}": ใช้สิทธิ์ตรวจสลิปเดือนนี้ไปแล้ว 80%${ctx.limit ? ` (${ctx.used ?? '-'}/${ctx.limit})` : ''} พิจารณาอัปเกรดแพ็กเกจในแดชบอร์ด`,
      en: `📊 "${shop}": 80% of this month's slip checks are used${ctx.limit ? ` (${ctx.used ?? '-'}/${ctx.limit})` : ''}. Consider upgrading in the dashboard.`,
    },
    QUOTA_100: {
      th: `⛔ ร้าน "${shop}": ใช้สิทธิ์ตรวจสลิปเดือนนี้ครบแล้ว สลิปใหม่จะยังไม่ถูกตรวจจนถึงเดือนหน้าหรือจนกว่าจะอัปเกรดแพ็กเกจ`,
      en: `⛔ "${shop}": this month's slip checks are used up. New slips are not checked until next month or a plan upgrade.`,
    },
    TRIAL_ENDING: {
      th: `⏰ ร้าน "${shop}": ช่วงทดลองใช้จะสิ้นสุด${ctx.trialEndsAt ? ` ${ctx.trialEndsAt}` : 'เร็ว ๆ นี้'} เลือกแพ็กเกจในแดชบอร์ดเพื่อใช้งานต่อเนื่อง`,
      en: `⏰ "${shop}": the trial ends${ctx.trialEndsAt ? ` ${ctx.trialEndsAt}` : ' soon'}. Choose a plan in the dashboard to keep checking slips.`,
    },
  };
  const t = lines[type];
  return t ? [text(t[l])] : [];
}
