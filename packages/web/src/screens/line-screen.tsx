import { useState } from 'react';
import { useAuth } from '../api/auth';
import { api } from '../api/client';
import { ROUTES } from '../api/routes';
import { Alert, Button, Card, Checkbox, CopyButton, Dialog, Empty, ErrorText, Field, Loading, PageHeader } from '../components/ui';
import { useI18n } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';
import { MiniAppLinkCard } from '../components/line-login';
import { SubmitRow } from '../components/form-parts';
import { fieldRefusal, lineChannelProblem } from '../lib/field-errors';
import { explainWebhookCheck } from '../lib/line-webhook-check';
import type { MessageKey } from '../i18n/i18n';
import { th } from '../i18n/th';

const LINE_FIELDS: Partial<Record<string, MessageKey>> = {
  channelId: 'line.error.channelId',
  channelSecret: 'line.error.channelSecret',
  accessToken: 'line.error.accessToken',
};

interface Channel {
  id: string;
  channelId: string;
  botName: string | null;
  webhookUrl: string;
  status: string;
  createdAt: string;
}
interface Group {
  id: string;
  lineChannelId: string;
  groupId: string;
  silentNonSlip: boolean;
  status: string;
  createdAt: string;
}
interface Owner {
  id: string;
  lineChannelId: string;
  lineUserId: string;
  createdAt: string;
}
interface PushUsage {
  lineChannelId: string;
  period: string;
  pushes: number;
  monthlyLimitReachedAt: string | null;
}
interface LinePage {
  channels: Channel[];
  groups: Group[];
  owners: Owner[];
  limits: { groups: number; messagingAccounts: number };
  pushUsage?: PushUsage[];
}

