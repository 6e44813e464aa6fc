// The mini-app's own words (Thai first, English); shared ones (result cards, statuses, errors) come from
// the dashboard tables. A plain module so tests outside the web build can read it.
import { MONEY_WORDS } from '@slipcheck/sdk';
import { en as dashEn } from '../i18n/en.js';
import { th as dashTh } from '../i18n/th.js';
const th = {
  title: 'ตรวจสลิป',
  loading: 'กำลังเปิด…',
  tabCheck: 'ตรวจสลิป',
  tabToday: 'วันนี้',
  shop: 'ร้าน',
  quotaLeft: 'เหลือ {n} ครั้งเดือนนี้',
  notLinkedTitle: 'บัญชี LINE นี้ยังไม่ได้เชื่อมกับร้าน',
  notLinkedBody:
    'เพื่อความปลอดภัย มินิแอปจะแสดงข้อมูลร้านเฉพาะคนที่เจ้าของร้านเพิ่มไว้แล้วเท่านั้น ขอรหัสเชื่อมจากแดชบอร์ด (เมนู ความปลอดภัย > เชื่อม LINE ของฉัน) แล้วกรอกด้านล่าง',
  codeLabel: 'รหัสเชื่อม 8 ตัว',
  codeHint: 'เช่น ABCD-2345 ใช้ได้ 10 นาที ครั้งเดียว',
  link: 'เชื่อม LINE',
  openInLine: 'กรุณาเปิดหน้านี้จากแอป LINE ของร้าน',
  notSetUp: 'ผู้ให้บริการยังไม่ได้ตั้งค่าการเข้าสู่ระบบด้วย LINE',
  signInFailed: 'เข้าสู่ระบบด้วย LINE ไม่สำเร็จ ลองปิดแล้วเปิดมินิแอปอีกครั้ง',
  expected: 'ยอดที่ต้องได้รับ (บาท) ไม่ใส่ก็ได้',
  expectedInvalid: dashTh['check.expectedInvalid'],
  camera: 'ถ่ายรูปสลิป',
  pick: 'เลือกรูปจากเครื่อง',
  checking: 'กำลังตรวจสลิป…',
  again: 'ตรวจสลิปใบอื่น',
  todayVerified: `${MONEY_WORDS.th.received}วันนี้`,
  todayCount: 'จาก {n} สลิป',
  todayCountOne: 'จาก 1 สลิป',
  todayEmpty: 'วันนี้ยังไม่มีการตรวจสลิป',
  todayNewest: 'แสดง {n} รายการล่าสุด',
  todayAll: 'ดูทั้งหมดในแดชบอร์ด',
  live: 'อัปเดตอัตโนมัติ',
  reconnecting: 'กำลังเชื่อมต่อใหม่…',
  byStatus: 'แยกตามผล',
};
export type MiniKey = keyof typeof th;
const en: Record<MiniKey, string> = {
  title: 'Check slips',
  loading: 'Opening…',
  tabCheck: 'Check a slip',
  tabToday: 'Today',
  shop: 'Shop',
  quotaLeft: '{n} checks left this month',
  notLinkedTitle: 'This LINE account is not linked to a shop yet',
  notLinkedBody:
    'For safety the mini-app shows a shop only to people its owner added. Get a link code in the dashboard (Security > Link my LINE) and enter it below.',
  codeLabel: '8-character link code',
  codeHint: 'e.g. ABCD-2345; valid 10 minutes, once',
  link: 'Link LINE',
  openInLine: "Please open this page from the shop's LINE app",
  notSetUp: 'Sign-in with LINE is not set up on this service yet',
  signInFailed: 'Could not sign in with LINE. Close the mini-app and open it again.',
  expected: 'Amount you expect (THB), optional',
  expectedInvalid: dashEn['check.expectedInvalid'],
  camera: 'Take a photo of the slip',
  pick: 'Choose a picture',
  checking: 'Checking the slip…',
  again: 'Check another slip',
  todayVerified: `${MONEY_WORDS.en.received} today`,
  todayCount: 'from {n} slips',
  todayCountOne: 'from 1 slip',
  todayEmpty: 'No slips checked today yet',
  todayNewest: 'Showing the newest {n}.',
  todayAll: 'See them all in the dashboard',
  live: 'Updates live',
  reconnecting: 'Reconnecting…',
  byStatus: 'By result',
};

export const MINI_TEXT = { th, en };
