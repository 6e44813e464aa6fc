import type { InputHTMLAttributes, ReactNode } from 'react';
import { useI18n } from '../i18n/i18n';
import { Alert, Button, Card, CopyButton, ErrorText, Field } from './ui';

type FieldProps = { label?: string; hint?: string; error?: string | null } & InputHTMLAttributes<HTMLInputElement>;

/** The sign-in e-mail field (login, sign-up, forgotten password). */
export function EmailField({ label, ...rest }: FieldProps) {
  const { t } = useI18n();
  return <Field label={label ?? t('auth.email')} type="email" autoComplete="email" required {...rest} />;
}

/** The password the person has now (sign-in, password change, erasure). */
export function CurrentPasswordField({ label, ...rest }: FieldProps) {
  const { t } = useI18n();
  return <Field label={label ?? t('auth.password')} type="password" autoComplete="current-password" required {...rest} />;
}

/** A new password: the length rules the server enforces, and the hint that says them. */
export function NewPasswordField({ label, ...rest }: FieldProps) {
  const { t } = useI18n();
  return (
    <Field
      label={label ?? t('auth.password')}
      type="password"
      autoComplete="new-password"
      required
      minLength={8}
      maxLength={200}
      hint={t('auth.passwordHint')}
      {...rest}
    />
  );
}

/** The end of a form: what went wrong, then the submit button, which spins while the form is sent. */
export function SubmitRow({
  error,
  busy,
  disabled,
  block = true,
  children,
}: {
  error: unknown;
  busy: boolean;
  disabled?: boolean;
  block?: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <ErrorText error={error} />
      <Button type="submit" busy={busy} disabled={disabled} className={block ? 'btn-block' : undefined}>
        {children}
      </Button>
    </>
  );
}

/** A dialog's cancel and confirm buttons. */
export function ConfirmActions({
  onCancel,
  onConfirm,
  confirmLabel,
  variant = 'danger',
  busy,
  submit,
}: {
  onCancel: () => void;
  /** Left out when the confirm button submits the dialog's form (`submit`). */
  onConfirm?: () => void;
  confirmLabel: string;
  variant?: 'primary' | 'danger';
  busy?: boolean;
  submit?: boolean;
}) {
  const { t } = useI18n();
  return (
    <div className="dialog-actions">
      <Button variant="secondary" onClick={onCancel}>
        {t('common.cancel')}
      </Button>
      <Button type={submit ? 'submit' : 'button'} variant={variant} busy={busy} onClick={onConfirm}>
        {confirmLabel}
      </Button>
    </div>
  );
}

/** A secret the server shows once (API key, webhook signing secret): the warning, the value, copy and dismiss. */
export function SecretCard({
  title,
  warning,
  secret,
  secretLabel,
  dismissLabel,
  onDismiss,
  className,
}: {
  title: string;
  warning: string;
  secret: string;
  secretLabel?: string;
  dismissLabel: string;
  onDismiss: () => void;
  className?: string;
}) {
  return (
    <Card title={title} className={className}>
      <Alert kind="warn" title={warning} />
      {/* Said before the secret, not as its aria-label: a paragraph cannot carry a name. */}
      {secretLabel && <p className="sr-only">{secretLabel}</p>}
      <p className="secret mono">{secret}</p>
      <div className="row-actions">
        <CopyButton value={secret} />
        <Button variant="ghost" onClick={onDismiss}>
          {dismissLabel}
        </Button>
      </div>
    </Card>
  );
}

/** A choice of two or three shown side by side (radio buttons under one legend). */
export function Segmented<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  options: readonly { value: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset className="segmented">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o.value}>
          <input type="radio" name={name} checked={value === o.value} onChange={() => onChange(o.value)} /> {o.label}
        </label>
      ))}
    </fieldset>
  );
}
