import { useAuth } from '../api/auth';
import { api } from '../api/client';
import { ROUTES } from '../api/routes';
import type { AuditEntry, SessionView } from '../api/types';
import { Button, Card, Empty, ErrorText, Loading, PageHeader } from '../components/ui';
import { LineLinkCard, useLineLoginText } from '../components/line-login';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';

/** A short device label from the user agent, so the owner can recognise their phone and computer. */
function deviceOf(ua: string | null): string {
  if (!ua) return '—';
  const os = /iPhone|iPad/.test(ua)
    ? 'iOS'
    : /Android/.test(ua)
      ? 'Android'
      : /Windows/.test(ua)
        ? 'Windows'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  const br = /Edg\//.test(ua)
    ? 'Edge'
    : /Chrome\//.test(ua)
      ? 'Chrome'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /Safari\//.test(ua)
          ? 'Safari'
          : '';
  return [br, os].filter(Boolean).join(' · ') || ua.slice(0, 60);
}

export function SecurityScreen() {
  const { t, lang } = useI18n();
  const { logout } = useAuth();
  const lx = useLineLoginText();
  const sessions = useLoad(() => api<{ items: SessionView[] }>(ROUTES.sessions));
  const audit = useLoad(() => api<{ items: AuditEntry[] }>(ROUTES.audit, { query: { limit: 100 } }));
  const { busyKey: busy, error, run } = useAsyncAction();
  const act = (id: string, fn: () => Promise<unknown>) =>
    run(async () => {
      await fn();
      await Promise.all([sessions.reload(), audit.reload()]);
    }, id);
  const label = (action: string) => {
    const k = `audit.${action}` as MessageKey;
    const s = t(k);
    return s === k ? t('audit.unknown') : s;
  };
  // user:… is the person themself (not shown); operators, the system and signed-out callers get words.
  const actorLabel = (actor: string | null | undefined) => {
    if (!actor || actor.startsWith('user:')) return null;
    if (actor.startsWith('operator:')) return t('actor.operator');
    if (actor === 'system') return t('actor.system');
    if (actor === 'anonymous') return t('actor.anonymous');
    return null;
  };
  return (
    <>
      <PageHeader title={t('security.title')} intro={t('security.intro')} />
      <ErrorText error={error} />
      <Card
        title={t('security.sessions')}
        actions={
          <Button
            variant="secondary"
            busy={busy === 'all'}
            onClick={() => void act('all', () => api(ROUTES.revokeAll, { method: 'POST', body: { includeCurrent: false } }))}
          >
            {t('security.revokeOthers')}
          </Button>
        }
      >
        <ErrorText error={sessions.error} />
        {sessions.loading && !sessions.data ? (
          <Loading />
        ) : (
          <ul className="plain-list">
            {(sessions.data?.items ?? []).map((s) => (
              <li key={s.id} className="session">
                <div>
                  <p>
                    <strong>{deviceOf(s.userAgent)}</strong>{' '}
                    {s.current && <span className="tag tag-primary">{t('security.thisDevice')}</span>}{' '}
                    {s.kind === 'miniapp' && <span className="tag">{lx('miniAppSession')}</span>}
                  </p>
                  <p className="small muted">
                    {s.ip ?? '—'} · {t('security.signedIn', { time: formatDateTime(s.createdAt, lang) })} ·{' '}
                    {t('security.lastActive', { time: formatDateTime(s.lastUsedAt ?? s.createdAt, lang) })}
                  </p>
                </div>
                {s.current ? (
                  <Button variant="secondary" onClick={() => void logout()}>
                    {t('nav.logout')}
                  </Button>
                ) : (
                  <Button
                    variant="danger"
                    busy={busy === s.id}
                    onClick={() => void act(s.id, () => api(ROUTES.session(s.id), { method: 'DELETE' }))}
                  >
                    {t('security.revoke')}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <LineLinkCard onChange={() => void Promise.all([sessions.reload(), audit.reload()])} />
      <Card title={t('security.audit')}>
        <ErrorText error={audit.error} />
        {audit.loading && !audit.data ? (
          <Loading />
        ) : !audit.data ? null : !audit.data.items.length ? (
          <Empty title={t('security.auditEmpty')} />
        ) : (
          <ul className="plain-list audit">
            {audit.data.items.map((a) => (
              <li key={a.id}>
                <p>
                  <strong>{label(a.action)}</strong>
                </p>
                <p className="small muted">
                  {formatDateTime(a.createdAt, lang)}
                  {a.ip ? ` · ${a.ip}` : ''}
                  {actorLabel(a.actor) ? ` · ${actorLabel(a.actor)}` : ''}
                </p>
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
