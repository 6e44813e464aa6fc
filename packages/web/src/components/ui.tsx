import {
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent as ReactKeyboardEvent,
  type ButtonHTMLAttributes,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
} from 'react';
import { explainError } from '../lib/error-explain';
import { useI18n } from '../i18n/i18n';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';
export function Button({
  variant = 'primary',
  busy,
  children,
  className,
  ...rest
}: { variant?: Variant; busy?: boolean } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button
      type="button"
      {...rest}
      className={`btn btn-${variant} ${className ?? ''}`}
      disabled={rest.disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

export function Field({
  label,
  hint,
  error,
  ...rest
}: { label: string; hint?: string; error?: string | null } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={hint || error ? `${id}-d` : undefined} {...rest} />
      {(hint || error) && (
        <p id={`${id}-d`} className={error ? 'field-error' : 'field-hint'}>
          {error || hint}
        </p>
      )}
    </div>
  );
}

export function Select({
  label,
  children,
  hint,
  ...rest
}: { label: string; hint?: string; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-describedby={hint ? `${id}-d` : undefined} {...rest}>
        {children}
      </select>
      {hint && (
        <p id={`${id}-d`} className="field-hint">
          {hint}
        </p>
      )}
    </div>
  );
}

export function Checkbox({ label, hint, ...rest }: { label: string; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="check">
      <input id={id} type="checkbox" {...rest} />
      <label htmlFor={id}>
        {label}
        {hint && <span className="field-hint"> {hint}</span>}
      </label>
    </div>
  );
}

export function Card({
  title,
  actions,
  children,
  className,
  headingLevel = 2,
}: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  headingLevel?: 2 | 3;
}) {
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

export function Alert({
  kind = 'info',
  title,
  children,
}: {
  kind?: 'info' | 'warn' | 'error' | 'ok';
  title?: ReactNode;
  children?: ReactNode;
}) {
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
  const e = explainError(error);
  // An unknown code keeps the server's sentence (better than nothing), behind our generic one.
  return e.fallback ? `${t(e.key)} (${e.fallback})` : t(e.key, e.vars);
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <svg aria-hidden="true" viewBox="0 0 48 48" width="40" height="40">
        <rect x="8" y="6" width="32" height="36" rx="4" fill="none" stroke="currentColor" strokeWidth="2.5" />
        <path d="M16 18h16M16 25h16M16 32h9" stroke="currentColor" strokeWidth="2.5" strokeLinecap="round" />
      </svg>
      <p className="empty-title">{title}</p>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {t('common.loading')}
    </div>
  );
}

export function CopyButton({ value, label }: { value: string; label?: string }) {
  const { t } = useI18n();
  const [done, setDone] = useState(false);
  return (
    <Button
      variant="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
        } catch {
          // Clipboard needs a secure context; fall back to selecting via a temporary field.
          const ta = document.createElement('textarea');
          ta.value = value;
          document.body.appendChild(ta);
          ta.select();
          try {
            document.execCommand('copy');
          } catch {
            /* ignore */
          }
          ta.remove();
        }
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? t('common.copied') : (label ?? t('common.copy'))}
      <span className="sr-only" aria-live="polite">
        {done ? t('common.copied') : ''}
      </span>
    </Button>
  );
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** showModal() makes the page inert, but Tab can still leave for the browser's own UI: wrap it. */
function trapTab(e: ReactKeyboardEvent<HTMLDialogElement>) {
  if (e.key !== 'Tab') return;
  const els = Array.from(e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => el.offsetParent !== null || el === document.activeElement,
  );
  if (!els.length) return;
  const first = els[0],
    last = els[els.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/** A modal built on <dialog>: Escape closes it (native cancel), Tab is kept inside, focus goes back to the opener. */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const id = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement as HTMLElement | null;
      d.showModal?.();
    }
    if (!open && d.open) d.close();
    if (!open && opener.current) {
      // Back to the control that opened it, if it is still on the page (not, e.g., a removed row).
      if (opener.current.isConnected) opener.current.focus();
      opener.current = null;
    }
  }, [open]);
  const { t } = useI18n();
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={id}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onKeyDown={trapTab}
    >
      {open && (
        <div className="dialog-body">
          <header className="dialog-head">
            <h2 id={id}>{title}</h2>
            <button type="button" className="icon-btn" onClick={onClose} aria-label={t('common.close')}>
              ×
            </button>
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
        <h1 tabIndex={-1} id="page-title">
          {title}
        </h1>
        {intro && <p className="page-intro">{intro}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </div>
  );
}
