import { useState } from 'react';
import { useAuth } from '../api/auth';
import { api, ApiError } from '../api/client';
import { hasErrorCode } from '../api/error-code';
import { ROUTES } from '../api/routes';
import type { WebhookDelivery, WebhookEndpoint } from '../api/types';
import { Alert, Button, Card, Checkbox, Dialog, Empty, ErrorText, Field, Loading, PageHeader } from '../components/ui';
import { ConfirmActions, SecretCard } from '../components/form-parts';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { explainDeliveryError } from '../lib/delivery-error';
import { formatDateTime } from '../lib/format';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';

const EVENTS = ['slip.verified', 'slip.duplicate', 'slip.failed'];
const isEnabled = (e: WebhookEndpoint) => e.status !== 'disabled';

export function WebhooksScreen() {
  const { t } = useI18n();
  const list = useLoad(() => api<{ items: WebhookEndpoint[] }>(ROUTES.webhooks));
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ id: string; secret: string } | null>(null);
  const planError = hasErrorCode(list.error, 'PLAN_API_ACCESS_REQUIRED');
  // The list works on the trial but adding answers 403: say so before the owner fills in the form.
  const onTrial = useAuth().me?.shop.planCode === 'TRIAL';
  const missing = list.error instanceof ApiError && list.error.status === 404;
  return (
    <>
      <PageHeader
        title={t('webhooks.title')}
        intro={t('webhooks.intro')}
        actions={!planError && !missing ? <Button onClick={() => setAdding(true)}>{t('webhooks.add')}</Button> : undefined}
      />
      {onTrial && !planError && (
        <Alert kind="warn" title={t('keys.trialTitle')}>
          {t('webhooks.planBody')}
        </Alert>
      )}
      {planError ? (
        <Alert kind="warn" title={t('error.PLAN_WEBHOOKS_REQUIRED')}>
          {t('webhooks.planBody')}
        </Alert>
      ) : missing ? (
        <Alert kind="info" title={t('webhooks.unavailable')} />
      ) : (
        <ErrorText error={list.error} />
      )}
      {secret && (
        <SecretCard
          title={t('webhooks.secretTitle')}
          warning={t('webhooks.secretOnce')}
          secret={secret.secret}
          dismissLabel={t('common.hide')}
          onDismiss={() => setSecret(null)}
        />
      )}
      {list.loading && !list.data ? (
        <Loading />
      ) : (
        list.data &&
        (list.data.items.length === 0 ? (
          <Card>
            <Empty title={t('webhooks.empty')}>{t('webhooks.emptyHint')}</Empty>
          </Card>
        ) : (
          list.data.items.map((ep) => (
            <EndpointCard key={ep.id} ep={ep} onChanged={list.reload} onSecret={(s) => setSecret({ id: ep.id, secret: s })} />
          ))
        ))
      )}
      <Dialog open={adding} title={t('webhooks.add')} onClose={() => setAdding(false)}>
        <AddEndpoint
          onDone={async (s) => {
            setAdding(false);
            if (s) setSecret(s);
            await list.reload();
          }}
        />
      </Dialog>
    </>
  );
}

