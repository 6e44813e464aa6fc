import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client';
import { fieldRefusal, invalidField, lineChannelProblem, nameProblem, payeeNumberProblem } from '../src/lib/field-errors';

describe('form fields are checked in the page with the server rules', () => {
  it('a single-line name: spaces alone, too long, line breaks and bidi controls are refused', () => {
    expect(nameProblem('ร้านกาแฟ ☕')).toBeNull();
    expect(nameProblem('   ')).toBe('form.nameEmpty');
    expect(nameProblem('ก'.repeat(121))).toBe('form.nameTooLong');
    expect(nameProblem('ร้าน\u202Eกาแฟ')).toBe('form.nameBadChars');
    expect(nameProblem('ร้าน\u2066กาแฟ')).toBe('form.nameBadChars');
    expect(nameProblem('ร้าน\nกาแฟ')).toBe('form.nameBadChars');
    // RTL marks and emoji are fine (docs/dashboard-api.md).
    expect(nameProblem('ร้าน\u200Fกาแฟ 😀')).toBeNull();
  });

  it("a payee number: the QA pass's 12ab-34 and each kind's length", () => {
    expect(payeeNumberProblem('BANK', 'PHONE', '12ab-34')).toBe('payees.error.accountNumber');
    expect(payeeNumberProblem('BANK', 'PHONE', '123-4-56660-9')).toBeNull();
    expect(payeeNumberProblem('PROMPTPAY', 'PHONE', '081 234 5678')).toBeNull();
    expect(payeeNumberProblem('PROMPTPAY', 'PHONE', '8123456789')).toBe('payees.error.PHONE');
    expect(payeeNumberProblem('PROMPTPAY', 'NATID', '123456789012')).toBe('payees.error.NATID');
    expect(payeeNumberProblem('PROMPTPAY', 'EWALLET', '1'.repeat(15))).toBeNull();
  });

  it("a LINE official account's three values: the box that is wrong", () => {
    const ok = { channelId: ' 2000200002 ', channelSecret: 'a1'.repeat(16), accessToken: 'x'.repeat(172) };
    expect(lineChannelProblem(ok)).toBeNull();
    expect(lineChannelProblem({ ...ok, channelId: 'LINE-2000' })?.key).toBe('line.error.channelId');
    expect(lineChannelProblem({ ...ok, channelSecret: 'with space here!' })?.key).toBe('line.error.channelSecret');
    expect(lineChannelProblem({ ...ok, accessToken: 'abc def' })?.key).toBe('line.error.accessToken');
    expect(lineChannelProblem({ ...ok, accessToken: 'short' })?.field).toBe('accessToken');
    expect(invalidField(new ApiError(400, 'VALIDATION_ERROR', 'accessToken does not look like a LINE channel access token'))).toBe(
      'accessToken',
    );
  });
});

describe("the server's VALIDATION_ERROR is mapped to the field it names, never shown raw", () => {
  const refusal = (message: string) => new ApiError(400, 'VALIDATION_ERROR', message);
  it('reads the field from schema and service messages', () => {
    expect(invalidField(refusal('Invalid body field "shopName": must NOT have fewer than 1 characters'))).toBe('shopName');
    expect(invalidField(refusal('accountNumber must be 10 to 15 digits'))).toBe('accountNumber');
    expect(invalidField(refusal('PromptPay id must be a 10-digit phone (0...), a 13-digit national id or a 15-digit e-wallet id'))).toBe(
      'accountNumber',
    );
    expect(invalidField(new ApiError(409, 'EMAIL_TAKEN', 'accountNumber must be'))).toBeNull();
  });
  it("gives the form's sentence for a field it shows, and nothing for others", () => {
    const fields = { shopName: 'form.nameInvalid' } as const;
    expect(fieldRefusal(refusal('Invalid body field "shopName": must match pattern "^[^\\u0000-"'), fields)).toEqual({
      field: 'shopName',
      key: 'form.nameInvalid',
    });
    expect(fieldRefusal(refusal('Invalid body field "language": must be equal to one of the allowed values'), fields)).toBeNull();
  });
});
