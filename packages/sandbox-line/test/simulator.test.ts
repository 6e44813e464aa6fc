import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxBank, type SandboxBank } from '@slipcheck/sandbox-bank';
import { createSandboxLine, type Channel, type SandboxLine } from '../src/index.js';

// The simulator's calls against a stand-in webhook receiver that checks LINE's signature itself.
let line: SandboxLine;
let hook: http.Server;
let endpoint: string;
let dataDir: string;
/** A webhook event as the stand-in receiver got it: the fields these tests read. */
interface ReceivedEvent {
  type: string;
  webhookEventId: string;
  replyToken?: string;
  source: { type: string; userId?: string; groupId?: string };
  message?: { id: string; type: string; text?: string };
}
const received: ReceivedEvent[] = [];
let secret = '';

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-line-'));
  hook = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const ok = req.headers['x-line-signature'] === createHmac('sha256', secret).update(raw).digest('base64');
      if (ok) received.push(...JSON.parse(raw).events);
      res.writeHead(ok ? 200 : 401).end('{}');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  line = await createSandboxLine({ dataDir, simulator: {} });
});
afterAll(async () => {
  await line.close();
  hook.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const post = async <T = { delivery?: unknown }>(p: string, body: unknown, method = 'POST') => {
  const r = await fetch(line.url + p, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as T };
};

describe('chat simulator', () => {
  it('an image sent in the 1:1 chat is a signed webhook naming a message id whose bytes the channel can download', async () => {
    const ch = (await post<Channel>('/sandbox/channels', { displayName: 'ร้านทดสอบ', webhookUrl: endpoint })).body;
    secret = ch.secret;
    const state = await (await fetch(`${line.url}/sandbox/state`)).json();
    const customer = state.people[0].sub;
    const sent = await post('/sandbox/send', {
      channelId: ch.channelId,
      chat: 'user',
      userId: customer,
      imageBase64: Buffer.from('pngbytes').toString('base64'),
      imageType: 'image/png',
    });
    expect(sent.body.delivery).toEqual({ status: 200 });
    const event = received.at(-1)!;
    expect(event).toMatchObject({
      type: 'message',
      source: { type: 'user', userId: customer },
      message: { type: 'image', contentProvider: { type: 'line' } },
    });
    expect(event.webhookEventId).toMatch(/^[0-9A-Z]{26}$/);
    const content = await fetch(`${line.url}/v2/bot/message/${event.message!.id}/content`, {
      headers: { authorization: `Bearer ${ch.token}` },
    });
    expect(Buffer.from(await content.arrayBuffer()).toString()).toBe('pngbytes');

    // Redelivery: the same event again, marked as such.
    await post('/sandbox/redeliver', { webhookEventId: event.webhookEventId });
    expect(received.at(-1)).toMatchObject({ webhookEventId: event.webhookEventId, deliveryContext: { isRedelivery: true } });

    // Expired reply tokens: the bot's reply is refused, and the chat shows the tester why.
    await post('/sandbox/faults', { expireReplyTokens: true });
    await post('/sandbox/send', { channelId: ch.channelId, chat: 'user', userId: customer, text: 'hello' });
    const r = await fetch(`${line.url}/v2/bot/message/reply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ch.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ replyToken: received.at(-1)!.replyToken, messages: [{ type: 'text', text: 'hi' }] }),
    });
    expect(r.status).toBe(400);
    const lines = await (await fetch(`${line.url}/sandbox/lines?channelId=${ch.channelId}&chat=user&userId=${customer}`)).json();
    expect(lines.at(-1)).toMatchObject({ from: 'system', text: 'LINE reply → 400 Invalid reply token' });
    await post('/sandbox/faults', { reset: true });
  });

  it("the first message into the group delivers LINE's join event first", async () => {
    const state = await (await fetch(`${line.url}/sandbox/state`)).json();
    const ch = state.channels[0];
    await post('/sandbox/send', { channelId: ch.channelId, chat: 'group', userId: state.people[1].sub, text: 'ABCD-2345' });
    const [join, text] = received.slice(-2);
    expect(join).toMatchObject({ type: 'join', source: { type: 'group' } });
    expect(text).toMatchObject({
      type: 'message',
      source: { type: 'group', groupId: join!.source.groupId },
      message: { type: 'text', text: 'ABCD-2345' },
    });
  });

  it('keeps its channels in the data dir: after a restart the same access token still works', async () => {
    const state = await (await fetch(`${line.url}/sandbox/state`)).json();
    const token = line.channel(state.channels[0].channelId)!.token;
    await line.close();
    line = await createSandboxLine({ dataDir, simulator: {} });
    const info = await fetch(`${line.url}/v2/bot/info`, { headers: { authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ displayName: 'ร้านทดสอบ' });
  });
});

describe("the slip picker's edited render", () => {
  let bank: SandboxBank;
  let sim: SandboxLine;
  beforeAll(async () => {
    bank = await createSandboxBank({ port: 0, host: '127.0.0.1' });
    sim = await createSandboxLine({
      dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-line-bank-')),
      simulator: { bankUrl: bank.url },
    });
  });
  afterAll(async () => {
    await sim.close();
    await bank.close();
  });

  it("sends the sandbox bank's edited render of the picked transfer (its `edit` option), with or without an effect", async () => {
    const tr = await fetch(`${bank.url}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sendingBank: '014',
        amount: 100,
        sender: { name: 'นาย สมชาย ใจดี', account: '4081234567' },
        receiver: { name: 'ร้านทดสอบ', account: '1234566609', bankCode: '004' },
      }),
    });
    const { transRef } = (await tr.json()) as { transRef: string };
    const at = (p: string, body: unknown) =>
      fetch(sim.url + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ch = await (await at('/sandbox/channels', { displayName: 'ร้านทดสอบ' })).json();
    const state = await (await fetch(`${sim.url}/sandbox/state`)).json();
    const send = async (extra: Record<string, unknown>) => {
      const r = await at('/sandbox/send', { channelId: ch.channelId, chat: 'user', userId: state.people[0].sub, transRef, ...extra });
      const sent = await r.json();
      if (r.status !== 200) return { status: r.status, sent };
      return { status: r.status, bytes: Buffer.from(await (await fetch(`${sim.url}/sandbox/content/${sent.messageId}`)).arrayBuffer()) };
    };
    const bankSlip = async (q: string) => Buffer.from(await (await fetch(`${bank.url}/transfers/${transRef}/slip.png${q}`)).arrayBuffer());

    const edited = await send({ edit: 'add' });
    expect(edited.status).toBe(200);
    expect(edited.bytes!.equals(await bankSlip('?edit=add'))).toBe(true);
    const genuine = await send({ edit: '' });
    expect(genuine.bytes!.equals(await bankSlip(''))).toBe(true);
    expect(edited.bytes!.equals(genuine.bytes!)).toBe(false);

    // With an effect too: both reach the bank's render.
    const photo = await send({ edit: 'decimal', variant: 'jpeg70' });
    const r = await fetch(`${bank.url}/transfers/${transRef}/slip.jpg?variant=jpeg70&edit=decimal`);
    expect(photo.bytes!.equals(Buffer.from(await r.arrayBuffer()))).toBe(true);

    expect(await send({ edit: 'photoshop' })).toMatchObject({ status: 400, sent: { message: 'edit must be one of add, digit, decimal' } });
  });
});
