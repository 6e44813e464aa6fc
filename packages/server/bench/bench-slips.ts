/**
 * Realistic uploads for the benches: 1080x1900 phone JPEGs (the sandbox bank's jpeg70 variant), each
 * for a different transfer into the bench shop's payee, so no two are duplicates of each other.
 */
export async function phoneSlips(bankUrl: string, count: number): Promise<Buffer[]> {
  const images: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const transfer = (await (
      await fetch(`${bankUrl}/transfers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          sendingBank: '014',
          amount: 100 + i,
          sender: { name: 'นาย ทดสอบ', account: '4081234567' },
          receiver: { name: 'ร้านทดสอบ', account: '1234566609', bankCode: '004' },
        }),
      })
    ).json()) as { transRef: string };
    images.push(Buffer.from(await (await fetch(`${bankUrl}/transfers/${transfer.transRef}/slip.jpg?variant=jpeg70`)).arrayBuffer()));
  }
  return images;
}
