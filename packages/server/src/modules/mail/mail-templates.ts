import { STALE_WORD } from '@slipcheck/sdk';
import { readableLocalTime } from '../../lib/period.js';
/**
 * E-mail texts. Every message carries Thai first, then English, in one body: owners read Thai first,
 * and a shop's staff or accountant may not. Plain text only (no tracking, renders everywhere).
 */
export interface MailContent {
  template: string;
  subject: string;
  text: string;
}

const RULE = '\n\n------------------------------\n\n';
const SIGN_TH = '— ทีมงาน slipcheck';
const SIGN_EN = '— the slipcheck team';

function when(d: Date, timeZone: string) {
  const th = new Intl.DateTimeFormat('th-TH', { dateStyle: 'long', timeStyle: 'short', timeZone }).format(d);
  const en = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone }).format(d);
  return { th, en };
}

export const mailTemplates = {
  welcome(p: {
    shopName: string;
    trialEndsAt: string | null;
    chosenPlanName: string | null;
    dashboardUrl: string;
    timeZone: string;
  }): MailContent {
    const end = p.trialEndsAt ? when(new Date(p.trialEndsAt), p.timeZone) : null;
    const th = [
      `ยินดีต้อนรับสู่ slipcheck ร้าน "${p.shopName}" พร้อมใช้งานแล้ว`,
      end ? `ร้านของคุณอยู่ในช่วงทดลองใช้ฟรี 7 วัน (ตรวจสลิปได้ 50 ใบ) ถึง ${end.th}` : '',
      p.chosenPlanName
        ? `แพ็กเกจที่คุณเลือก: ${p.chosenPlanName} จะเริ่มใช้งานเมื่อชำระเงินแล้ว ระหว่างทดลองใช้ยังไม่สามารถสร้าง API key หรือ webhook ได้`
        : '',
      `ขั้นตอนต่อไป: เพิ่มบัญชีรับเงินของร้าน แล้วลองอัปโหลดสลิปที่ ${p.dashboardUrl}`,
      SIGN_TH,
    ]
      .filter(Boolean)
      .join('\n\n');
    const en = [
      `Welcome to slipcheck. Your shop "${p.shopName}" is ready.`,
      end ? `You are on the free 7-day trial (50 slips) until ${end.en}.` : '',
      p.chosenPlanName
        ? `The plan you chose, ${p.chosenPlanName}, starts once payment is received. During the trial, API keys and webhooks are not available.`
        : '',
      `Next: add the shop's receiving account, then check a slip at ${p.dashboardUrl}`,
      SIGN_EN,
    ]
      .filter(Boolean)
      .join('\n\n');
    return { template: 'welcome', subject: 'ยินดีต้อนรับสู่ slipcheck / Welcome to slipcheck', text: th + RULE + en };
  },

  passwordReset(p: { link: string; minutes: number }): MailContent {
    const th = `มีคำขอตั้งรหัสผ่านใหม่สำหรับบัญชี slipcheck ของคุณ\n\nเปิดลิงก์นี้ภายใน ${p.minutes} นาที (ใช้ได้ครั้งเดียว):\n${p.link}\n\nหากคุณไม่ได้ขอ ไม่ต้องทำอะไร รหัสผ่านเดิมยังใช้ได้\n\n${SIGN_TH}`;
    const en = `Someone asked to reset the password of your slipcheck account.\n\nOpen this link within ${p.minutes} minutes (it works once):\n${p.link}\n\nIf it was not you, ignore this e-mail; your password stays the same.\n\n${SIGN_EN}`;
    return { template: 'password_reset', subject: 'ตั้งรหัสผ่านใหม่ / Reset your password', text: th + RULE + en };
  },

  newDeviceLogin(p: { at: Date; userAgent: string; ip: string; securityUrl: string; timeZone: string }): MailContent {
    const t = when(p.at, p.timeZone);
    const th = `มีการเข้าสู่ระบบบัญชี slipcheck ของคุณจากอุปกรณ์ใหม่\n\nเวลา: ${t.th}\nอุปกรณ์: ${p.userAgent}\nที่อยู่ IP: ${p.ip}\n\nหากไม่ใช่คุณ ให้เปลี่ยนรหัสผ่านทันทีและออกจากระบบทุกอุปกรณ์ที่ ${p.securityUrl}\n\n${SIGN_TH}`;
    const en = `Your slipcheck account was signed in from a new device.\n\nTime: ${t.en}\nDevice: ${p.userAgent}\nIP address: ${p.ip}\n\nIf this was not you, change your password now and sign out all sessions at ${p.securityUrl}\n\n${SIGN_EN}`;
    return { template: 'new_device_login', subject: 'เข้าสู่ระบบจากอุปกรณ์ใหม่ / New sign-in to your account', text: th + RULE + en };
  },

  passwordChanged(p: { at: Date; timeZone: string; securityUrl: string }): MailContent {
    const t = when(p.at, p.timeZone);
    const th = `รหัสผ่านบัญชี slipcheck ของคุณถูกเปลี่ยนเมื่อ ${t.th} และอุปกรณ์อื่นถูกออกจากระบบแล้ว\n\nหากไม่ใช่คุณ ให้ตั้งรหัสผ่านใหม่ทันทีผ่าน "ลืมรหัสผ่าน" ที่ ${p.securityUrl}\n\n${SIGN_TH}`;
    const en = `The password of your slipcheck account was changed on ${t.en}; other devices were signed out.\n\nIf this was not you, reset your password now with "Forgot password" at ${p.securityUrl}\n\n${SIGN_EN}`;
    return { template: 'password_changed', subject: 'รหัสผ่านถูกเปลี่ยน / Your password was changed', text: th + RULE + en };
  },

  /** Sent at once on erasure, to the address the account had (it is freed for a new sign-up). */
  accountErased(p: { shopName: string; at: Date; purgeAfter: Date; timeZone: string }): MailContent {
    const t = when(p.at, p.timeZone);
    const u = when(p.purgeAfter, p.timeZone);
    const th = `ร้าน "${p.shopName}" และบัญชี slipcheck ของคุณถูกลบเมื่อ ${t.th} ทุกอุปกรณ์ถูกออกจากระบบ และ API คีย์ทั้งหมดถูกยกเลิกแล้ว\n\nข้อมูลทั้งหมด (ผลตรวจสลิป บัญชีรับเงิน ทีมงาน เว็บฮุก การเชื่อม LINE) จะถูกลบถาวรหลัง ${u.th} เก็บไว้เพียงบันทึกความปลอดภัย (ใคร ทำอะไร เมื่อใด) ตามระยะเวลาที่กำหนด และชื่อร้านจะถูกแทนด้วย "(erased)"\n\nหากไม่ใช่คุณเป็นผู้ลบ ให้ตอบกลับอีเมลนี้ก่อนเวลาดังกล่าว\n\n${SIGN_TH}`;
    const en = `The shop "${p.shopName}" and your slipcheck account were deleted on ${t.en}. Every device was signed out and every API key revoked.\n\nAll data (slip results, payee accounts, team, webhooks, LINE links) is deleted for good after ${u.en}. Only the security log (who did what, when) is kept for its retention period, and the shop's name is replaced by "(erased)".\n\nIf you did not do this, reply to this e-mail before then.\n\n${SIGN_EN}`;
    return { template: 'account_erased', subject: 'ลบบัญชีแล้ว / Your account was deleted', text: th + RULE + en };
  },

  teamInvite(p: { shopName: string; inviterEmail: string; link: string; days: number }): MailContent {
    const th = `${p.inviterEmail} เชิญคุณเข้าร่วมทีมของร้าน "${p.shopName}" บน slipcheck (ตรวจสลิปโอนเงิน)\n\nเปิดลิงก์นี้เพื่อตั้งรหัสผ่านและเข้าร่วม ภายใน ${p.days} วัน (ใช้ได้ครั้งเดียว):\n${p.link}\n\nหากคุณไม่รู้จักร้านนี้ ไม่ต้องทำอะไร\n\n${SIGN_TH}`;
    const en = `${p.inviterEmail} invited you to join the team of "${p.shopName}" on slipcheck (bank-transfer slip checking).\n\nOpen this link to set a password and join, within ${p.days} days (it works once):\n${p.link}\n\nIf you do not know this shop, ignore this e-mail.\n\n${SIGN_EN}`;
    return { template: 'team_invite', subject: `คำเชิญเข้าร่วมทีม / Team invitation: ${p.shopName}`, text: th + RULE + en };
  },

  ownerAlert(p: {
    type: string;
    shopName: string;
    transactionId?: string;
    detail?: unknown;
    dashboardUrl: string;
    timeZone?: string;
  }): MailContent {
    if (p.type === 'NO_PAYEE_CONFIGURED') return noPayeeAlert(p);
    // A trial's pool is its slips over its days: "this month" and "until next month" would be wrong.
    const trial = !!p.detail && typeof p.detail === 'object' && (p.detail as { trial?: unknown }).trial === true;
    const what: Record<string, [string, string]> = {
      STALE_SLIP: [
        // The list, card, export and LINE reply mark it with the same word (one vocabulary).
        `${STALE_WORD.th}: ได้รับสลิปที่เก่ากว่ากำหนด (อาจเป็นสลิปที่เคยใช้แล้ว) โปรดตรวจสอบก่อนส่งสินค้า`,
        `${STALE_WORD.en}: a slip older than the allowed age was received (it may be re-used). Check it before you ship.`,
      ],
      EDITED_SLIP: [
        'ได้รับสลิปที่ยอดเงินในรูปไม่ตรงกับยอดที่ธนาคารโอนจริง (สลิปถูกแก้ไข) ระบบยังตอบว่าผ่านเพราะตั้งค่าเป็นโหมดแจ้งเตือน โปรดตรวจสอบก่อนส่งสินค้า',
        'A slip whose picture shows another amount than the bank transferred (an edited slip) was received. It was still answered as verified because edited-slip detection is in alert mode. Check it before you hand over goods.',
      ],
      QUOTA_80: trial
        ? ['ใช้สิทธิ์ตรวจสลิปของช่วงทดลองใช้ไปแล้ว 80%', "80% of the trial's slip checks are used."]
        : ['ใช้โควตาตรวจสลิปเดือนนี้ไปแล้ว 80%', "80% of this month's slip quota is used."],
      QUOTA_100: trial
        ? [
            'สิทธิ์ตรวจสลิปของช่วงทดลองใช้หมดแล้ว สลิปใหม่จะถูกปฏิเสธจนกว่าจะเลือกแพ็กเกจ',
            "The trial's slip checks are used up; new slips are refused until you choose a plan.",
          ]
        : [
            'โควตาตรวจสลิปเดือนนี้หมดแล้ว สลิปใหม่จะถูกปฏิเสธจนถึงเดือนหน้าหรือจนกว่าจะอัปเกรดแพ็กเกจ',
            "This month's slip quota is used up; new slips are refused until next month or a larger plan.",
          ],
      TRIAL_ENDING: [
        'ช่วงทดลองใช้ของร้านใกล้หมดแล้ว เลือกแพ็กเกจเพื่อใช้งานต่อ',
        "Your shop's trial ends soon; choose a plan to keep checking slips.",
      ],
      LINE_MONTHLY_LIMIT: [
        'บัญชี LINE Official Account ของร้านส่งข้อความครบโควตาของเดือนนี้แล้ว (LINE แจ้งว่าถึงขีดจำกัดรายเดือน) ระบบยังตรวจสลิปได้ แต่จะตอบในแชทได้เฉพาะการตอบกลับทันที จนถึงเดือนหน้า หรือจนกว่าจะเพิ่มแพ็กเกจข้อความใน LINE Official Account Manager',
        'Your LINE Official Account has used up this month\'s message allowance (LINE answered "monthly limit"). Slips are still checked, but the bot can only answer with immediate replies until next month or until you raise the message plan in LINE Official Account Manager.',
      ],
    };
    // Subjects name the alert in words: an owner reads them in a mail list, not the internal code.
    const titles: Record<string, [string, string]> = {
      STALE_SLIP: ['สลิปเก่ากว่ากำหนด', 'Old slip received'],
      EDITED_SLIP: ['สลิปถูกแก้ไขยอดเงิน', 'Edited slip received'],
      QUOTA_80: ['โควตาใช้ไป 80%', '80% of quota used'],
      QUOTA_100: ['โควตาหมดแล้ว', 'Quota used up'],
      TRIAL_ENDING: ['ช่วงทดลองใกล้หมด', 'Trial ending'],
      LINE_MONTHLY_LIMIT: ['LINE ส่งข้อความครบโควตาเดือนนี้', 'LINE monthly message limit reached'],
    };
    const [th, en] = what[p.type] ?? ['มีการแจ้งเตือนจากระบบ', 'There is a new alert.'];
    const [titleTh, titleEn] = titles[p.type] ?? ['แจ้งเตือน', 'Alert'];
    const ref = p.transactionId ? `\n\n${p.dashboardUrl}/transactions/${p.transactionId}` : `\n\n${p.dashboardUrl}`;
    return {
      template: `owner_alert_${p.type.toLowerCase()}`,
      subject: `[${p.shopName}] ${titleTh} / ${titleEn}`,
      text: `ร้าน ${p.shopName}: ${th}${ref}\n\n${SIGN_TH}` + RULE + `Shop ${p.shopName}: ${en}${ref}\n\n${SIGN_EN}`,
    };
  },
  /**
   * To the operator (OPERATOR_EMAIL), never to a shop: a checker provider account problem or overage.
   * It names the upstream (the operator runs those accounts) and the provider's own code.
   */
  operatorCheckerAlert(p: {
    type: 'ACCOUNT_PROBLEM' | 'ACCOUNT_RECOVERED' | 'OVERAGE_NEAR_CAP' | 'OVERAGE_CAP_REACHED';
    upstream: string;
    reason?: string;
    providerCode?: string;
    overage?: number;
    cap?: number;
    since?: string;
    /** TIME_ZONE: `since` is written in it with its offset ("2026-11-27 17:03 (UTC+07:00)"), not as UTC ISO. */
    timeZone?: string;
  }): MailContent {
    const code = p.providerCode ? ` (provider code ${p.providerCode})` : '';
    const since = p.since ? readableLocalTime(new Date(p.since), p.timeZone ?? 'Asia/Bangkok') : '';
    const texts: Record<typeof p.type, [string, string, string]> = {
      ACCOUNT_PROBLEM: [
        `บัญชีผู้ให้บริการตรวจสลิป ${p.upstream} มีปัญหา: ${p.reason}${code} ระบบสลับไปใช้ผู้ให้บริการถัดไปแล้ว (ถ้ามี) ร้านค้าได้รับแจ้งว่าระบบตรวจสลิปไม่ได้ชั่วคราว ตรวจสอบโควตา คีย์ IP ที่อนุญาต แพ็กเกจ หรือสาขาในหน้าบัญชีของผู้ให้บริการ แล้วรัน slipcheck checker check`,
        `Checker provider account ${p.upstream} has a problem: ${p.reason}${code}. Checks fail over to the next provider (if any); shops are told the service cannot check for now. Look at the quota, key, IP allow-list, package or branch in the provider's account, then run \`slipcheck checker check\`.`,
        'Checker provider account problem',
      ],
      ACCOUNT_RECOVERED: [
        `บัญชีผู้ให้บริการตรวจสลิป ${p.upstream} กลับมาตอบได้ตามปกติแล้ว (ปัญหา: ${p.reason} ตั้งแต่ ${since})`,
        `Checker provider account ${p.upstream} answers normally again (problem: ${p.reason}, since ${since}).`,
        'Checker provider account recovered',
      ],
      OVERAGE_NEAR_CAP: [
        `บัญชีผู้ให้บริการตรวจสลิป ${p.upstream} ใช้เกินแพ็กเกจไปแล้ว ${p.overage} ครั้ง ใกล้ถึงเพดาน CHECKER_MAX_OVERAGE=${p.cap} เมื่อถึงเพดานจะหยุดใช้ผู้ให้บริการนี้ ต่อแพ็กเกจหรือเพิ่มเพดาน`,
        `Checker provider account ${p.upstream} has billed ${p.overage} checks past its package, near CHECKER_MAX_OVERAGE=${p.cap}. At the cap the provider is taken out of the chain: renew the package or raise the cap.`,
        'Checker overage near the cap',
      ],
      OVERAGE_CAP_REACHED: [
        `บัญชีผู้ให้บริการตรวจสลิป ${p.upstream} ใช้เกินแพ็กเกจ ${p.overage} ครั้ง ถึงเพดาน CHECKER_MAX_OVERAGE=${p.cap} แล้ว ระบบหยุดใช้ผู้ให้บริการนี้จนกว่าการใช้เกินจะลดลง`,
        `Checker provider account ${p.upstream} has billed ${p.overage} checks past its package and reached CHECKER_MAX_OVERAGE=${p.cap}: it is out of the chain until its overage is below the cap.`,
        'Checker overage cap reached',
      ],
    };
    const [th, en, title] = texts[p.type];
    return {
      template: `operator_${p.type.toLowerCase()}`,
      subject: `[slipcheck operator] ${title}`,
      text: `${th}\n\n${SIGN_TH}` + RULE + `${en}\n\n${SIGN_EN}`,
    };
  },
};

