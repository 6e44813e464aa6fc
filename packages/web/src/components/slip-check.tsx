import { useRef, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { FirstUse } from '../api/types';
import { useI18n } from '../i18n/i18n';
import { formatDateTime, formatMoney } from '../lib/format';
import { Alert, Button } from './ui';

/**
 * "Take a photo" and "choose a picture" (dashboard Check page and LINE mini-app): two visible buttons open
 * two hidden file inputs. The camera one is separate because `capture` alone would stop phone users
 * choosing a screenshot from the gallery. The input is emptied after each pick so the same file can be
 * chosen again.
 */
export function SlipPickers({
  actionsClassName,
  cameraLabel,
  pickLabel,
  cameraClassName,
  cameraTestId,
  onFile,
}: {
  actionsClassName: string;
  cameraLabel: string;
  pickLabel: string;
  cameraClassName?: string;
  cameraTestId?: string;
  onFile: (file: File | undefined) => void;
}) {
  const camRef = useRef<HTMLInputElement>(null);
  const pickRef = useRef<HTMLInputElement>(null);
  return (
    <>
      <div className={actionsClassName}>
        <Button onClick={() => camRef.current?.click()} className={cameraClassName}>
          {cameraLabel}
        </Button>
        <Button variant="secondary" onClick={() => pickRef.current?.click()}>
          {pickLabel}
        </Button>
      </div>
      <input
        ref={camRef}
        type="file"
        accept="image/*"
        capture="environment"
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        data-testid={cameraTestId}
        onChange={(e) => {
          onFile(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <input
        ref={pickRef}
        type="file"
        accept="image/png,image/jpeg,image/*"
        className="sr-only"
        tabIndex={-1}
        aria-label={pickLabel}
        data-testid="slip-input"
        onChange={(e) => {
          onFile(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
    </>
  );
}

/** Shown while a slip is being checked (the bank can take a few seconds). */
export function CheckingNotice({ label }: { label: string }) {
  return (
    <Alert
      kind="info"
      title={
        <>
          <span className="spinner" aria-hidden="true" /> {label}
        </>
      }
    />
  );
}

/** The first use a quota-wall 402 names when the refused picture re-uses a transfer the shop already credited, else null. */
export function firstUseOf(error: unknown): FirstUse | null {
  if (!(error instanceof ApiError) || error.status !== 402) return null;
  const f = error.body.firstUse as Partial<FirstUse> | undefined;
  return f && typeof f.transactionId === 'string' && typeof f.createdAt === 'string'
    ? { transactionId: f.transactionId, createdAt: f.createdAt, amount: typeof f.amount === 'number' ? f.amount : null }
    : null;
}

/**
 * Above the quota message (dashboard Check page and LINE mini-app): the picture was not checked, but
 * it is another slip of a payment already credited. "Quota used up" alone sent staff to the bank app,
 * where they found the first payment's money and handed the goods over twice. `link` opens the first
 * record (a router link on the dashboard, a plain one in the mini-app).
 */
export function ReusedSlipWarning({ firstUse, link }: { firstUse: FirstUse; link: (href: string, label: string) => ReactNode }) {
  const { t, lang } = useI18n();
  return (
    <div data-testid="reused-slip">
      <Alert kind="warn" title={t('check.reused.title')}>
        <p>{t('check.reused.body', { time: formatDateTime(firstUse.createdAt, lang), amount: formatMoney(firstUse.amount) })}</p>
        {link(`/transactions/${encodeURIComponent(firstUse.transactionId)}`, t('check.reused.open'))}
      </Alert>
    </div>
  );
}
