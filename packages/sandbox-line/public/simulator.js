/* global Option */
// The LINE chat simulator: plays the LINE app of a customer (1:1) and of staff (a group) against the
// sandbox LINE platform, which turns what they send into signed webhooks for the service.
(function () {
  const T = {
    th: {
      note: 'โปรแกรมจำลอง LINE (sandbox) · หน้าตาข้อความเป็นการประมาณ ไม่ใช่แอป LINE จริง',
      tools: 'ตั้งค่า',
      you: 'คุณคือ',
      rename: 'เปลี่ยนชื่อ',
      save: 'บันทึก',
      fail: 'ทำให้ LINE ล้มเหลว',
      f5xx: 'ตอบกลับ 500 สามครั้ง',
      fexpire: 'reply token หมดอายุ',
      fmonthly: 'ครบโควตาข้อความรายเดือน',
      freset: 'กลับเป็นปกติ',
      miniapp: 'เปิดมินิแอปของร้าน',
      slips: 'สลิปล่าสุดจากธนาคารจำลอง',
      editNone: 'สลิปจริง',
      editAdd: 'แก้ยอด: เติมตัวเลข',
      editDigit: 'แก้ยอด: เปลี่ยนตัวเลข',
      editDecimal: 'แก้ยอด: เลื่อนทศนิยม',
      text: 'พิมพ์ข้อความ',
      one: '1:1 ลูกค้า',
      group: 'กลุ่ม พนักงาน',
      replay: 'ส่งรูปนี้ซ้ำ',
      resend: 'ส่ง webhook ซ้ำ',
      approx: 'ภาพประมาณของ Flex Message',
      noChannel: 'ยังไม่มีบัญชี LINE OA: รัน npx slipcheck demo ก่อน',
      noBank: 'ไม่มีธนาคารจำลอง',
      refused: 'LINE ปฏิเสธ (ผู้ใช้ไม่เห็น)',
      image: 'รูป',
      delivered: 'webhook ส่งแล้ว',
      failed: 'webhook ล้มเหลว',
      reply: 'ตอบกลับ',
      push: 'push',
      faults: 'รอล้มเหลว',
    },
    en: {
      note: 'LINE simulator (sandbox) · messages are an approximation, not the LINE app',
      tools: 'Settings',
      you: 'You are',
      rename: 'Rename',
      save: 'Save',
      fail: 'Make LINE fail',
      f5xx: 'Reply answers 500 three times',
      fexpire: 'Reply tokens expired',
      fmonthly: 'Monthly message limit reached',
      freset: 'Back to normal',
      miniapp: "Open the shop's mini-app",
      slips: 'Recent sandbox bank slips',
      editNone: 'Genuine slip',
      editAdd: 'Edited: digit added',
      editDigit: 'Edited: digit changed',
      editDecimal: 'Edited: decimal moved',
      text: 'Type a message',
      one: '1:1 customer',
      group: 'Group staff',
      replay: 'Send this image again',
      resend: 'Resend webhook',
      approx: 'Approximation of a Flex Message',
      noChannel: 'No LINE official account yet: run npx slipcheck demo first',
      noBank: 'No sandbox bank',
      refused: 'LINE refused (nobody sees this)',
      image: 'IMG',
      delivered: 'webhook delivered',
      failed: 'webhook failed',
      reply: 'reply',
      push: 'push',
      faults: 'failures queued',
    },
  };
  const VARIANTS = [
    'clean',
    'jpeg70',
    'w540',
    'smallqr',
    'rot7',
    'blurnoise',
    'lowcontrast',
    'screenphoto',
    'camera12mp',
    'twoqr',
    'upsidedown',
  ];
  // The sandbox bank's edited render (`edit`): the genuine QR, another amount typed over the printed one.
  const EDITS = [
    ['', 'editNone'],
    ['add', 'editAdd'],
    ['digit', 'editDigit'],
    ['decimal', 'editDecimal'],
  ];
  const q = new URLSearchParams(location.search);
  let lang = q.get('lang') === 'en' ? 'en' : localStorage.getItem('sim.lang') || 'th';
  let state = { channels: [], people: [] };
  let chats = [];
  let current = null;
  const who = {};
  let lastCount = -1;
  const $ = (id) => document.getElementById(id);
  const t = (k) => T[lang][k] || k;

  async function call(path, body) {
    const r = await fetch(
      path,
      body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    );
    const j = await r.json().catch(() => null);
    if (!r.ok) throw new Error((j && j.message) || r.status);
    return j;
  }

  function translate() {
    document.documentElement.lang = lang;
    $('lang').textContent = lang === 'th' ? 'EN' : 'ไทย';
    for (const e of document.querySelectorAll('[data-t]'))
      if (e.tagName !== 'BUTTON' || e.dataset.t !== 'tools') e.textContent = t(e.dataset.t);
    $('menu').title = t('tools');
    $('text').placeholder = t('text');
    const edit = $('edit').value;
    $('edit').replaceChildren(...EDITS.map(([v, k]) => new Option(t(k), v)));
    $('edit').value = edit;
    fillChats();
  }

  function fillChats() {
    const sel = $('chat');
    const keep = current && current.key;
    chats = [];
    for (const c of state.channels) {
      chats.push({ key: `${c.channelId}:user`, channelId: c.channelId, chat: 'user', label: `${c.displayName} · ${t('one')}` });
      chats.push({ key: `${c.channelId}:group`, channelId: c.channelId, chat: 'group', label: `${c.displayName} · ${t('group')}` });
    }
    sel.replaceChildren(...chats.map((c) => new Option(c.label, c.key)));
    if (!chats.length) sel.replaceChildren(new Option(t('noChannel'), ''));
    const want = keep || (q.get('chat') === 'group' && chats[1] ? chats[1].key : chats[0] && chats[0].key);
    if (want) sel.value = want;
    current = chats.find((c) => c.key === sel.value) || null;
    fillWho();
  }

  function fillWho() {
    const sel = $('who');
    sel.replaceChildren(...state.people.map((p) => new Option(p.name, p.sub)));
    if (!current) return;
    // The customer in 1:1 chats and staff in the group, unless switched.
    who[current.chat] = who[current.chat] || (state.people[current.chat === 'group' ? 1 : 0] || state.people[0] || {}).sub;
    sel.value = who[current.chat];
    $('name').value = (state.people.find((p) => p.sub === sel.value) || {}).name || '';
  }

  // Fault switches changed since start: a state read that was in flight when a switch changed is
  // stale and must not set the switch back (the 5 s refresh unticked a box just ticked, and the
  // simulator's browser test saw 'clicking the checkbox did not change its state').
  let changes = 0;
  const change = (body) => {
    changes++;
    return call('/sandbox/faults', body).then(refreshState);
  };

  async function refreshState() {
    const seen = changes;
    const next = await call('/sandbox/state');
    if (seen !== changes) return;
    state = next;
    fillChats();
    const f = state.faults;
    $('faults').textContent = f.reply || f.push ? `${t('faults')}: ${t('reply')} ${f.reply}, ${t('push')} ${f.push}` : '';
    $('expire').checked = f.expireReplyTokens;
    const ch = state.channels.find((c) => current && c.channelId === current.channelId);
    $('monthly').checked = !!ch && ch.monthlyLimit !== null;
    $('miniapp').disabled = !state.liffId;
  }

  function lineEl(l) {
    if (l.from === 'system') {
      const note = document.createElement('div');
      note.className = 'system';
      note.dataset.name = 'refused';
      note.textContent = `${t('refused')}: ${l.text}`;
      return note;
    }
    const row = document.createElement('div');
    row.className = `line ${l.from === 'user' && l.userId === who[current.chat] ? 'me' : ''}`;
    const body = document.createElement('div');
    if (l.from === 'bot') {
      const av = document.createElement('div');
      av.className = 'avatar';
      av.textContent = 'OA';
      row.appendChild(av);
      const m = l.message || {};
      if (m.type === 'flex') {
        body.className = 'flex-wrap';
        body.appendChild(window.renderFlex(m.contents));
        const a = document.createElement('div');
        a.className = 'approx';
        a.textContent = `${t('approx')} · ${t(l.via)}`;
        body.appendChild(a);
      } else {
        body.className = 'bubble-text';
        body.textContent = m.type === 'text' ? m.text : `[${m.type}] ${m.altText || ''}`;
      }
      row.appendChild(body);
      return row;
    }
    if (l.userId !== who[current.chat]) {
      const n = document.createElement('div');
      n.className = 'who';
      n.textContent = l.userName || '';
      body.appendChild(n);
    }
    if (l.imageUrl) {
      const img = document.createElement('img');
      img.className = 'sent';
      img.src = l.imageUrl;
      img.alt = 'slip';
      img.style.maxWidth = '160px';
      img.style.borderRadius = '12px';
      body.appendChild(img);
    } else {
      const b = document.createElement('div');
      b.className = 'bubble-text';
      b.textContent = l.text || '';
      body.appendChild(b);
    }
    const meta = document.createElement('div');
    meta.className = 'meta';
    if (l.imageUrl) meta.appendChild(button(t('replay'), () => send({ replayOf: l.id }), 'replay'));
    meta.appendChild(button(t('resend'), () => call('/sandbox/redeliver', { webhookEventId: l.webhookEventId }).then(poll), 'resend'));
    row.appendChild(meta);
    row.appendChild(body);
    return row;
  }

  function button(label, onClick, name) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.name = name;
    b.onclick = onClick;
    return b;
  }

  async function poll() {
    if (!current) return;
    const lines = await call(`/sandbox/lines?channelId=${current.channelId}&chat=${current.chat}&userId=${who[current.chat]}`);
    if (lines.length === lastCount) return;
    lastCount = lines.length;
    const box = $('lines');
    box.replaceChildren(...lines.map(lineEl));
    box.scrollTop = box.scrollHeight;
    // Quick replies belong to the last message, and only while it is the last one.
    const last = lines[lines.length - 1];
    const items = (last && last.from === 'bot' && last.message && last.message.quickReply && last.message.quickReply.items) || [];
    $('quick').replaceChildren(...items.map((i) => button(i.action.label || i.action.text || '', () => quick(i.action), 'quick')));
  }

  function quick(a) {
    if (a.type === 'message') return send({ text: a.text });
    if (a.type === 'postback') return send({ postback: a.data, label: a.displayText || a.label });
    if (a.type === 'camera' || a.type === 'cameraRoll') return $('file').click();
    if (a.type === 'uri' && /^https?:/.test(a.uri)) window.open(a.uri, '_blank', 'noopener');
  }

  async function send(what) {
    if (!current) return;
    const r = await call('/sandbox/send', { channelId: current.channelId, chat: current.chat, userId: who[current.chat], ...what }).catch(
      (e) => ({ error: e.message }),
    );
    if (r.error || (r.delivery && r.delivery.status !== 200)) {
      const s = document.createElement('div');
      s.className = 'system';
      s.textContent = `${t('failed')}: ${r.error || r.delivery.error || r.delivery.status}`;
      $('lines').appendChild(s);
    }
    lastCount = -1;
    await poll();
  }

  async function loadTransfers() {
    const list = await call('/sandbox/bank/transfers').catch(() => []);
    $('transfers').replaceChildren(
      ...list.map((tr) => {
        const li = document.createElement('li');
        const b = button(
          `฿${Number(tr.amount).toLocaleString('th-TH', { minimumFractionDigits: 2 })} · ${tr.sender} → ${tr.receiver} · ${tr.transRef}`,
          () => {
            $('slips').hidden = true;
            send({ transRef: tr.transRef, variant: $('variant').value, edit: $('edit').value || undefined });
          },
          'slip',
        );
        li.appendChild(b);
        return li;
      }),
    );
    if (!list.length)
      $('transfers').replaceChildren(Object.assign(document.createElement('li'), { textContent: state.bank ? '—' : t('noBank') }));
  }

  $('variant').replaceChildren(...VARIANTS.map((v) => new Option(v, v)));
  $('lang').onclick = () => {
    lang = lang === 'th' ? 'en' : 'th';
    localStorage.setItem('sim.lang', lang);
    translate();
    lastCount = -1;
    poll();
  };
  $('menu').onclick = () => {
    $('tools').hidden = !$('tools').hidden;
    $('menu').setAttribute('aria-expanded', String(!$('tools').hidden));
  };
  $('chat').onchange = () => {
    current = chats.find((c) => c.key === $('chat').value) || null;
    fillWho();
    lastCount = -1;
    refreshState().then(poll);
  };
  $('who').onchange = () => {
    who[current.chat] = $('who').value;
    fillWho();
    lastCount = -1;
    poll();
  };
  $('rename').onclick = async () => {
    await call('/sandbox/people', { userId: $('who').value, name: $('name').value });
    await refreshState();
    lastCount = -1;
    poll();
  };
  $('plus').onclick = () => {
    $('slips').hidden = !$('slips').hidden;
    if (!$('slips').hidden) loadTransfers();
  };
  $('file').onchange = async () => {
    const f = $('file').files[0];
    if (!f) return;
    const buf = new Uint8Array(await f.arrayBuffer());
    let bin = '';
    for (let i = 0; i < buf.length; i += 0x8000) bin += String.fromCharCode.apply(null, buf.subarray(i, i + 0x8000));
    $('file').value = '';
    send({ imageBase64: btoa(bin), imageType: f.type || 'image/jpeg' });
  };
  const sendText = () => {
    const v = $('text').value.trim();
    if (!v) return;
    $('text').value = '';
    send({ text: v });
  };
  $('send').onclick = sendText;
  $('text').onkeydown = (e) => {
    if (e.key === 'Enter' && !e.isComposing) sendText();
  };
  for (const b of document.querySelectorAll('[data-fault]')) b.onclick = () => change({ [b.dataset.fault]: 3 });
  $('expire').onchange = () => change({ expireReplyTokens: $('expire').checked });
  $('monthly').onchange = () => current && change({ channelId: current.channelId, monthlyLimit: $('monthly').checked });
  $('reset').onclick = () => change({ reset: true });
  $('miniapp').onclick = () => {
    // The LINE app opens a LIFF app full screen, signed in as the person holding the phone.
    location.href = `/liff/${encodeURIComponent(state.liffId)}?as=${encodeURIComponent(who[current ? current.chat : 'user'])}`;
  };

  translate();
  refreshState().then(poll);
  setInterval(() => poll().catch(() => undefined), 700);
  setInterval(() => refreshState().catch(() => undefined), 5000);
})();