/**
 * Slips refused for want of a payee account (verification's payee-refusals.ts): how many could not be
 * checked today and since when, and what to do, with the Payees page's link. Sent at most once a day.
 */
function noPayeeAlert(p: { shopName: string; detail?: unknown; dashboardUrl: string; timeZone?: string }): MailContent {
  const d = (p.detail ?? {}) as { refused?: unknown; since?: unknown };
  const n = typeof d.refused === 'number' && d.refused > 0 ? d.refused : 1;
  const since = typeof d.since === 'string' ? when(new Date(d.since), p.timeZone ?? 'Asia/Bangkok') : null;
  const link = `${p.dashboardUrl}/payees`;
  const th =
    `ร้าน ${p.shopName}: ร้านยังไม่มีบัญชีรับเงินที่เปิดใช้งาน ระบบจึงตรวจสลิปไม่ได้ ` +
    `มีสลิป ${n} ใบที่ยังไม่ได้ตรวจ${since ? ` ตั้งแต่ ${since.th}` : ''} ` +
    `โปรดตรวจยอดโอนเหล่านี้ในแอปธนาคาร แล้วเพิ่มบัญชีธนาคารหรือพร้อมเพย์ที่ลูกค้าโอนเข้า ในหน้า "บัญชีรับเงิน" ของแดชบอร์ด สลิปถัดไปจะถูกตรวจตามปกติ:\n${link}`;
  const en =
    `Shop ${p.shopName}: the shop has no active payee account, so slips cannot be checked. ` +
    `${n} ${n === 1 ? 'slip was' : 'slips were'} not checked${since ? ` since ${since.en}` : ''}. ` +
    `Confirm those transfers in your banking app, then add the bank account or PromptPay id customers pay into on the dashboard's "Payee accounts" page; the next slips are checked as usual:\n${link}`;
  return {
    template: 'owner_alert_no_payee_configured',
    subject: `[${p.shopName}] สลิปยังไม่ถูกตรวจ: ยังไม่มีบัญชีรับเงิน / Slips not checked: no payee account`,
    text: `${th}\n\n${SIGN_TH}` + RULE + `${en}\n\n${SIGN_EN}`,
  };
}
