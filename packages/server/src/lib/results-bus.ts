import { EventEmitter } from 'node:events';

/**
 * Live results per shop (dashboard server-sent events, owner alerts). Best effort by design: the
 * durable path is the outbox; the bus only makes screens update at once. In process by default;
 * a Redis pub/sub adapter makes every node see every result.
 */
export interface BusMessage {
  shopId: string;
  type: 'transaction.created' | 'owner.alert' | string;
  data: unknown;
}

export interface ResultsBus {
  publish(msg: BusMessage): Promise<void>;
  subscribe(shopId: string, fn: (msg: BusMessage) => void): () => void;
  close(): Promise<void>;
}

export function createMemoryBus(): ResultsBus {
  const ee = new EventEmitter();
  ee.setMaxListeners(0);
  return {
    async publish(msg) {
      ee.emit(msg.shopId, msg);
    },
    subscribe(shopId, fn) {
      ee.on(shopId, fn);
      return () => ee.off(shopId, fn);
    },
    async close() {
      ee.removeAllListeners();
    },
  };
}
