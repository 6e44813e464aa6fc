import { useState } from 'react';
import { api } from '../api/client';
import { hasErrorCode } from '../api/error-code';
import { ROUTES } from '../api/routes';
import type { ApiKey } from '../api/types';
import { Alert, Button, Card, Checkbox, Dialog, Empty, ErrorText, Field, Loading, PageHeader } from '../components/ui';
import { ConfirmActions, SecretCard, Segmented, SubmitRow } from '../components/form-parts';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { useAsyncAction } from '../lib/use-async-action';
import { useLoad } from '../lib/use-load';

const SCOPES = ['verify', 'read', 'webhook'] as const;

export function KeysScreen() {
  const { t, lang } = useI18n();
  const list = useLoad(() => api<{ apiAccess: boolean; items: ApiKey[] }>(ROUTES.keys));
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<{ key: string; apiKey: ApiKey } | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'rotate' | 'revoke'; key: ApiKey } | null>(null);
  const { busy, error, setError, run: runAction } = useAsyncAction();
  const apiAccess = list.data?.apiAccess ?? true;
  const planError = hasErrorCode(error, 'PLAN_API_ACCESS_REQUIRED');

  async function run(c: { kind: 'rotate' | 'revoke'; key: ApiKey }) {
    const ok = await runAction(async () => {
      if (c.kind === 'rotate') setShown(await api<{ key: string; apiKey: ApiKey }>(ROUTES.keyRotate(c.key.id), { method: 'POST' }));
      else await api(ROUTES.keyRevoke(c.key.id), { method: 'POST' });
      setConfirm(null);
      await list.reload();
    });
    if (!ok) setConfirm(null);
  }

  return (
    <>
      <PageHeader
        title={t('keys.title')}
        intro={t('keys.intro')}
        actions={
          <Button
            disabled={!apiAccess}
            aria-describedby={!apiAccess ? 'keys-disabled-why' : undefined}
            onClick={() => {
              setError(null);
              setCreating(true);
            }}
          >
            {t('keys.create')}
          </Button>
        }
      />
      {!apiAccess && (
        <p id="keys-disabled-why" className="field-hint">
          {t('keys.createDisabled')}
        </p>
      )}
      {/* After a refused create the error below says the same thing: show one, not both. */}
      {!apiAccess && !planError && (
        <Alert kind="warn" title={t('keys.trialTitle')}>
          {t('keys.trialBody')}
        </Alert>
      )}
      {planError ? (
        <Alert kind="error" title={t('error.PLAN_API_ACCESS_REQUIRED')}>
          {t('keys.trialBody')}
        </Alert>
      ) : (
        <ErrorText error={error ?? list.error} />
      )}
      {shown && (
        <SecretCard
          title={t('keys.newKeyTitle')}
          className="new-key"
          warning={t('keys.showOnce')}
          secret={shown.key}
          secretLabel={t('keys.fullKey')}
          dismissLabel={t('keys.saved')}
          onDismiss={() => setShown(null)}
        />
      )}
      {/* A list that did not load is not an empty one (the error above says why). */}
      {list.loading && !list.data ? (
        <Loading />
      ) : !list.data ? null : !list.data.items.length ? (
        <Card>
          <Empty title={t('keys.empty')}>{t('keys.emptyHint')}</Empty>
        </Card>
      ) : (
        <ul className="cards-list">
          {list.data.items.map((k) => (
            <li key={k.id} className={`card key ${k.revokedAt ? 'revoked' : ''}`}>
              <div className="key-head">
                <p className="key-name">{k.name || t('keys.unnamed')}</p>
                <span className={`tag ${k.environment === 'live' ? 'tag-live' : 'tag-test'}`}>
                  {t(`keys.env.${k.environment}` as MessageKey)}
                </span>
                {k.revokedAt && <span className="tag tag-revoked">{t('keys.revoked')}</span>}
              </div>
              <dl className="kv kv-compact">
                <div>
                  <dt>{t('keys.prefix')}</dt>
                  <dd className="mono">{k.prefix}…</dd>
                </div>
                <div>
                  <dt>{t('keys.scopes')}</dt>
                  <dd>{k.scopes.map((s) => t(`keys.scope.${s}` as MessageKey)).join(', ')}</dd>
                </div>
                <div>
                  <dt>{t('keys.created')}</dt>
                  <dd>{formatDateTime(k.createdAt, lang)}</dd>
                </div>
                <div>
                  <dt>{t('keys.lastUsed')}</dt>
                  <dd>{k.lastUsedAt ? formatDateTime(k.lastUsedAt, lang) : t('keys.never')}</dd>
                </div>
                <div>
                  <dt>{t('keys.calls')}</dt>
                  <dd>
                    {(k.callsThisMonth ?? 0).toLocaleString()}
                    {k.usage && k.usage.total > 0 && (
                      <span className="key-usage">
                        {' '}
                        (
                        {Object.entries(k.usage.byStatus)
                          .map(([s, n]) => `${t(`status.${s}` as MessageKey)} ${n.toLocaleString()}`)
                          .join(' · ')}
                        )
                      </span>
                    )}
                  </dd>
                </div>
              </dl>
              {!k.revokedAt && (
                <div className="row-actions">
                  <Button variant="secondary" onClick={() => setConfirm({ kind: 'rotate', key: k })}>
                    {t('keys.rotate')}
                  </Button>
                  <Button variant="danger" onClick={() => setConfirm({ kind: 'revoke', key: k })}>
                    {t('keys.revoke')}
                  </Button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      <Dialog open={creating} title={t('keys.create')} onClose={() => setCreating(false)}>
        {!apiAccess && (
          <Alert kind="warn" title={t('keys.trialTitle')}>
            {t('keys.trialBody')}
          </Alert>
        )}
        <CreateKeyForm
          onCreated={async (r) => {
            setCreating(false);
            setShown(r);
            await list.reload();
          }}
          onError={(e) => {
            setCreating(false);
            setError(e);
          }}
        />
      </Dialog>
      <Dialog
        open={!!confirm}
        title={confirm?.kind === 'rotate' ? t('keys.rotateTitle') : t('keys.revokeTitle')}
        onClose={() => setConfirm(null)}
      >
        {confirm && (
          <>
            <p>
              {confirm.kind === 'rotate'
                ? t('keys.rotateBody', { prefix: confirm.key.prefix })
                : t('keys.revokeBody', { prefix: confirm.key.prefix })}
            </p>
            <ConfirmActions
              variant={confirm.kind === 'revoke' ? 'danger' : 'primary'}
              busy={busy}
              confirmLabel={confirm.kind === 'rotate' ? t('keys.rotate') : t('keys.revoke')}
              onCancel={() => setConfirm(null)}
              onConfirm={() => void run(confirm)}
            />
          </>
        )}
      </Dialog>
    </>
  );
}

function CreateKeyForm({
  onCreated,
  onError,
}: {
  onCreated: (r: { key: string; apiKey: ApiKey }) => Promise<void>;
  onError: (e: unknown) => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [environment, setEnv] = useState<'live' | 'test'>('live');
  const [scopes, setScopes] = useState<string[]>(['verify']);
  const { busy, error, onSubmit } = useAsyncAction();
  const submit = onSubmit(async () => {
    try {
      await onCreated(
        await api<{ key: string; apiKey: ApiKey }>(ROUTES.keys, {
          method: 'POST',
          body: { name: name.trim() || undefined, environment, scopes },
        }),
      );
    } catch (err) {
      // The plan refusal is said once, on the page behind the dialog, which closes.
      if (hasErrorCode(err, 'PLAN_API_ACCESS_REQUIRED')) onError(err);
      else throw err;
    }
  });
  return (
    <form onSubmit={submit}>
      <Field
        label={t('keys.name')}
        maxLength={80}
        placeholder={t('keys.namePlaceholder')}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <Segmented
        legend={t('keys.environment')}
        name="env"
        options={[
          { value: 'live', label: t('keys.env.live') },
          { value: 'test', label: t('keys.env.test') },
        ]}
        value={environment}
        onChange={setEnv}
      />
      <p className="field-hint">{environment === 'live' ? t('keys.liveHint') : t('keys.testHint')}</p>
      <fieldset>
        <legend>{t('keys.scopes')}</legend>
        {SCOPES.map((s) => (
          <Checkbox
            key={s}
            label={t(`keys.scope.${s}` as MessageKey)}
            hint={t(`keys.scopeHint.${s}` as MessageKey)}
            checked={scopes.includes(s)}
            onChange={(e) => setScopes((xs) => (e.target.checked ? [...xs, s] : xs.filter((x) => x !== s)))}
          />
        ))}
      </fieldset>
      <SubmitRow error={error} busy={busy} disabled={!scopes.length}>
        {t('keys.create')}
      </SubmitRow>
    </form>
  );
}
