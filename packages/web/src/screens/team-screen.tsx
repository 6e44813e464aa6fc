import { useState, type FormEvent } from 'react';
import { useAuth } from '../api/auth';
import { api } from '../api/client';
import { hasErrorCode } from '../api/error-code';
import { ROUTES } from '../api/routes';
import type { Team } from '../api/types';
import { Alert, Button, Card, Empty, ErrorText, Field, Loading, PageHeader } from '../components/ui';
import { useI18n } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';
import { SubmitRow } from '../components/form-parts';

/** Staff seats. Owners invite, revoke and remove; staff see the list only (the server enforces it too). */
export function TeamScreen() {
  const { t, lang } = useI18n();
  const { me } = useAuth();
  const isOwner = me?.user.role !== 'staff';
  const team = useLoad(() => api<Team>(ROUTES.team));
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const { busyKey: busy, error, setError, run } = useAsyncAction();
  // The catalogue's EMAIL_TAKEN is sign-up advice ("sign in or reset the password"); for an invite it means
  // the person already has an account of their own, so it is said beside the address, in those words.
  const taken = hasErrorCode(error, 'EMAIL_TAKEN');
  const seats = team.data?.seats;
  const full = !!seats && seats.used >= seats.limit;

  function act(id: string, fn: () => Promise<unknown>) {
    setSent(null);
    return run(async () => {
      await fn();
      await team.reload();
    }, id);
  }
  async function invite(e: FormEvent) {
    e.preventDefault();
    const to = email.trim();
    await act('invite', async () => {
      await api(ROUTES.teamInvites, { method: 'POST', body: { email: to } });
      setEmail('');
      setSent(to);
    });
  }

  return (
    <>
      <PageHeader title={t('team.title')} intro={isOwner ? t('team.intro') : t('team.introStaff')} />
      <ErrorText error={team.error} />
      {seats && (
        <p className="seat-usage" aria-live="polite">
          <strong>{t('team.seats', { used: seats.used, limit: seats.limit })}</strong>{' '}
          <span className="small muted">{t('team.seatsHint')}</span>
        </p>
      )}
      {isOwner && (
        <Card title={t('team.invite')}>
          <form onSubmit={(e) => void invite(e)}>
            <Field
              label={t('team.inviteEmail')}
              type="email"
              inputMode="email"
              autoComplete="off"
              required
              maxLength={254}
              value={email}
              error={taken ? t('team.emailTaken') : null}
              onChange={(e) => {
                setEmail(e.target.value);
                // A refusal was about the address typed before: it no longer applies.
                setError(null);
              }}
            />
            {full && <Alert kind="warn" title={t('team.seatsFull')} />}
            <div aria-live="polite">{sent && <Alert kind="ok" title={t('team.invited', { email: sent })} />}</div>
            <SubmitRow error={taken ? null : error} busy={busy === 'invite'} disabled={full}>
              {t('team.inviteSubmit')}
            </SubmitRow>
          </form>
        </Card>
      )}
      <Card title={t('team.members')}>
        {team.loading && !team.data ? (
          <Loading />
        ) : (
          <ul className="plain-list team-list">
            {(team.data?.members ?? []).map((m) => (
              <li key={m.id} className="session">
                <div>
                  <p>
                    <strong>{m.email}</strong> <span className="tag">{t(m.role === 'owner' ? 'team.role.owner' : 'team.role.staff')}</span>
                    {m.id === me?.user.id && <span className="tag tag-primary">{t('team.you')}</span>}
                  </p>
                  <p className="small muted">
                    {m.lastLoginAt ? t('team.lastLogin', { time: formatDateTime(m.lastLoginAt, lang) }) : t('team.neverLoggedIn')}
                  </p>
                </div>
                {isOwner && m.role === 'staff' && (
                  <Button
                    variant="danger"
                    busy={busy === m.id}
                    onClick={() => {
                      if (window.confirm(t('team.confirmRemove', { email: m.email })))
                        void act(m.id, () => api(ROUTES.teamMember(m.id), { method: 'DELETE' }));
                    }}
                  >
                    {t('team.remove')}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title={t('team.pending')}>
        {team.data && !team.data.invites.length ? (
          <Empty title={t('team.noPending')} />
        ) : (
          <ul className="plain-list team-list">
            {(team.data?.invites ?? []).map((i) => (
              <li key={i.id} className="session">
                <div>
                  <p>
                    <strong>{i.email}</strong> <span className="tag">{t('team.role.staff')}</span>
                  </p>
                  <p className="small muted">{t('team.expires', { time: formatDateTime(i.expiresAt, lang) })}</p>
                </div>
                {isOwner && (
                  <Button
                    variant="secondary"
                    busy={busy === i.id}
                    onClick={() => void act(i.id, () => api(ROUTES.teamInvite(i.id), { method: 'DELETE' }))}
                  >
                    {t('team.revoke')}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </>
  );
}
