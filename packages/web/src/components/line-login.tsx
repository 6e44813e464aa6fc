import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useI18n } from '../i18n/i18n';
import { keepNextForLine } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { Alert, Button, Card, CopyButton, ErrorText } from './ui';
import './line-login.css';
import { LINE_LOGIN_TEXT, type LineLoginKey } from './line-login-text';

// Sign-in with LINE on the dashboard: the "Log in with LINE" button of the sign-in page and the
// "Link my LINE" card of the security page (the code is typed once in the LINE mini-app).
const TEXT = LINE_LOGIN_TEXT;
type Key = LineLoginKey;
export { LINE_LOGIN_TEXT };

export function useLineLoginText() {
  const { lang } = useI18n();
  return (k: Key) => TEXT[lang === 'en' ? 'en' : 'th'][k];
}

interface MiniConfig {
  loginWithLine: boolean;
  miniAppUrl: string | null;
}

/** Shown under the password form when the operator set up LINE Login; explains a failed round trip. */
export function LineLoginButton() {
  const x = useLineLoginText();
  const [enabled, setEnabled] = useState(false);
  useEffect(() => {
    api<MiniConfig>('/api/miniapp/config', { noAuth: true })
      .then((c) => setEnabled(c.loginWithLine))
      .catch(() => undefined);
  }, []);
  const failed = new URLSearchParams(window.location.search).get('line');
  const why = failed ? (failed in TEXT.th ? x(failed as Key) : x('other')) : null;
  if (!enabled && !why) return null;
  return (
    <div className="line-login">
      {why && <Alert kind="warn" title={why} />}
      {enabled && (
        <>
          <p className="muted small line-login-or">{x('or')}</p>
          <a
            className="btn btn-secondary btn-block"
            href="/api/dashboard/auth/line/start"
            onClick={() => keepNextForLine(new URLSearchParams(window.location.search))}
          >
            {x('loginWithLine')}
          </a>
        </>
      )}
    </div>
  );
}

/** Security page: link my LINE with a one-time code, or unlink (which ends my mini-app sessions). */
export function LineLinkCard({ onChange }: { onChange?: () => void }) {
  const x = useLineLoginText();
  const status = useLoad(() =>
    api<{ enabled: boolean; linked: boolean; linkedAt: string | null; miniAppUrl: string | null }>('/api/dashboard/line-login'),
  );
  const [code, setCode] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const s = status.data;
  if (!s) return <ErrorText error={status.error} />;
  async function run(fn: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await fn();
      await status.reload();
      onChange?.();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }
  return (
    <Card title={x('cardTitle')}>
      <p className="muted">{x('cardIntro')}</p>
      {!s.enabled ? (
        <p>{x('disabled')}</p>
      ) : (
        <>
          <p>
            <span className={`tag ${s.linked ? 'tag-primary' : ''}`}>{s.linked ? x('linked') : x('notLinked')}</span>
          </p>
          {code && (
            <Alert
              kind="info"
              title={
                <>
                  {x('codeIs')}{' '}
                  <strong className="mono" data-testid="line-link-code">
                    {code}
                  </strong>
                </>
              }
            >
              {x('openMiniApp')}
            </Alert>
          )}
          {s.miniAppUrl && (
            <p className="small">
              {x('miniAppLink')}:{' '}
              <a href={s.miniAppUrl} className="mono">
                {s.miniAppUrl}
              </a>{' '}
              <CopyButton value={s.miniAppUrl} />
            </p>
          )}
          <ErrorText error={error} />
          <div className="card-actions">
            <Button
              busy={busy}
              onClick={() =>
                void run(async () => setCode((await api<{ code: string }>('/api/dashboard/line-login/code', { method: 'POST' })).code))
              }
            >
              {x('newCode')}
            </Button>
            {s.linked && (
              <Button
                variant="danger"
                busy={busy}
                onClick={() =>
                  void run(async () => {
                    await api('/api/dashboard/line-login', { method: 'DELETE' });
                    setCode(null);
                  })
                }
              >
                {x('unlink')}
              </Button>
            )}
          </div>
          {s.linked && <p className="small muted">{x('unlinkNote')}</p>}
        </>
      )}
    </Card>
  );
}

/** LINE page: the mini-app link the owner puts in the OA's rich menu (shown once LINE Login is set up). */
export function MiniAppLinkCard() {
  const x = useLineLoginText();
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    api<MiniConfig>('/api/miniapp/config', { noAuth: true })
      .then((c) => setUrl(c.loginWithLine ? c.miniAppUrl : null))
      .catch(() => undefined);
  }, []);
  if (!url) return null;
  return (
    <Card title={x('miniAppTitle')}>
      <p className="muted">{x('miniAppRichMenu')}</p>
      <p className="small">
        <a href={url} className="mono" data-testid="miniapp-url">
          {url}
        </a>{' '}
        <CopyButton value={url} />
      </p>
    </Card>
  );
}