function AddEndpoint({ onDone }: { onDone: (s: { id: string; secret: string } | null) => Promise<void> }) {
  const { t } = useI18n();
  const [url, setUrl] = useState('https://');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(EVENTS);
  const { busy, error, onSubmit } = useAsyncAction();
  const submit = onSubmit(async () => {
    const r = await api<{ endpoint: WebhookEndpoint; secret: string }>(ROUTES.webhooks, {
      method: 'POST',
      body: { url: url.trim(), events, description: description.trim() || undefined },
    });
    await onDone({ id: r.endpoint.id, secret: r.secret });
  });
  return (
    <form onSubmit={submit}>
      <Field
        label={t('webhooks.url')}
        type="url"
        required
        inputMode="url"
        hint={t('webhooks.urlHint')}
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <Field label={t('webhooks.description')} maxLength={200} value={description} onChange={(e) => setDescription(e.target.value)} />
      <fieldset>
        <legend>{t('webhooks.events')}</legend>
        {EVENTS.map((ev) => (
          <Checkbox
            key={ev}
            label={t(`webhooks.event.${ev}` as MessageKey)}
            hint={<code className="code-detail">{ev}</code>}
            checked={events.includes(ev)}
            onChange={(e) => setEvents((xs) => (e.target.checked ? [...xs, ev] : xs.filter((x) => x !== ev)))}
          />
        ))}
        {/* Save waits for an event: say so, or the greyed button looks broken. */}
        {!events.length && (
          <p id="webhook-events-why" className="field-hint">
            {t('webhooks.pickEvent')}
          </p>
        )}
      </fieldset>
      <ErrorText error={error} />
      {hasErrorCode(error, 'INVALID_WEBHOOK_URL') && (
        <div className="url-refusal" data-testid="webhook-url-reason">
          {typeof error.body.allowLocalTargets === 'string' && (
            <p className="small">{t('webhooks.localHint', { setting: error.body.allowLocalTargets })}</p>
          )}
          {/* The sentence above is in the person's language; the server's own words are for support. */}
          <details className="support-detail">
            <summary>{t('result.supportDetail')}</summary>
            <p className="small">
              {t('webhooks.serverReason')}: <span className="code-detail break">{error.message}</span>
            </p>
          </details>
        </div>
      )}
      <Button
        type="submit"
        busy={busy}
        disabled={!events.length}
        aria-describedby={events.length ? undefined : 'webhook-events-why'}
        className="btn-block"
      >
        {t('common.save')}
      </Button>
    </form>
  );
}

