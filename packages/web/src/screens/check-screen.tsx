import { useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import { hasErrorCode } from '../api/error-code';
import { ROUTES } from '../api/routes';
import type { TransactionRecord } from '../api/types';
import { ResultCard, resultVars } from '../components/result-card';
import { CheckingNotice, firstUseOf, ReusedSlipWarning, SlipPickers } from '../components/slip-check';
import { Alert, Button, Card, ErrorText, errorMessage, Field, PageHeader } from '../components/ui';
import { useI18n } from '../i18n/i18n';
import { Link } from '../lib/router';
import { explainResult } from '../lib/result-explain';
import { amountProblem, amountQuery } from '../lib/money';

type VerifyResult = TransactionRecord & { quota?: { used: number; limit: number; remaining: number } };
const MAX_BYTES = 10 * 1024 * 1024;

export function CheckScreen() {
  const { t, lang } = useI18n();
  // What the card says, with the same values (an edited slip's two amounts, a replay's time).
  const announce = (r: TransactionRecord) => {
    const ex = explainResult(r);
    const vars = resultVars(r, t, lang);
    return `${t(ex.title, vars)}. ${t('result.nextLabel')} ${t(ex.next, vars)}`;
  };
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [expected, setExpected] = useState('');
  const [drag, setDrag] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<VerifyResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const [amountError, setAmountError] = useState(false);
  const resultRef = useRef<HTMLDivElement>(null);
  const firstUse = firstUseOf(error);

  // On a phone the card is below the picture: bring it into view once the answer is there.
  useEffect(() => {
    if (result || error)
      resultRef.current?.scrollIntoView({
        block: 'start',
        behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth',
      });
  }, [result, error]);

  useEffect(
    () => () => {
      if (preview) URL.revokeObjectURL(preview);
    },
    [preview],
  );

  function choose(f: File | null | undefined) {
    setResult(null);
    setError(null);
    setLocalError(null);
    if (!f) return;
    if (!/^image\//.test(f.type)) {
      setLocalError(t('check.notImage'));
      return;
    }
    if (f.size > MAX_BYTES) {
      setLocalError(t('error.PAYLOAD_TOO_LARGE'));
      return;
    }
    setFile(f);
    setPreview(URL.createObjectURL(f));
    void verify(f);
  }

  // Pasting a screenshot anywhere on this page checks it.
  useEffect(() => {
    const onPaste = (e: ClipboardEvent) => {
      const item = Array.from(e.clipboardData?.items ?? []).find((i) => i.type.startsWith('image/'));
      const f = item?.getAsFile();
      if (f) {
        e.preventDefault();
        choose(f);
      }
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  });

  async function verify(f: File) {
    setResult(null);
    setError(null);
    // An amount the service would refuse is said beside the field; the picture waits for "check again".
    const wrongAmount = amountProblem(expected) !== null;
    setAmountError(wrongAmount);
    if (wrongAmount) return;
    setBusy(true);
    try {
      const r = await api<VerifyResult>(ROUTES.verify, {
        method: 'POST',
        raw: f,
        contentType: f.type || 'application/octet-stream',
        query: { expectedAmount: amountQuery(expected) },
      });
      setResult(r);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageHeader title={t('check.title')} intro={t('check.intro')} />
      <Card>
        {/* Before the picture: checking starts the moment a picture is chosen. */}
        <Field
          label={t('check.expected')}
          hint={t('check.expectedHint')}
          enterKeyHint="done"
          inputMode="decimal"
          value={expected}
          error={amountError ? t('check.expectedInvalid') : null}
          onChange={(e) => {
            setExpected(e.target.value);
            setAmountError(false);
          }}
        />
        <div
          className={`dropzone ${drag ? 'drag' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDrag(true);
          }}
          onDragLeave={() => setDrag(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDrag(false);
            choose(e.dataTransfer.files?.[0]);
          }}
        >
          {preview ? (
            <img src={preview} alt={t('check.previewAlt')} className="preview" />
          ) : (
            <svg aria-hidden="true" viewBox="0 0 48 48" width="48" height="48">
              <path
                d="M24 32V12M16 20l8-8 8 8M10 34v4h28v-4"
                fill="none"
                stroke="currentColor"
                strokeWidth="3"
                strokeLinecap="round"
                strokeLinejoin="round"
              />
            </svg>
          )}
          <p className="dropzone-text">{t('check.dropHint')}</p>
          <SlipPickers
            actionsClassName="dropzone-actions"
            cameraLabel={t('check.camera')}
            cameraClassName="only-touch"
            cameraTestId="camera-input"
            pickLabel={t('check.choose')}
            onFile={choose}
          />
        </div>
        {/* Also after a corrected amount: the picture is still here, waiting to be checked. */}
        {file && !busy && (
          <Button variant="secondary" onClick={() => void verify(file)}>
            {t('check.again')}
          </Button>
        )}
      </Card>
      {/* A short sentence for screen readers; the full card below is not read out on every change. */}
      <p className="sr-only" role="status" aria-live="polite">
        {busy ? t('check.checking') : result ? announce(result) : ''}
      </p>
      <div ref={resultRef} aria-busy={busy} className="result-region">
        {busy && <CheckingNotice label={t('check.checking')} />}
        {localError && <Alert kind="error" title={localError} />}
        {hasErrorCode(error, 'NO_PAYEE_CONFIGURED') ? (
          <Alert kind="error" title={t('error.NO_PAYEE_CONFIGURED')}>
            <Link to="/payees" className="alert-action">
              {t('overview.addPayee')}
            </Link>
          </Alert>
        ) : hasErrorCode(error, 'QUOTA_EXCEEDED') ? (
          <>
            {firstUse && (
              <ReusedSlipWarning
                firstUse={firstUse}
                link={(href, label) => (
                  <Link to={href} className="alert-action">
                    {label}
                  </Link>
                )}
              />
            )}
            <Alert kind="error" title={errorMessage(error, t)}>
              <Link to="/" className="alert-action">
                {t('error.quotaNext')}
              </Link>
            </Alert>
          </>
        ) : (
          <ErrorText error={error} />
        )}
        {result && (
          <>
            <ResultCard record={result} />
            {result.quota && (
              <p className="muted small">
                {t('check.quotaAfter', { used: result.quota.used.toLocaleString(), limit: result.quota.limit.toLocaleString() })}
              </p>
            )}
            <p>
              <Link to={`/transactions/${result.id}`} className="btn btn-ghost">
                {t('check.openRecord')}
              </Link>
            </p>
          </>
        )}
      </div>
    </>
  );
}
