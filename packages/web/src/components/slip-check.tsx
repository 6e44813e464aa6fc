import { useRef } from 'react';
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
