import type { messagingApi } from '@line/bot-sdk';
import type { TransactionRecord } from '../transactions/transaction-record.js';
import type { LineMessage } from './line-client.js';
import { formatSatang, satangFromAmount } from '../../lib/money.js';
import { bankWord, resultWord, STALE_WORD, statusWord } from '@slipcheck/sdk';

/**
 * Everything the bot says, in Thai first and English for shops that chose it. Shop owners and staff
 * read these on a phone in a busy chat: short lines, the verdict first, then what to do.
 */
export type Lang = 'th' | 'en';

const text = (t: string): messagingApi.TextMessage => ({ type: 'text', text: t });

const T = {
  // Says how to link first: slips are not checked here until the group is linked.
  joinPrompt: {
    th: 'สวัสดีค่ะ 🙏 กลุ่มนี้ยังไม่ได้เชื่อมกับร้าน จึงยังไม่ตรวจสลิปในกลุ่มนี้\nวิธีเชื่อม: เจ้าของร้านเปิดแดชบอร์ด เมนู LINE กด "สร้างรหัสเชื่อมกลุ่ม" แล้วพิมพ์รหัสนั้น (เช่น ABCD-2345) ลงในกลุ่มนี้\nเมื่อเชื่อมแล้ว ทุกสลิปที่ส่งในกลุ่มจะถูกตรวจอัตโนมัติ',
    en: 'Hello! This group is not linked to a shop yet, so slips here are not checked.\nTo link it: the shop owner opens the dashboard, LINE page, taps "New link code" and types that code (like ABCD-2345) in this group.\nOnce linked, every slip posted here is checked automatically.',
  },
  groupLinked: {
    th: (shop: string) =>
      `✅ เชื่อมกลุ่มนี้กับร้าน "${shop}" แล้ว\nส่งรูปสลิปในกลุ่มได้เลย ระบบจะตรวจให้อัตโนมัติ\nพิมพ์ "ยกเลิกการเชื่อมต่อ" เพื่อเลิกตรวจสลิปในกลุ่มนี้ (เฉพาะผู้ที่เชื่อมต่อ)`,
    en: (shop: string) =>
      `✅ This group is now linked to "${shop}".\nPost slip images here and they are checked automatically.\nType "unlink" to disconnect (only the person who linked it).`,
  },
  miniApp: {
    th: (url: string) => `📱 พนักงานตรวจสลิปเองในแอป LINE ได้ที่มินิแอป: ${url}\n(ครั้งแรกให้ขอรหัสเชื่อมจากแดชบอร์ด หน้า ความปลอดภัย)`,
    en: (url: string) =>
      `📱 Staff can check slips themselves in the LINE mini-app: ${url}\n(The first time, get a link code on the dashboard's Security page.)`,
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
    en: "You will no longer receive the shop's alerts in this chat.",
  },
  codeInvalid: {
    th: 'รหัสเชื่อมต่อไม่ถูกต้อง โปรดตรวจสอบรหัสจากหน้าแดชบอร์ดอีกครั้ง',
    en: 'That link code is not valid. Please check the code in the dashboard.',
  },
  codeExpired: {
    th: 'รหัสเชื่อมต่อหมดอายุแล้ว โปรดสร้างรหัสใหม่ในหน้าแดชบอร์ด',
    en: 'That link code has expired. Please create a new one in the dashboard.',
  },
  codeNotOwner: {
    th: 'รหัสนี้สร้างโดยพนักงาน ใช้เชื่อมกลุ่มได้ แต่ใช้รับแจ้งเตือนของเจ้าของร้านในแชทนี้ไม่ได้ โปรดขอรหัสจากเจ้าของร้าน',
    en: "A staff member made this code: it links a group, but only the shop owner's code links this chat for the owner's alerts. Ask the owner for a code.",
  },
  codeUsed: {
    th: 'รหัสเชื่อมต่อนี้ถูกใช้ไปแล้ว (ใช้ได้ครั้งเดียว) โปรดสร้างรหัสใหม่ในหน้าแดชบอร์ด',
    en: 'That link code was already used (codes work once). Please create a new one in the dashboard.',
  },
  groupLimit: {
    th: (n: number) => `ไม่สามารถเชื่อมกลุ่มนี้ได้: แพ็กเกจปัจจุบันใช้ได้สูงสุด ${n} กลุ่ม\nยกเลิกการเชื่อมต่อกลุ่มอื่นในแดชบอร์ด หรืออัปเกรดแพ็กเกจ`,
    en: (n: number) =>
      `This group cannot be linked: your plan allows at most ${n} group(s).\nUnlink another group in the dashboard or upgrade your plan.`,
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
    en: "Sorry, the shop has used up this month's slip checks, so this slip could not be checked automatically.\nThe shop will confirm your payment manually.",
  },
  trialQuota: {
    th: 'ขออภัยค่ะ ร้านใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ครบแล้ว จึงยังตรวจสลิปนี้อัตโนมัติไม่ได้\nทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏',
    en: "Sorry, the shop has used up its trial's slip checks, so this slip could not be checked automatically.\nThe shop will confirm your payment manually.",
  },
  trialEnded: {
    th: 'ขออภัยค่ะ ช่วงทดลองใช้ของร้านสิ้นสุดแล้ว จึงยังตรวจสลิปนี้อัตโนมัติไม่ได้\nทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏',
    en: "Sorry, the shop's trial has ended, so this slip could not be checked automatically.\nThe shop will confirm your payment manually.",
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
  // What a customer reads in 1:1 when the shop cannot check automatically (no staff advice).
  manualCheck: {
    th: 'ขออภัยค่ะ ขณะนี้ยังตรวจสลิปอัตโนมัติไม่ได้ ทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏',
    en: 'Sorry, this slip cannot be checked automatically right now. The shop will confirm your payment manually.',
  },
  quotaExhaustedStaff: {
    th: 'ใช้สิทธิ์ตรวจสลิปของเดือนนี้ครบแล้ว สลิปนี้ยังไม่ถูกตรวจ ตรวจยอดเงินเข้าด้วยตนเอง หรืออัปเกรดแพ็กเกจในแดชบอร์ด',
    en: "This month's slip checks are used up, so this slip was not checked. Confirm the payment manually, or upgrade the plan in the dashboard.",
  },
  trialQuotaStaff: {
    th: 'ใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ครบแล้ว (สิทธิ์นี้ไม่เริ่มใหม่ทุกเดือน) สลิปนี้ยังไม่ถูกตรวจ ตรวจยอดเงินเข้าด้วยตนเอง หรือเลือกแพ็กเกจในแดชบอร์ดเพื่อตรวจสลิปต่อ',
    en: "The trial's slip checks are used up (they do not start again each month), so this slip was not checked. Confirm the payment manually, or choose a plan in the dashboard to keep checking slips.",
  },
  trialEndedStaff: {
    th: 'ช่วงทดลองใช้ของร้านสิ้นสุดแล้ว สลิปนี้ยังไม่ถูกตรวจ เลือกแพ็กเกจในแดชบอร์ดเพื่อตรวจสลิปต่อ',
    en: "The shop's trial has ended, so this slip was not checked. Choose a plan in the dashboard to keep checking slips.",
  },
} as const;

export const msg = {
  joinPrompt: (lang: Lang) => [text(T.joinPrompt[lang])],
  groupLinked: (lang: Lang, shop: string, miniAppUrl: string | null = null) => [
    text(miniAppUrl ? `${T.groupLinked[lang](shop)}\n\n${T.miniApp[lang](miniAppUrl)}` : T.groupLinked[lang](shop)),
  ],
  groupAlreadyLinked: (lang: Lang) => [text(T.groupAlreadyLinked[lang])],
  ownerLinked: (lang: Lang, shop: string) => [text(T.ownerLinked[lang](shop))],
  ownerAlreadyLinked: (lang: Lang) => [text(T.ownerAlreadyLinked[lang])],
  ownerUnlinked: (lang: Lang) => [text(T.ownerUnlinked[lang])],
  codeInvalid: (lang: Lang) => [text(T.codeInvalid[lang])],
  codeExpired: (lang: Lang) => [text(T.codeExpired[lang])],
  codeUsed: (lang: Lang) => [text(T.codeUsed[lang])],
  codeNotOwner: (lang: Lang) => [text(T.codeNotOwner[lang])],
  groupLimit: (lang: Lang, n: number) => [text(T.groupLimit[lang](n))],
  groupUnlinked: (lang: Lang) => [text(T.groupUnlinked[lang])],
  notLinker: (lang: Lang) => [text(T.notLinker[lang])],
  quotaExhausted: (lang: Lang, audience: Audience = 'customer') => [
    text((audience === 'staff' ? T.quotaExhaustedStaff : T.quotaExhausted)[lang]),
  ],
  trialEnded: (lang: Lang, audience: Audience = 'customer') => [text((audience === 'staff' ? T.trialEndedStaff : T.trialEnded)[lang])],
  trialQuota: (lang: Lang, audience: Audience = 'customer') => [text((audience === 'staff' ? T.trialQuotaStaff : T.trialQuota)[lang])],
  contentGone: (lang: Lang) => [text(T.contentGone[lang])],
  contentFailed: (lang: Lang) => [text(T.contentFailed[lang])],
  tooLarge: (lang: Lang) => [text(T.tooLarge[lang])],
  badImage: (lang: Lang) => [text(T.badImage[lang])],
  noPayee: (lang: Lang, audience: Audience = 'staff') => [text((audience === 'staff' ? T.noPayee : T.manualCheck)[lang])],
};

/**
 * Who reads the bubble. In a 1:1 chat it is the customer who sent the slip: what happened and what
 * to send next, politely, never staff advice ("do not hand over goods"). In a group (the shop's
 * staff) and in the owner's alerts it is the shop: the verdict and what to do about it.
 */
export type Audience = 'customer' | 'staff';
type Pair = { th: string; en: string };
interface StatusText {
  title: Record<Audience, Pair>;
  color: string;
  note: Record<Audience, Pair>;
}

/** Warning colours: orange for "look again", red for "money did not arrive as expected". */
const ORANGE = '#E67E22';
const RED = '#D32F2F';
const STATUS: Record<string, StatusText> = {
  SUCCESS: {
    color: '#1DB446',
    title: { customer: { th: '✅ ได้รับยอดโอนแล้ว', en: '✅ Payment received' }, staff: { th: '✅ สลิปถูกต้อง', en: '✅ Slip verified' } },
    note: {
      customer: { th: 'ขอบคุณค่ะ ร้านได้รับยอดโอนของคุณแล้ว', en: 'Thank you, the shop has received your transfer.' },
      staff: { th: 'ยอดเงินเข้าบัญชีของร้านแล้ว', en: "The money reached the shop's account." },
    },
  },
  DUPLICATE: {
    color: ORANGE,
    title: {
      customer: { th: '⚠️ สลิปนี้เคยใช้ชำระแล้ว', en: '⚠️ This slip was already used' },
      staff: { th: '⚠️ สลิปซ้ำ', en: '⚠️ Duplicate slip' },
    },
    note: {
      customer: {
        th: 'รายการโอนนี้เคยใช้ชำระกับร้านไปแล้ว หากเป็นการชำระรายการใหม่ โปรดส่งสลิปของการโอนครั้งใหม่ค่ะ',
        en: 'This transfer was already used to pay the shop. If this is a new payment, please send the slip of the new transfer.',
      },
      staff: {
        th: 'รายการโอนนี้เคยใช้ยืนยันไปแล้ว อย่าส่งสินค้าหรือบันทึกยอดซ้ำ',
        en: 'This transfer was already used. Do not hand over goods or credit the order twice.',
      },
    },
  },
  AMOUNT_MISMATCH: {
    color: ORANGE,
    title: {
      customer: { th: '⚠️ ยอดโอนไม่ตรงกับยอดที่ต้องชำระ', en: '⚠️ The amount does not match' },
      staff: { th: '⚠️ ยอดเงินไม่ตรง', en: '⚠️ Amount does not match' },
    },
    note: {
      customer: {
        th: 'ยอดในสลิปไม่ตรงกับยอดที่ต้องชำระ ทางร้านจะตรวจสอบและติดต่อกลับค่ะ',
        en: 'The amount on the slip differs from the amount due. The shop will check it and get back to you.',
      },
      staff: { th: 'ตรวจยอดโอนเทียบกับยอดสั่งซื้ออีกครั้ง', en: 'Compare the transferred amount with the order total.' },
    },
  },
  RECEIVER_MISMATCH: {
    color: RED,
    title: {
      customer: { th: '❌ โอนเข้าบัญชีที่ไม่ใช่ของร้าน', en: '❌ Paid to a different account' },
      staff: { th: '❌ บัญชีผู้รับไม่ใช่ของร้าน', en: '❌ Paid to another account' },
    },
    note: {
      customer: {
        th: 'การโอนนี้เข้าบัญชีอื่นที่ไม่ใช่บัญชีของร้าน โปรดตรวจสอบชื่อผู้รับในสลิป แล้วติดต่อร้านค่ะ',
        en: "This transfer went to an account that is not the shop's. Please check the receiver on your slip and contact the shop.",
      },
      staff: {
        th: 'เงินไม่ได้โอนเข้าบัญชีของร้าน ตรวจบัญชีรับเงินในแดชบอร์ด หรือขอให้ลูกค้าตรวจสอบการโอน',
        en: "The money did not go to the shop's account. Check the receiving accounts in the dashboard, or ask the customer to check the transfer.",
      },
    },
  },
  INVALID: {
    color: RED,
    title: {
      customer: { th: '❌ ตรวจสลิปนี้ไม่ได้', en: '❌ This slip could not be checked' },
      staff: { th: '❌ สลิปไม่ถูกต้อง', en: '❌ Invalid slip' },
    },
    note: {
      customer: {
        th: 'ไม่พบสลิปโอนเงินในรูปนี้ หรืออ่านคิวอาร์โค้ดบนสลิปไม่ได้ โปรดส่งรูปสลิปที่เห็นคิวอาร์โค้ดชัดเจนค่ะ',
        en: 'We could not find a transfer slip in this picture, or could not read its QR code. Please send a clear picture of the slip with its QR code.',
      },
      staff: {
        th: 'รูปนี้ไม่ใช่สลิป หรืออ่านคิวอาร์โค้ดบนสลิปไม่ได้ ขอให้ลูกค้าส่งรูปสลิปที่ชัดเจนอีกครั้ง',
        en: 'This picture holds no readable slip QR code. Ask the customer for a clear picture of the slip.',
      },
    },
  },
  FRAUD: {
    color: '#B71C1C',
    title: {
      customer: { th: '❌ ธนาคารยืนยันการโอนนี้ไม่ได้', en: '❌ The bank could not confirm this transfer' },
      staff: { th: '🚫 สลิปไม่ตรงกับข้อมูลธนาคาร', en: '🚫 Slip does not match bank data' },
    },
    note: {
      customer: {
        th: 'ข้อมูลในสลิปไม่ตรงกับข้อมูลของธนาคาร ทางร้านจะตรวจสอบและติดต่อกลับค่ะ',
        en: "The slip does not match the bank's records. The shop will look into it and get back to you.",
      },
      staff: {
        th: 'อาจเป็นสลิปปลอม อย่าส่งสินค้า ตรวจยอดเงินเข้าในแอปธนาคารก่อน',
        en: 'This may be a forged slip. Do not hand over goods; check your bank app for the incoming money first.',
      },
    },
  },
  QUOTA_EXCEEDED: {
    color: '#757575',
    title: {
      customer: { th: '⏸️ ยังตรวจสลิปอัตโนมัติไม่ได้', en: '⏸️ Not checked automatically' },
      staff: { th: '⏸️ ใช้สิทธิ์ตรวจครบแล้ว', en: '⏸️ Slip checks used up' },
    },
    note: {
      customer: { th: 'ทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏', en: 'The shop will confirm your payment manually.' },
      staff: {
        th: 'ตรวจยอดเงินเข้าด้วยตนเอง หรืออัปเกรดแพ็กเกจในแดชบอร์ด',
        en: 'Confirm the payment manually, or upgrade the plan in the dashboard.',
      },
    },
  },
  PROVIDER_ERROR: {
    color: '#757575',
    title: {
      customer: { th: '⏳ ยังตรวจสอบไม่ได้ในขณะนี้', en: '⏳ Could not check right now' },
      staff: { th: '⏳ ตรวจสอบไม่ได้ชั่วคราว', en: '⏳ Could not check right now' },
    },
    note: {
      customer: { th: 'โปรดส่งรูปสลิปเดิมอีกครั้งในอีกสักครู่ค่ะ', en: 'Please send the same slip again in a moment.' },
      staff: {
        th: 'การตรวจกับธนาคารขัดข้องชั่วคราว ยังไม่ถูกหักสิทธิ์ตรวจ ส่งสลิปอีกครั้งในอีกสักครู่',
        en: 'The bank check is temporarily unavailable; nothing was charged. Send the slip again in a moment.',
      },
    },
  },
};
/** The bank has not published the transfer yet (some banks take minutes): not an outage. */
const PENDING: Omit<StatusText, 'color'> = {
  title: {
    customer: { th: '⏳ ธนาคารยังไม่แสดงรายการโอนนี้', en: '⏳ The bank has not shown this transfer yet' },
    staff: { th: '⏳ ธนาคารยังไม่แสดงรายการโอนนี้', en: '⏳ The bank has not published this transfer yet' },
  },
  note: {
    customer: {
      th: 'บางธนาคารใช้เวลาสักครู่กว่ารายการโอนจะแสดง โปรดส่งรูปสลิปเดิมอีกครั้งในอีก 2–3 นาทีค่ะ',
      en: 'Some banks take a few minutes to publish a transfer. Please send the same slip again in 2–3 minutes.',
    },
    staff: {
      th: 'บางธนาคารใช้เวลาสักครู่กว่ารายการโอนจะแสดง ยังไม่ถูกหักสิทธิ์ตรวจ ส่งสลิปเดิมอีกครั้งในอีก 2–3 นาที',
      en: 'Some banks take a few minutes to publish a transfer; nothing was charged. Send the same slip again in 2–3 minutes.',
    },
  },
};
/**
 * Result codes that need their own sentence (checker-side situations, never naming the provider):
 * CHECK_UNAVAILABLE = the service cannot check at all for now (provider account problem, the operator
 * is on it: "send again in a moment" would be false); CHECK_NOT_SUPPORTED = no configured checker can
 * verify this kind of slip (a wallet slip, say): uncharged, confirm by hand.
 */
const CODE_NOTES: Record<string, Record<Audience, Pair>> = {
  MULTIPLE_SLIPS: {
    customer: {
      th: 'รูปนี้มีสลิปมากกว่าหนึ่งรายการ โปรดส่งสลิปทีละรูป (หนึ่งรูปต่อหนึ่งสลิป) ค่ะ',
      en: 'This picture shows more than one slip. Please send each slip as its own picture.',
    },
    staff: {
      th: 'รูปนี้มีสลิปของหลายรายการโอน ระบบจึงยังไม่ได้ตรวจ (ไม่หักสิทธิ์ตรวจ) ขอให้ลูกค้าส่งสลิปทีละรูป',
      en: 'This picture shows slips of more than one transfer, so none was checked (nothing was charged). Ask for each slip as its own picture.',
    },
  },
  CHECK_UNAVAILABLE: {
    customer: {
      th: 'ขณะนี้ระบบตรวจสลิปอัตโนมัติไม่ได้ชั่วคราว ทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ 🙏',
      en: 'Automatic slip checking is unavailable for now. The shop will confirm your payment manually.',
    },
    staff: {
      th: 'ระบบตรวจสลิปไม่ได้ชั่วคราว (ผู้ดูแลระบบได้รับแจ้งแล้ว) ยังไม่ถูกหักสิทธิ์ตรวจ ตรวจยอดเงินเข้าในแอปธนาคารก่อนส่งสินค้า',
      en: 'The service cannot check slips for now (the operator has been alerted); nothing was charged. Check the incoming money in your bank app before handing over goods.',
    },
  },
  // The bank data shows too little of the receiving account to compare (a wallet or PromptPay transfer,
  // a masked number): not known to be another account. The base RECEIVER_MISMATCH wording told a customer
  // who paid the shop "paid to a different account" and staff "the money did not go to the shop's account".
  RECEIVER_UNVERIFIED: {
    customer: {
      th: 'ข้อมูลจากธนาคารแสดงบัญชีผู้รับไม่พอที่จะยืนยันว่าเป็นบัญชีของร้าน ทางร้านจะตรวจสอบยอดโอนและติดต่อกลับค่ะ',
      en: "The bank's data shows too little of the receiving account to confirm it is the shop's. The shop will check the payment and get back to you.",
    },
    staff: {
      th: 'ข้อมูลจากธนาคารแสดงเลขบัญชีผู้รับไม่พอที่จะยืนยันว่าเป็นบัญชีของร้าน ตรวจบัญชีรับเงินในแดชบอร์ด หรือเปิดแอปธนาคารดูว่าเงินเข้าจริงก่อนส่งสินค้า',
      en: "The bank data shows too little of the receiving account to confirm it is the shop's. Check the payee accounts, or see in your banking app that the money arrived before handing over goods.",
    },
  },
  CHECK_NOT_SUPPORTED: {
    customer: {
      th: 'สลิปประเภทนี้ยังตรวจอัตโนมัติไม่ได้ ทางร้านจะตรวจสอบยอดโอนให้ด้วยตนเองค่ะ',
      en: 'This kind of slip cannot be checked automatically yet. The shop will confirm your payment manually.',
    },
    staff: {
      th: 'ระบบยังตรวจสลิปประเภทนี้ไม่ได้ (เช่น สลิปวอลเล็ต) ยังไม่ถูกหักสิทธิ์ตรวจ ตรวจยอดเงินเข้าในแอปบัญชีหรือวอลเล็ตของร้าน',
      en: "This kind of slip (a wallet slip, for example) cannot be checked by the service yet; nothing was charged. Check the incoming money in the shop's bank or wallet app.",
    },
  },
};
/** A genuine slip of a kind we cannot check is not an "invalid slip" to the shop's staff. */
const NOT_SUPPORTED_TITLE: Record<Audience, Pair> = {
  customer: { th: '⚠️ ยังตรวจสลิปประเภทนี้ไม่ได้', en: '⚠️ This kind of slip cannot be checked yet' },
  staff: { th: '⚠️ ตรวจสลิปประเภทนี้ไม่ได้', en: '⚠️ This kind of slip cannot be checked' },
};
/** A receiver the bank data cannot confirm is not "paid to another account" (the dashboard's "Could not confirm the receiving account"). */
const RECEIVER_UNVERIFIED_TITLE: Record<Audience, Pair> = {
  customer: { th: '⚠️ ยังยืนยันบัญชีผู้รับไม่ได้', en: '⚠️ The receiving account could not be confirmed' },
  staff: { th: '⚠️ ยืนยันบัญชีผู้รับไม่ได้', en: '⚠️ Receiver not confirmed' },
};
/** Slips of several transfers in one picture: nothing was checked, so not "invalid slip" (staff would read "fake"). */
const MULTIPLE_SLIPS_TITLE: Record<Audience, Pair> = {
  customer: { th: '⚠️ รูปนี้มีสลิปมากกว่าหนึ่งรายการ', en: '⚠️ More than one slip in this picture' },
  staff: { th: '⚠️ มีสลิปหลายรายการในรูปเดียว', en: '⚠️ Several slips in one picture' },
};
const STALE: Record<Audience, Pair> = {
  customer: {
    th: 'สลิปนี้เป็นการโอนที่เก่าเกินกำหนด โปรดส่งสลิปของการโอนครั้งล่าสุดค่ะ',
    en: 'This slip is from an older transfer. Please send the slip of your latest transfer.',
  },
  staff: {
    th: 'สลิปเก่าเกินกำหนด ขอให้ลูกค้าส่งสลิปของการโอนล่าสุด',
    en: 'The slip is too old. Ask the customer for the slip of the latest transfer.',
  },
};

/**
 * A stale slip that is genuine money (alert mode) in 1:1. Staff read the official account's chat too,
 * so a green "payment received" there was a go-ahead for an old transfer shown again for a new order;
 * and "make sure it is a recent transfer" is the shop's check, not the customer's. The customer hears
 * what the bank says and what happens next, without accusing.
 */
const STALE_CUSTOMER: { title: Pair; note: Pair } = {
  title: { th: '⚠️ สลิปนี้เป็นรายการโอนเก่า', en: '⚠️ This slip is from an older transfer' },
  note: {
    th: 'ธนาคารยืนยันรายการโอนนี้ แต่เป็นการโอนเมื่อระยะหนึ่งแล้ว (ดูเวลาโอนด้านบน) ทางร้านจะตรวจสอบกับคำสั่งซื้อของคุณแล้วติดต่อกลับค่ะ หากคุณโอนเงินใหม่ โปรดส่งสลิปของการโอนครั้งใหม่ค่ะ',
    en: 'The bank confirms this transfer, but it was made a while ago (see its time above). The shop will check it against your order and get back to you. If you made a new transfer, please send its slip.',
  },
};

/**
 * Edited slips (issue 20): the picture prints another amount than the bank transferred. Staff get the
 * verdict in one line they can act on; the customer is told what the bank says, without accusing.
 */
const EDITED = {
  title: {
    customer: { th: '❌ ยอดเงินในสลิปไม่ตรงกับธนาคาร', en: '❌ The slip amount does not match the bank' },
    staff: { th: '🚫 สลิปถูกแก้ไขยอดเงิน', en: '🚫 Edited slip' },
  } as Record<Audience, Pair>,
  note: {
    customer: {
      th: (pic: string, bank: string) =>
        `รูปสลิประบุยอด ${pic} แต่ธนาคารแจ้งยอดโอน ${bank} ทางร้านยืนยันได้เฉพาะยอดที่ธนาคารแจ้ง หากโอนไม่ครบ โปรดโอนส่วนที่เหลือแล้วส่งสลิปใหม่ค่ะ`,
      en: (pic: string, bank: string) =>
        `The slip picture says ${pic}, but the bank says ${bank} was transferred. The shop can only accept the amount the bank confirms; if you paid less, please transfer the rest and send the new slip.`,
    },
    staff: {
      th: (pic: string, bank: string) => `รูปสลิประบุ ${pic} แต่ธนาคารแจ้ง ${bank}: สลิปนี้ถูกแก้ไข อย่าส่งสินค้าตามยอดในรูป`,
      en: (pic: string, bank: string) =>
        `The picture says ${pic}, the bank says ${bank}: this slip was edited. Do not hand over goods for the printed amount.`,
    },
  },
  // Alert mode keeps SUCCESS: the bubble stays green but says plainly what the bank confirmed.
  alert: {
    customer: {
      th: (pic: string, bank: string) => `ร้านได้รับยอด ${bank} ตามข้อมูลธนาคาร (รูปสลิประบุ ${pic})`,
      en: (pic: string, bank: string) => `The shop received ${bank} according to the bank (the slip picture says ${pic}).`,
    },
    staff: {
      th: (pic: string, bank: string) => `⚠️ รูปสลิประบุ ${pic} แต่ธนาคารแจ้ง ${bank}: สลิปนี้อาจถูกแก้ไข ส่งสินค้าตามยอดของธนาคารเท่านั้น`,
      en: (pic: string, bank: string) =>
        `⚠️ The picture says ${pic}, the bank says ${bank}: this slip may be edited. Hand over goods for the bank's amount only.`,
    },
  },
};

/**
 * The same picture sent again replays the earlier record (the API says `cached: true`). In a chat
 * that is the "one slip for two orders" case: never a second green tick.
 */
const REPLAY: {
  title: Record<Audience, Pair>;
  note: Record<Audience, { th: (t: string, r: string) => string; en: (t: string, r: string) => string }>;
} = {
  title: {
    customer: { th: '⚠️ สลิปนี้เคยส่งแล้ว', en: '⚠️ This slip was already sent' },
    staff: { th: '⚠️ รูปสลิปนี้เคยตรวจแล้ว', en: '⚠️ This image was already checked' },
  },
  note: {
    customer: {
      th: (t, r) => `รูปสลิปนี้ส่งมาแล้วเมื่อ ${t} (ผล: ${r}) หากเป็นการชำระรายการใหม่ โปรดส่งสลิปของการโอนครั้งใหม่ค่ะ`,
      en: (t, r) =>
        `This exact slip image was already sent at ${t} (result: ${r}). If this is a new payment, please send the slip of the new transfer.`,
    },
    staff: {
      th: (t, r) => `รูปนี้ถูกตรวจไปแล้วเมื่อ ${t} (ผล: ${r}) อย่าส่งสินค้าหรือบันทึกยอดซ้ำ`,
      en: (t, r) => `This exact image was already checked at ${t} (result: ${r}); do not deliver twice.`,
    },
  },
};
/** Replays that matter for money; a replayed unreadable picture or a quota stop just repeats itself. */
const REPLAYABLE = new Set(['SUCCESS', 'DUPLICATE', 'AMOUNT_MISMATCH', 'RECEIVER_MISMATCH', 'FRAUD']);

const LABELS = {
  amount: { th: 'ยอดเงิน', en: 'Amount' },
  sender: { th: 'ผู้โอน', en: 'From' },
  receiver: { th: 'ผู้รับ', en: 'To' },
  time: { th: 'เวลาโอน', en: 'Time' },
  ref: { th: 'เลขอ้างอิง', en: 'Ref.' },
  original: { th: 'ใช้ครั้งแรกเมื่อ', en: 'First used' },
  printed: { th: 'ยอดในรูปสลิป', en: 'On the picture' },
  stale: { th: 'สลิปนี้เก่ากว่าที่กำหนด โปรดตรวจสอบว่าเป็นการโอนล่าสุด', en: 'This slip is older than usual; make sure it is a recent transfer.' },
};

/** "1,250.50 บาท" / "THB 1,250.50", from the amount's satang with integer formatting (lib/money). */
export function formatAmount(amount: number | null, lang: Lang): string {
  const satang = amount === null ? null : satangFromAmount(amount);
  if (satang === null) return '-';
  const n = formatSatang(satang);
  return lang === 'th' ? `${n} บาท` : `THB ${n}`;
}

export function formatTime(iso: string | null, lang: Lang, timeZone: string): string {
  if (!iso) return '-';
  return new Intl.DateTimeFormat(lang === 'th' ? 'th-TH' : 'en-GB', {
    timeZone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
}

/**
 * A bank's name in the message's language (records keep the English name for the API): the SDK's one
 * table, which also names what is not a bank (a TrueMoney wallet slip read "TrueMoney Wallet" in Thai
 * messages when only the bank list was looked up); the record's own name for a code it does not know.
 */
export function bankNameFor(record: Pick<TransactionRecord, 'bankCode' | 'bankName'>, lang: Lang): string | null {
  return bankWord(record.bankCode, lang, record.bankName) || null;
}

const row = (label: string, value: string): messagingApi.FlexBox => ({
  type: 'box',
  layout: 'baseline',
  spacing: 'sm',
  contents: [
    { type: 'text', text: label, size: 'sm', color: '#8C8C8C', flex: 2 },
    { type: 'text', text: value || '-', size: 'sm', color: '#333333', flex: 5, wrap: true },
  ],
});

export interface ResultContext {
  audience: Audience;
  /** The picture was checked before, by another event: show it as a replay (not by the event that created it). */
  replay: boolean;
  /** DUPLICATE: the transfer's first use (its amount and when it was checked). */
  original?: { amount: number | null; createdAt: string } | null;
}

/** One Flex bubble: verdict header, the slip's facts (when there are any), then one or two sentences. */
export function resultMessage(record: TransactionRecord, lang: Lang, timeZone: string, ctx: ResultContext): messagingApi.FlexMessage {
  const who = ctx.audience;
  const base = STATUS[record.status] ?? STATUS.INVALID!;
  const replay = ctx.replay && REPLAYABLE.has(record.status);
  const pending = record.errorCode === 'SLIP_PENDING';
  const codeTitle =
    record.errorCode === 'CHECK_NOT_SUPPORTED'
      ? NOT_SUPPORTED_TITLE[who][lang]
      : record.errorCode === 'MULTIPLE_SLIPS'
        ? MULTIPLE_SLIPS_TITLE[who][lang]
        : record.errorCode === 'RECEIVER_UNVERIFIED'
          ? RECEIVER_UNVERIFIED_TITLE[who][lang]
          : null;
  // A stale slip is genuine money but may be an old payment shown again: the shop's bubble says so in
  // its header and colour, not only in a line under the facts.
  const staleMoney = !replay && !!record.stale && (record.status === 'SUCCESS' || record.status === 'AMOUNT_MISMATCH');
  const staleForShop = staleMoney && who === 'staff';
  // The customer's bubble neither says "payment received" in green nor hands them the shop's check.
  const staleForCustomer = staleMoney && who === 'customer';
  const edited = record.edited && record.printedAmount !== null && record.amount !== null;
  const editedFraud = edited && record.status === 'FRAUD';
  const title = replay
    ? REPLAY.title[who][lang]
    : pending
      ? PENDING.title[who][lang]
      : editedFraud
        ? EDITED.title[who][lang]
        : staleForShop
          ? `⚠️ ${resultWord(record, lang)}`
          : staleForCustomer
            ? STALE_CUSTOMER.title[lang]
            : (codeTitle ?? base.title[who][lang]);
  const unverified = record.status === 'RECEIVER_MISMATCH' && record.errorCode === 'RECEIVER_UNVERIFIED';
  const color = replay || staleForShop || staleForCustomer || unverified ? ORANGE : base.color;

  const facts: messagingApi.FlexComponent[] = [];
  // A picture without a slip has no facts: a sentence says so, not rows of "-".
  const hasFacts = record.amount !== null || !!record.transRef;
  if (hasFacts) {
    // A slip the bank has not told about yet (pending, not found) has its reference but no amount: no "-" row.
    if (record.amount !== null) facts.push(row(LABELS.amount[lang], formatAmount(record.amount, lang)));
    if (edited) facts.push(row(LABELS.printed[lang], formatAmount(record.printedAmount, lang)));
    const sender = [record.senderName, bankNameFor(record, lang)].filter(Boolean).join(' · ');
    if (sender) facts.push(row(LABELS.sender[lang], sender));
    const receiver = [record.receiverName, record.receiverAccount].filter(Boolean).join(' · ');
    if (receiver) facts.push(row(LABELS.receiver[lang], receiver));
    if (record.transDate) facts.push(row(LABELS.time[lang], formatTime(record.transDate, lang, timeZone)));
    if (record.transRef) facts.push(row(LABELS.ref[lang], record.transRef));
    if (record.status === 'DUPLICATE' && ctx.original) {
      facts.push(
        row(LABELS.original[lang], `${formatTime(ctx.original.createdAt, lang, timeZone)} · ${formatAmount(ctx.original.amount, lang)}`),
      );
    }
  }
  const notes: string[] = [];
  if (replay) notes.push(REPLAY.note[who][lang](formatTime(record.createdAt, lang, timeZone), statusWord(record.status, lang)));
  else if (pending) notes.push(PENDING.note[who][lang]);
  else if (record.errorCode === 'STALE_SLIP') notes.push(STALE[who][lang]);
  else if (editedFraud) notes.push(EDITED.note[who][lang](formatAmount(record.printedAmount, lang), formatAmount(record.amount, lang)));
  else if (staleForCustomer) notes.push(STALE_CUSTOMER.note[lang]);
  else if (record.errorCode && CODE_NOTES[record.errorCode]) notes.push(CODE_NOTES[record.errorCode][who][lang]);
  else notes.push(base.note[who][lang]);
  if (edited && !editedFraud && !replay)
    notes.push(EDITED.alert[who][lang](formatAmount(record.printedAmount, lang), formatAmount(record.amount, lang)));
  if (staleForShop) notes.push(`${STALE_WORD[lang]}: ${LABELS.stale[lang]}`);

  return bubble(title, color, facts, notes, replay, `${title} ${record.amount !== null ? formatAmount(record.amount, lang) : ''}`.trim());
}

/**
 * A picture without a slip QR refused at the quota wall (the pipeline decoded nothing and recorded
 * nothing; the LINE handler decoded it for the re-use lookup): the bubble a recorded no-slip picture
 * gets below the wall, not "the shop will confirm your payment manually" for a photo that paid nothing.
 */
export function noSlipMessage(lang: Lang, audience: Audience): messagingApi.FlexMessage {
  const invalid = STATUS.INVALID!;
  const title = invalid.title[audience][lang];
  return bubble(title, invalid.color, [], [invalid.note[audience][lang]], false, title);
}

/** Verdict header in its colour, the facts (if any), then the sentences; `highlight`: the first sentence is the warning. */
function bubble(
  title: string,
  color: string,
  facts: messagingApi.FlexComponent[],
  notes: string[],
  highlight: boolean,
  alt: string,
): messagingApi.FlexMessage {
  const body: messagingApi.FlexComponent[] = [];
  if (facts.length) body.push({ type: 'box', layout: 'vertical', spacing: 'sm', contents: facts }, { type: 'separator', margin: 'md' });
  notes.forEach((n, i) =>
    body.push({
      type: 'text',
      text: n,
      size: 'sm',
      wrap: true,
      margin: 'md',
      // The replay warning is the point of the bubble: in its colour and bold, not grey small print.
      ...(highlight && i === 0 ? { color: ORANGE, weight: 'bold' as const } : { color: '#555555' }),
    }),
  );
  return {
    type: 'flex',
    altText: alt.slice(0, 400),
    contents: {
      type: 'bubble',
      size: 'kilo',
      header: {
        type: 'box',
        layout: 'vertical',
        backgroundColor: color,
        paddingAll: '12px',
        contents: [{ type: 'text', text: title, color: '#FFFFFF', weight: 'bold', size: 'md', wrap: true }],
      },
      body: { type: 'box', layout: 'vertical', spacing: 'md', contents: body },
    },
  };
}

/** Owner alerts pushed to the owner's LINE user. */
export function ownerAlertMessage(
  type: string,
  lang: Lang,
  ctx: {
    shopName: string;
    amount?: string;
    trialEndsAt?: string;
    used?: number;
    limit?: number;
    /** QUOTA_80/QUOTA_100 of a trial: its pool is the trial's slips, not this month's. */
    trial?: boolean;
    /** NO_PAYEE_CONFIGURED: slips refused today, since when (already formatted), and the Payees page. */
    refused?: number;
    since?: string;
    payeesUrl?: string;
  },
): LineMessage[] {
  const shop = ctx.shopName;
  const lines: Record<string, { th: string; en: string }> = {
    STALE_SLIP: {
      th: `⚠️ ร้าน "${shop}": ได้รับสลิปเก่า${ctx.amount ? ` (${ctx.amount})` : ''} โปรดตรวจสอบว่าเป็นการโอนล่าสุดก่อนส่งสินค้า`,
      en: `⚠️ "${shop}": an old slip was received${ctx.amount ? ` (${ctx.amount})` : ''}. Check that it is a recent transfer before handing over goods.`,
    },
    EDITED_SLIP: {
      th: `🚨 ร้าน "${shop}": ได้รับสลิปที่ยอดเงินในรูปไม่ตรงกับยอดที่ธนาคารโอนจริง${ctx.amount ? ` (ธนาคารโอน ${ctx.amount})` : ''} สลิปนี้ถูกแก้ไข อย่าส่งสินค้าตามยอดในรูป`,
      en: `🚨 "${shop}": a slip whose picture shows another amount than the bank transferred${ctx.amount ? ` (the bank says ${ctx.amount})` : ''}. This slip was edited: do not hand over goods for the printed amount.`,
    },
    QUOTA_80: ctx.trial
      ? {
          th: `📊 ร้าน "${shop}": ใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ไปแล้ว 80%${ctx.limit ? ` (${ctx.used ?? '-'}/${ctx.limit})` : ''} เลือกแพ็กเกจในแดชบอร์ดเพื่อตรวจสลิปต่อเมื่อครบ`,
          en: `📊 "${shop}": 80% of the trial's slip checks are used${ctx.limit ? ` (${ctx.used ?? '-'}/${ctx.limit})` : ''}. Choose a plan in the dashboard to keep checking once they are used up.`,
        }
      : {
          th: `📊 ร้าน "${shop}": ใช้สิทธิ์ตรวจสลิปเดือนนี้ไปแล้ว 80%${ctx.limit ? ` (${ctx.used ?? '-'}/${ctx.limit})` : ''} พิจารณาอัปเกรดแพ็กเกจในแดชบอร์ด`,
          en: `📊 "${shop}": 80% of this month's slip checks are used${ctx.limit ? ` (${ctx.used ?? '-'}/${ctx.limit})` : ''}. Consider upgrading in the dashboard.`,
        },
    QUOTA_100: ctx.trial
      ? {
          th: `⛔ ร้าน "${shop}": ใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ครบแล้ว สลิปใหม่จะไม่ถูกตรวจจนกว่าจะเลือกแพ็กเกจในแดชบอร์ด`,
          en: `⛔ "${shop}": the trial's slip checks are used up. New slips are not checked until you choose a plan in the dashboard.`,
        }
      : {
          th: `⛔ ร้าน "${shop}": ใช้สิทธิ์ตรวจสลิปเดือนนี้ครบแล้ว สลิปใหม่จะยังไม่ถูกตรวจจนถึงเดือนหน้าหรือจนกว่าจะอัปเกรดแพ็กเกจ`,
          en: `⛔ "${shop}": this month's slip checks are used up. New slips are not checked until next month or a plan upgrade.`,
        },
    TRIAL_ENDING: {
      th: `⏰ ร้าน "${shop}": ช่วงทดลองใช้จะสิ้นสุด${ctx.trialEndsAt ? ` ${ctx.trialEndsAt}` : 'เร็ว ๆ นี้'} เลือกแพ็กเกจในแดชบอร์ดเพื่อใช้งานต่อเนื่อง`,
      en: `⏰ "${shop}": the trial ends${ctx.trialEndsAt ? ` ${ctx.trialEndsAt}` : ' soon'}. Choose a plan in the dashboard to keep checking slips.`,
    },
    NO_PAYEE_CONFIGURED: {
      th: `🚫 ร้าน "${shop}": ยังไม่มีบัญชีรับเงินที่เปิดใช้งาน ระบบจึงตรวจสลิปไม่ได้ มีสลิป ${ctx.refused ?? 1} ใบที่ยังไม่ได้ตรวจ${ctx.since ? ` ตั้งแต่ ${ctx.since}` : ''} โปรดตรวจยอดเหล่านี้ในแอปธนาคาร แล้วเพิ่มบัญชีรับเงินในหน้า "บัญชีรับเงิน" ของแดชบอร์ด${ctx.payeesUrl ? `\n${ctx.payeesUrl}` : ''}`,
      en: `🚫 "${shop}": no active payee account, so slips cannot be checked. ${ctx.refused ?? 1} ${(ctx.refused ?? 1) === 1 ? 'slip was' : 'slips were'} not checked${ctx.since ? ` since ${ctx.since}` : ''}. Confirm them in your banking app, then add the account customers pay into on the dashboard's "Payee accounts" page.${ctx.payeesUrl ? `\n${ctx.payeesUrl}` : ''}`,
    },
  };
  const t = lines[type];
  return t ? [text(t[lang])] : [];
}
