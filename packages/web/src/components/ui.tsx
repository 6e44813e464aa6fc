import { useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { ApiError } from '../api/client';
import { useI18n, type MessageKey } from '../i18n/i18n';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';
export function Button({ variant = 'primary', busy, children, className, ...rest }: { variant?: Variant; busy?: boolean } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="button" {...rest} className={`btn btn-${variant} ${className ?? ''}`} disabled={rest.disabled || busy} aria-busy={busy || undefined}>
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

export function Field({ label, hint, error, ...rest }: { label: string; hint?: string; error?: string | null } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={hint || error ? `${id}-d` : undefined} {...rest} />
      {(hint || error) && <p id={`${id}-d`} className={error ? 'field-error' : 'field-hint'}>{error || hint}</p>}
    </div>
  );
}

export function Select({ label, children, hint, ...rest }: { label: string; hint?: string; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-describedby={hint ? `${id}-d` : undefined} {...rest}>{children}</select>
      {hint && <p id={`${id}-d`} className="field-hint">{hint}</p>}
    </div>
  );
}

export function Checkbox({ label, hint, ...rest }: { label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="check">
      <input id={id} type="checkbox" {...rest} />
      <label htmlFor={id}>{label}{hint && <span className="field-hint"> {hint}</span>}</label>
    </div>
  );
}

export function Card({ title, actions, children, className, headingLevel = 2 }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; headingLevel?: 2 | 3 }) {
  const H = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className={`card ${className ?? ''}`}>
      {(title || actions) && (
        <header className="card-head">
          {title && <H className="card-title">{title}</H>}
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function Alert({ kind = 'info', title, children }: { kind?: 'info' | 'warn' | 'error' | 'ok'; title?: ReactNode; children?: ReactNode }) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {title && <strong className="alert-title">{title}</strong>}
      {children && <div>{children}</div>}
    </div>
  );
}

/** Maps an API error to a sentence in the owner's language; the server's message is kept as a detail. */
export function ErrorText({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!error) return null;
  return <Alert kind="error" title={errorMessage(error, t)} />;
}

export function errorMessage(error: unknown, t: ReturnType<typeof useI18n>['t']): string {
  if (error instanceof ApiError) {
    const key = `error.${error.code}` as MessageKey;
    const known = t(key, { message: error.message });
    if (known !== key) return known;
    if (error.status === 429) return t('error.RATE_LIMITED');
    if (error.status >= 500) return t('error.server');
    return error.message || t('error.generic');
  }
  if (error instanceof TypeError) return t('error.network');
  return t('error.generic');
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <svg aria-hidden="true" viewBox="0 0 48 48" width="40" height="40"><rect x="8" y="6" width="32" height="36" rx="4" fill="none" stroke="currentColor" strokeWidth="2.5" /><path d="M16 18h16M16 25h16M16 32h9" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" /></svg>
      <p className="empty-title">{title}</p>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

export function Loading() {
  const { t } = useI18n();
  return <div className="loading" role="status"><span className="spinner" aria-hidden="true" /> {t('common.loading')}</div>;
}

export function CopyButton({ value, label }: { value: string; label?: string }) {
  const { t } = useI18n();
  const [done, setDone] = useState(false);
  return (
    <Button
      variant="secondary"
      onClick={async () => {
        try { await navigator.clipboard.writeText(value); } catch {
          // Clipboard needs a secure context; fall back to selecting via a temporary field.
          const ta = document.createElement('textarea');
          ta.value = value; document.body.appendChild(ta); ta.select();
          try { document.execCommand('copy'); } catch { /* ignore */ }
          ta.remove();
        }
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? t('common.copied') : label ?? t('common.copy')}
      <span className="sr-only" aria-live="polite">{done ? t('common.copied') : ''}</span>
    </Button>
  );
}

/** A modal built on <dialog>: focus is trapped and Escape closes it natively. */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal?.();
    if (!open && d.open) d.close();
  }, [open]);
  const { t } = useI18n();
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={id} onClose={onClose} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      {open && (
        <div className="dialog-body">
          <header className="dialog-head">
            <h2 id={id}>{title}</h2>
            <button type="button" className="icon-btn" onClick={onClose} aria-label={t('common.close')}>×</button>
          </header>
          {children}
        </div>
      )}
    </dialog>
  );
}

export function PageHeader({ title, intro, actions }: { title: string; intro?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-head">
      <div>
        <h1 tabIndex={-1} id="page-title">{title}</h1>
        {intro && <p className="page-intro">{intro}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  );
}