function EndpointCard({ ep, onChanged, onSecret }: { ep: WebhookEndpoint; onChanged: () => Promise<void>; onSecret: (s: string) => void }) {
  const { t, lang } = useI18n();
  const deliveries = useLoad(() => api<{ items: WebhookDelivery[] }>(ROUTES.deliveries(ep.id), { query: { limit: 20 } }), ep.id);
  const { busyKey: busy, error, run } = useAsyncAction();
  const [note, setNote] = useState('');
  const [confirmDelete, setConfirmDelete] = useState(false);
  function act(what: string, fn: () => Promise<void>) {
    setNote('');
    return run(fn, what);
  }
  /** Reveal and rotate both answer the signing secret, which the page shows once. */
  const secretButton = (what: 'reveal' | 'rotate', route: string, label: string) => (
    <Button
      variant="secondary"
      busy={busy === what}
      onClick={() =>
        void act(what, async () => {
          onSecret((await api<{ secret: string }>(route, { method: 'POST' })).secret);
          // A rotation starts the overlap the card shows (previousSecretExpiresAt): read the endpoint again.
          if (what === 'rotate') await onChanged();
        })
      }
    >
      {label}
    </Button>
  );
  const enabled = isEnabled(ep);
  const eventLabel = (ev: string) => (EVENTS.includes(ev) ? t(`webhooks.event.${ev}` as MessageKey) : ev);
  return (
    <Card
      title={<span className="break">{ep.url}</span>}
      actions={<span className={`tag ${enabled ? 'tag-primary' : ''}`}>{enabled ? t('webhooks.enabled') : t('webhooks.disabled')}</span>}
    >
      {ep.description && <p className="muted">{ep.description}</p>}
      <p className="small muted">
        {t('webhooks.events')}: {(ep.events ?? EVENTS).map((ev) => eventLabel(ev)).join(', ')}
      </p>
      {ep.secretHint && (
        <p className="small muted">
          {t('webhooks.secretHint')}: <span className="mono">{ep.secretHint}</span>
        </p>
      )}
      {ep.previousSecretExpiresAt && (
        // Receivers roll to the new secret during this overlap; without it the owner could not know the old one still works.
        <p className="small" data-testid="previous-secret">
          {t('webhooks.previousSecretUntil', { time: formatDateTime(ep.previousSecretExpiresAt, lang) })}
        </p>
      )}
      {ep.disabledReason === 'GONE' && <Alert kind="warn" title={t('webhooks.gone')} />}
      <div className="row-actions wrap">
        <Button
          busy={busy === 'test'}
          onClick={() =>
            void act('test', async () => {
              await api(ROUTES.webhookTest(ep.id), { method: 'POST' });
              setNote(t('webhooks.testSent'));
              await deliveries.reload();
            })
          }
        >
          {t('webhooks.sendTest')}
        </Button>
        {secretButton('reveal', ROUTES.webhookReveal(ep.id), t('webhooks.reveal'))}
        {secretButton('rotate', ROUTES.webhookRotate(ep.id), t('webhooks.rotate'))}
        <Button
          variant="secondary"
          busy={busy === 'toggle'}
          onClick={() =>
            void act('toggle', async () => {
              await api(ROUTES.webhook(ep.id), { method: 'PATCH', body: { enabled: !enabled } });
              await onChanged();
            })
          }
        >
          {enabled ? t('webhooks.disable') : t('webhooks.enable')}
        </Button>
        <Button variant="danger" onClick={() => setConfirmDelete(true)}>
          {t('common.remove')}
        </Button>
      </div>
      <div aria-live="polite">{note && <Alert kind="ok" title={note} />}</div>
      <ErrorText error={error} />
      <h3 className="sub-title">
        {t('webhooks.deliveries')}{' '}
        <Button variant="ghost" onClick={() => void deliveries.reload()}>
          {t('common.refresh')}
        </Button>
      </h3>
      {deliveries.loading && !deliveries.data ? (
        <Loading />
      ) : !deliveries.data?.items.length ? (
        <p className="muted">{t('webhooks.noDeliveries')}</p>
      ) : (
        <ul className="deliveries" data-testid="deliveries">
          {deliveries.data.items.map((d) => (
            <li key={d.id} className="delivery">
              <span className={`tag tag-d-${d.status}`}>{t(`webhooks.dstatus.${d.status}` as MessageKey)}</span>
              <span className="small">
                {eventLabel(d.event)}
                {d.test ? ` (${t('webhooks.test')})` : ''}
              </span>
              <span className="small muted">
                {formatDateTime(d.createdAt, lang)} ·{' '}
                {d.attempt
                  ? t('webhooks.attemptOf', { n: d.attempt, max: Math.max(d.attempt, d.maxAttempts ?? d.attempt) })
                  : t('webhooks.notSentYet')}
                {d.lastStatusCode ? ` · HTTP ${d.lastStatusCode}` : ''}
              </span>
              {d.status === 'retrying' && d.nextAttemptAt && (
                <span className="small" data-testid="delivery-next-attempt">
                  {t('webhooks.nextAt', { time: formatDateTime(d.nextAttemptAt, lang) })}
                </span>
              )}
              {d.lastError && <DeliveryError raw={d.lastError} />}
              {/* A scheduled delivery cannot be sent by hand (409 DELIVERY_IN_PROGRESS): only finished ones offer it. */}
              {d.status !== 'pending' && d.status !== 'retrying' && (
                <Button
                  variant="ghost"
                  busy={busy === d.id}
                  onClick={() =>
                    void act(d.id, async () => {
                      await api(ROUTES.redeliver(ep.id, d.id), { method: 'POST' });
                      await deliveries.reload();
                    })
                  }
                >
                  {t('webhooks.redeliver')}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      <Dialog open={confirmDelete} title={t('webhooks.removeTitle')} onClose={() => setConfirmDelete(false)}>
        <p className="break">{ep.url}</p>
        <ConfirmActions
          confirmLabel={t('common.remove')}
          onCancel={() => setConfirmDelete(false)}
          onConfirm={() => {
            setConfirmDelete(false);
            void act('delete', async () => {
              await api(ROUTES.webhook(ep.id), { method: 'DELETE' });
              await onChanged();
            });
          }}
        />
      </Dialog>
    </Card>
  );
}

/**
 * What went wrong with a delivery, in the page's language; the error the server recorded (what the
 * integrator searches for: `ECONNREFUSED ...`, `HTTP 500`) one tap away, as in the URL refusal above.
 */
function DeliveryError({ raw }: { raw: string }) {
  const { t } = useI18n();
  const said = explainDeliveryError(raw);
  if (!said) return null;
  return (
    <div className="small delivery-error">
      <span className="error-text" data-testid="delivery-error">
        {t(said.key, said.vars)}
      </span>
      <details className="support-detail">
        <summary>{t('webhooks.err.detail')}</summary>
        <span className="code-detail break">{raw}</span>
      </details>
    </div>
  );
}
