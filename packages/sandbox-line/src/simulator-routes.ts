import type { FastifyInstance } from 'fastify';
import type { LoginChannel } from './line-login.js';
import type { PlatformState } from './platform-state.js';

export interface SimulatorOptions {
  /** The sandbox bank, whose recent transfers the simulator offers as slips. */
  bankUrl?: string;
}

export function registerSimulator(
  _app: FastifyInstance,
  _s: PlatformState,
  _o: SimulatorOptions & { people: Map<string, { sub: string; name: string }>; loginChannels: Map<string, LoginChannel> },
) {}
