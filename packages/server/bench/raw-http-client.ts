import net from 'node:net';

/**
 * The end-to-end bench's load generator: a minimal keep-alive HTTP/1.1 client (what wrk or autocannon
 * do), because the load generator shares the machine's two cores with the service under test. undici's
 * Pool spent 0.7-1.3 ms of CPU per uncached verify on these cores (docs/benchmarks.md, "Uncached
 * verify: where the CPU went"), CPU the decode-only baseline never pays; this client writes a prebuilt
 * head and the image Buffer as they are and reads back a Content-Length framed answer. It knows only
 * what the service answers (no chunked bodies, no redirects, no TLS) and says so when that changes.
 */
export interface RawAnswer {
  status: number;
  body: Buffer;
}

interface Conn {
  socket: net.Socket;
  chunks: Buffer[];
  size: number;
  done?: (err: Error | null, answer?: RawAnswer) => void;
}

const HEAD_END = Buffer.from('\r\n\r\n');

export function createRawHttpClient(port: number, host = '127.0.0.1', maxConnections = 64) {
  const idle: Conn[] = [];
  const waiting: Array<(c: Conn) => void> = [];
  const all = new Set<Conn>();

  /** Parses one answer once it is complete; the service never sends a second one unasked. */
  function tryParse(c: Conn): RawAnswer | null {
    const data = c.chunks.length === 1 ? c.chunks[0] : Buffer.concat(c.chunks, c.size);
    c.chunks = [data];
    const end = data.indexOf(HEAD_END);
    if (end < 0) return null;
    const head = data.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    const m = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!m) throw new Error(`raw client: no Content-Length in ${head.split('\r\n')[0]}`);
    const len = Number(m[1]);
    if (data.length < end + 4 + len) return null;
    if (data.length > end + 4 + len) throw new Error('raw client: bytes after the answer');
    c.chunks = [];
    c.size = 0;
    return { status, body: data.subarray(end + 4, end + 4 + len) };
  }

  function open(): Conn {
    const c: Conn = { socket: net.connect(port, host), chunks: [], size: 0 };
    c.socket.setNoDelay(true);
    c.socket.on('data', (d: Buffer) => {
      c.chunks.push(d);
      c.size += d.length;
      let answer: RawAnswer | null;
      try {
        answer = tryParse(c);
      } catch (e) {
        c.socket.destroy(e as Error);
        return;
      }
      if (!answer) return;
      const done = c.done;
      c.done = undefined;
      release(c);
      done?.(null, answer);
    });
    const fail = (err?: Error) => {
      all.delete(c);
      const i = idle.indexOf(c);
      if (i >= 0) idle.splice(i, 1);
      const done = c.done;
      c.done = undefined;
      done?.(err ?? new Error('raw client: connection closed'));
    };
    c.socket.on('error', fail);
    c.socket.on('close', () => fail());
    all.add(c);
    return c;
  }

  function release(c: Conn) {
    const next = waiting.shift();
    if (next) next(c);
    else idle.push(c);
  }

  function acquire(): Promise<Conn> {
    const c = idle.pop();
    if (c) return Promise.resolve(c);
    if (all.size < maxConnections) return Promise.resolve(open());
    return new Promise((resolve) => waiting.push(resolve));
  }

  return {
    async request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<RawAnswer> {
      const c = await acquire();
      let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}:${port}\r\n`;
      for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
      head += `content-length: ${body?.length ?? 0}\r\n\r\n`;
      return new Promise<RawAnswer>((resolve, reject) => {
        c.done = (err, answer) => (err ? reject(err) : resolve(answer!));
        c.socket.cork();
        c.socket.write(head, 'latin1');
        if (body?.length) c.socket.write(body);
        c.socket.uncork();
      });
    },
    close() {
      for (const c of all) c.socket.destroy();
      all.clear();
      idle.length = 0;
    },
  };
}
