import { Alert, Button, ErrorText } from '../components/ui';
import { useI18n } from '../i18n/i18n';

/**
 * The foot of a useSavedForm form: the "saved" notice (announced), the error, and Save for the owner or
 * the owner-only note for staff (the fieldset above is disabled for them).
 */
export function SavedFormActions({ saved, error, busy, isOwner }: { saved: boolean; error: unknown; busy: boolean; isOwner: boolean }) {
  const { t } = useI18n();
  return (
    <>
      <div aria-live="polite">{saved && <Alert kind="ok" title={t('common.saved')} />}</div>
      <ErrorText error={error} />
      {isOwner ? (
        <Button type="submit" busy={busy}>
          {t('common.save')}
        </Button>
      ) : (
        <Alert kind="info" title={t('common.ownerOnly')} />
      )}
    </>
  );
}
