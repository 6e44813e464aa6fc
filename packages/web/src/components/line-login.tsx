import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useI18n } from '../i18n/i18n';
import { useLoad } from '../lib/use-load';
import { Alert, Button, Card, CopyButton, ErrorText } from './ui';
import './line-login.css';

// Sign-in with LINE on the dashboard: the "Log in with LINE" button of the sign-in page and the
// "Link my LINE" card of the security page (the code is typed once in the LINE mini-app).
const TEXT = {
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
  },
  en: {
    loginWithLine: 'Log in with LINE',
    or: 'or',
    LINE_NOT_LINKED: 'This LINE account is not linked to a shop. Sign in with your e-mail first, then link LINE on the Security page.',
    LINE_CANCELLED: 'LINE sign-in was cancelled.',
    LINE_STATE_MISMATCH: 'The LINE sign-in expired or did not match. Press Log in with LINE again.',
    other: 'Could not sign in with LINE. Try again.',
    cardTitle: 'Link my LINE',
    cardIntro: 'Once linked, you can open the slip-check mini-app in LINE and log in with LINE without a password. Your permissions in the shop stay the same.',
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
  },
};
type Key = keyof typeof TEXT.th;
export const LINE_LOGIN_TEXT = TEXT;

export function useLineLoginText() {
  const { lang } = useI18n();
  return (k: Key) => TEXT[lang === 'en' ? 'en' : 'th'][k];
}

interface MiniConfig { loginWithLine: boolean; miniAppUrl: string | null }

/** Shown under the password form when the operator set up LINE Login; explains a failed round trip. */
export function LineLoginButton() {
  const x = useLineLoginText();
  const [enabled, setEnabled] = useState(false);
  useEffect(() => { api<MiniConfig>('/api/miniapp/config', { noAuth: true }).then((c) => setEnabled(c.loginWithLine)).catch(() => undefined); }, []);
  const failed = new URLSearchParams(window.location.search).get('line');
  const why = failed ? (failed in TEXT.th ? x(failed as Key) : x('other')) : null;
  if (!enabled && !why) return null;
  return (
    <div className="line-login">
      {why && <Alert kind="warn" title={why} />}
      {enabled && <><p className="muted small line-login-or">{x('or')}</p><a className="btn btn-secondary btn-block" href="/api/dashboard/auth/line/start">{x('loginWithLine')}</a></>}
    </div>
  );
}

/** Security page: link my LINE with a one-time code, or unlink (which ends my mini-app sessions). */
export function LineLinkCard({ onChange }: { onChange?: () => void }) {
  const x = useLineLoginText();
  const status = useLoad(() => api<{ enabled: boolean; linked: boolean; linkedAt: string | null; miniAppUrl: string | null }>('/api/dashboard/line-login'));
  const [code, setCode] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const s = status.data;
  if (!s) return <ErrorText error={status.error} />;
  async function run(fn: () => Promise<void>) {
    setBusy(true); setError(null);
    try { await fn(); await status.reload(); onChange?.(); } catch (e) { setError(e); } finally { setBusy(false); }
  }
  return (
    <Card title={x('cardTitle')}>
      <p className="muted">{x('cardIntro')}</p>
      {!s.enabled ? <p>{x('disabled')}</p> : (
        <>
          <p><span className={`tag ${s.linked ? 'tag-primary' : ''}`}>{s.linked ? x('linked') : x('notLinked')}</span></p>
          {code && (
            <Alert kind="info" title={<>{x('codeIs')} <strong className="mono" data-testid="line-link-code">{code}</strong></>}>
              {x('openMiniApp')}
            </Alert>
          )}
          {s.miniAppUrl && <p className="small">{x('miniAppLink')}: <a href={s.miniAppUrl} className="mono">{s.miniAppUrl}</a> <CopyButton value={s.miniAppUrl} /></p>}
          <ErrorText error={error} />
          <div className="card-actions">
            <Button busy={busy} onClick={() => void run(async () => setCode((await api<{ code: string }>('/api/dashboard/line-login/code', { method: 'POST' })).code))}>{x('newCode')}</Button>
            {s.linked && <Button variant="danger" busy={busy} onClick={() => void run(async () => { await api('/api/dashboard/line-login', { method: 'DELETE' }); setCode(null); })}>{x('unlink')}</Button>}
          </div>
          {s.linked && <p className="small muted">{x('unlinkNote')}</p>}
        </>
      )}
    </Card>
  );
}
