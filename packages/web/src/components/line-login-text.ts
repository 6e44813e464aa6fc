// Words of sign-in with LINE on the dashboard (Thai first, English). A plain module so tests outside
// the web build can read it.
export const LINE_LOGIN_TEXT = {
  th: {
    loginWithLine: 'เข้าสู่ระบบด้วย LINE',
    or: 'หรือ',
    LINE_NOT_LINKED: 'บัญชี LINE นี้ยังไม่ได้เชื่อมกับร้าน เข้าสู่ระบบด้วยอีเมลก่อน แล้วเชื่อม LINE ที่หน้า ความปลอดภัย',
    LINE_CANCELLED: 'ยกเลิกการเข้าสู่ระบบด้วย LINE แล้ว',
    LINE_STATE_MISMATCH: 'การเข้าสู่ระบบหมดเวลาหรือไม่ตรงกัน ลองกดเข้าสู่ระบบด้วย LINE อีกครั้ง',
    other: 'เข้าสู่ระบบด้วย LINE ไม่สำเร็จ ลองอีกครั้ง',
    cardTitle: 'เชื่อม LINE ของฉัน',
    cardIntro: 'เชื่อมแล้วจะเปิดมินิแอปตรวจสลิปใน LINE และเข้าสู่ระบบด้วย LINE ได้โดยไม่ต้องใส่รหัสผ่าน สิทธิ์ของคุณในร้านยังเหมือนเดิม',
    linked: 'เชื่อม LINE แล้ว',
    notLinked: 'ยังไม่ได้เชื่อม LINE',
    newCode: 'สร้างรหัสเชื่อม',
    codeIs: 'รหัสเชื่อมของคุณ (ใช้ได้ 10 นาที ครั้งเดียว):',
    openMiniApp: 'เปิดมินิแอปใน LINE แล้วกรอกรหัสนี้',
    miniAppLink: 'ลิงก์มินิแอป (ใส่ในริชเมนูของ LINE OA ได้)',
    unlink: 'เลิกเชื่อม LINE',
    unlinkNote: 'เลิกเชื่อมแล้ว มินิแอปทุกเครื่องของคุณจะออกจากระบบทันที',
    disabled: 'ผู้ให้บริการยังไม่ได้ตั้งค่าการเข้าสู่ระบบด้วย LINE',
    miniAppSession: 'มินิแอป LINE',
    miniAppTitle: 'มินิแอปตรวจสลิปใน LINE',
    miniAppRichMenu:
      'ใส่ลิงก์นี้ในริชเมนูของ LINE OA (LINE Official Account Manager > ริชเมนู > การทำงาน: ลิงก์) ให้พนักงานเปิดตรวจสลิปจากแชทได้ทันที คนที่เปิดครั้งแรกต้องเชื่อม LINE ก่อนที่หน้า ความปลอดภัย',
  },
  en: {
    loginWithLine: 'Log in with LINE',
    or: 'or',
    LINE_NOT_LINKED: 'This LINE account is not linked to a shop. Sign in with your e-mail first, then link LINE on the Security page.',
    LINE_CANCELLED: 'LINE sign-in was cancelled.',
    LINE_STATE_MISMATCH: 'The LINE sign-in expired or did not match. Press Log in with LINE again.',
    other: 'Could not sign in with LINE. Try again.',
    cardTitle: 'Link my LINE',
    cardIntro:
      'Once linked, you can open the slip-check mini-app in LINE and log in with LINE without a password. Your permissions in the shop stay the same.',
    linked: 'LINE is linked',
    notLinked: 'LINE is not linked',
    newCode: 'Create a link code',
    codeIs: 'Your link code (valid 10 minutes, once):',
    openMiniApp: 'Open the mini-app in LINE and enter this code',
    miniAppLink: "Mini-app link (you can put it in your LINE OA's rich menu)",
    unlink: 'Unlink LINE',
    unlinkNote: 'After unlinking, the mini-app signs out on every device at once.',
    disabled: 'Sign-in with LINE is not set up on this service yet',
    miniAppSession: 'LINE mini-app',
    miniAppTitle: 'Slip-check mini-app in LINE',
    miniAppRichMenu:
      "Put this link in your LINE OA's rich menu (LINE Official Account Manager > Rich menus > action: Link) so staff can check slips right from the chat. Each person links their LINE once on the Security page.",
  },
};
export type LineLoginKey = keyof typeof LINE_LOGIN_TEXT.th;
