import { createSandboxBank, type SandboxBank } from '@slipcheck/sandbox-bank';

/** The sandbox bank as a real peer on loopback, plus helpers to register transfers and fetch slips. */
export async function startSandbox(): Promise<SandboxBank & { register: typeof register; slip: typeof slip }> {
  const bank = await createSandboxBank({ port: 0, host: '127.0.0.1', timeoutHoldMs: 3000 });
  async function register(body: Record<string, unknown> = {}) {
    const r = await fetch(`${bank.url}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sendingBank: '014',
        amount: 1250.5,
        sender: { name: 'นาย สมชาย ใจดี', nameEn: 'MR. SOMCHAI JAIDEE', account: '4081234567' },
        receiver: { name: 'บจก. ร้านกาแฟ ทดสอบ', account: '1234566609', bankCode: '004' },
        ...body,
      }),
    });
    if (r.status !== 201) throw new Error(`sandbox register ${r.status}: ${await r.text()}`);
    return (await r.json()) as { transRef: string; payload: string };
  }
  /** `look`: the slip layout and an edited render (the printed amount differs from the transfer). */
  async function slip(transRef: string, variant = 'clean', format: 'png' | 'jpg' = 'png', look: { layout?: string; edit?: string } = {}) {
    const q = new URLSearchParams({ variant, ...look });
    const r = await fetch(`${bank.url}/transfers/${transRef}/slip.${format}?${q}`);
    if (r.status !== 200) throw new Error(`sandbox slip ${r.status}`);
    return Buffer.from(await r.arrayBuffer());
  }
  return Object.assign(bank, { register, slip });
}