/** LINE official accounts, linked group chats and owner alert users (the LINE module owns the logic). */
export function LineScreen() {
  const { t, lang } = useI18n();
  const page = useLoad(() => api<LinePage>(ROUTES.line));
  // A staff member's code links groups only; a 1:1 chat for the owner's alerts takes the owner's code.
  const { me } = useAuth();
  const isOwner = me?.user.role !== 'staff';
  const [linking, setLinking] = useState(false);
  const [code, setCode] = useState<{ code: string; expiresAt: string } | null>(null);
  const [note, setNote] = useState('');
  const { busyKey: busy, error, run } = useAsyncAction();
  function act(id: string, fn: () => Promise<void>) {
    setNote('');
    return run(async () => {
      await fn();
      await page.reload();
    }, id);
  }
  /** Every unlink (an account, a group, an owner) is a DELETE and then a fresh page. */
  const unlinkButton = (id: string, route: string) => (
    <Button
      variant="danger"
      busy={busy === id}
      onClick={() =>
        void act(id, async () => {
          await api(route, { method: 'DELETE' });
        })
      }
    >
      {t('line.unlink')}
    </Button>
  );
  const d = page.data;
  return (
    <>
      <PageHeader
        title={t('line.title')}
        intro={t('line.intro')}
        // Linking and unlinking the official account, and removing an alert recipient, are the owner's (the service answers staff 403).
        actions={isOwner ? <Button onClick={() => setLinking(true)}>{t('line.link')}</Button> : undefined}
      />
      <ErrorText error={error ?? page.error} />
      <div aria-live="polite">{note && <Alert kind="ok" title={note} />}</div>
      <MiniAppLinkCard />
      {!d ? (
        !page.error && <Loading />
      ) : (
        <>
          <Card
            title={t('line.channels')}
            actions={<span className="muted small">{t('line.limit', { n: d.channels.length, max: d.limits.messagingAccounts })}</span>}
          >
            {d.channels.length === 0 ? (
              <Empty title={t('line.noChannels')}>{t('line.noChannelsHint')}</Empty>
            ) : (
              <ul className="plain-list">
                {d.channels.map((ch) => (
                  <li key={ch.id}>
                    <p>
                      <strong>{ch.botName ?? ch.channelId}</strong>{' '}
                      <span className="tag">
                        {`line.status.${ch.status}` in th ? t(`line.status.${ch.status}` as MessageKey) : ch.status}
                      </span>
                    </p>
                    <p className="small muted">{t('line.webhookUrl')}</p>
                    <p className="mono small break">{ch.webhookUrl}</p>
                    {(() => {
                      // Pushes draw on the official account's monthly allowance (replies are free).
                      const u = d.pushUsage?.find((x) => x.lineChannelId === ch.id);
                      if (!u) return null;
                      return (
                        <>
                          <p className="small muted">{t('line.pushUsage', { n: u.pushes })}</p>
                          {u.monthlyLimitReachedAt && (
                            <Alert kind="warn" title={t('line.monthlyLimitTitle')}>
                              {t('line.monthlyLimit', { time: formatDateTime(u.monthlyLimitReachedAt, lang) })}
                            </Alert>
                          )}
                        </>
                      );
                    })()}
                    <div className="row-actions">
                      <CopyButton value={ch.webhookUrl} />
                      <Button
                        variant="secondary"
                        busy={busy === `v${ch.id}`}
                        onClick={() =>
                          void act(`v${ch.id}`, async () => {
                            const r = await api<{ success: boolean; statusCode: number | null; reason?: string | null }>(
                              ROUTES.lineVerify(ch.id),
                              { method: 'POST' },
                            );
                            const said = explainWebhookCheck(r);
                            setNote(t(said.key, said.vars));
                          })
                        }
                      >
                        {t('line.verify')}
                      </Button>
                      {isOwner && unlinkButton(ch.id, ROUTES.lineChannel(ch.id))}
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <Card
            title={t('line.groups')}
            actions={
              <Button
                variant="secondary"
                busy={busy === 'code'}
                onClick={() =>
                  void act('code', async () =>
                    setCode(await api<{ code: string; expiresAt: string }>(ROUTES.lineCodes, { method: 'POST' })),
                  )
                }
              >
                {t('line.newCode')}
              </Button>
            }
          >
            {code && (
              <Alert kind="info" title={t('line.codeTitle', { code: code.code })}>
                {t(isOwner ? 'line.codeBody' : 'line.codeBodyStaff', { time: formatDateTime(code.expiresAt, lang) })}
              </Alert>
            )}
            <p className="muted small">{t('line.limit', { n: d.groups.length, max: d.limits.groups })}</p>
            {d.groups.length === 0 ? (
              <p className="muted">{t('line.noGroups')}</p>
            ) : (
              <ul className="plain-list">
                {d.groups.map((g) => (
                  <li key={g.id}>
                    <p className="mono small break">{g.groupId}</p>
                    <Checkbox
                      label={t('line.silent')}
                      checked={g.silentNonSlip}
                      onChange={(e) =>
                        void act(g.id, async () => {
                          await api(ROUTES.lineGroup(g.id), { method: 'PATCH', body: { silentNonSlip: e.target.checked } });
                        })
                      }
                    />
                    {unlinkButton(`u${g.id}`, ROUTES.lineGroup(g.id))}
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <Card title={t('line.owners')}>
            {d.owners.length === 0 ? (
              <p className="muted">{t('line.noOwners')}</p>
            ) : (
              <ul className="plain-list">
                {d.owners.map((o) => (
                  <li key={o.id} className="session">
                    <div>
                      <p className="mono small break">{o.lineUserId}</p>
                      <p className="small muted">{formatDateTime(o.createdAt, lang)}</p>
                    </div>
                    {isOwner && unlinkButton(o.id, ROUTES.lineOwner(o.id))}
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </>
      )}
      <Dialog open={linking} title={t('line.link')} onClose={() => setLinking(false)}>
        <LinkForm
          onDone={async () => {
            setLinking(false);
            await page.reload();
          }}
        />
      </Dialog>
    </>
  );
}

function LinkForm({ onDone }: { onDone: () => Promise<void> }) {
  const { t } = useI18n();
  const [channelId, setChannelId] = useState('');
  const [channelSecret, setSecret] = useState('');
  const [accessToken, setToken] = useState('');
  const { busy, error, onSubmit } = useAsyncAction();
  // A value in the wrong box is said beside it in the person's language (checked here first, as the
  // service does; its own refusal is an English rule for developers).
  const [problem, setProblem] = useState<ReturnType<typeof lineChannelProblem>>(null);
  const refused = fieldRefusal(error, LINE_FIELDS);
  const wrong = problem ?? refused;
  const submit = onSubmit(async () => {
    const p = lineChannelProblem({ channelId, channelSecret, accessToken });
    setProblem(p);
    if (p) return;
    await api(ROUTES.lineChannels, {
      method: 'POST',
      body: { channelId: channelId.trim(), channelSecret: channelSecret.trim(), accessToken: accessToken.trim() },
    });
    await onDone();
  });
  return (
    <form onSubmit={submit}>
      <p className="muted small">{t('line.linkHint')}</p>
      {/* LINE's own names for the three values, as the LINE Developers console shows them. */}
      {(
        [
          ['Channel ID', 'channelId', channelId, setChannelId],
          ['Channel secret', 'channelSecret', channelSecret, setSecret],
          ['Channel access token', 'accessToken', accessToken, setToken],
        ] as const
      ).map(([label, field, value, set]) => (
        <Field
          key={label}
          label={label}
          required
          error={wrong?.field === field ? t(wrong.key) : null}
          // The ID is digits; the secret and the token are not shown on screen.
          {...(label === 'Channel ID' ? { inputMode: 'numeric' } : { type: 'password' })}
          autoComplete="off"
          value={value}
          onChange={(e) => {
            set(e.target.value);
            setProblem(null);
          }}
        />
      ))}
      <SubmitRow error={refused ? null : error} busy={busy}>
        {t('line.link')}
      </SubmitRow>
    </form>
  );
}
