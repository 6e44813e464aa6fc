export { createSandboxLine, type SandboxLine, type SandboxLineOptions } from './sandbox-line.js';
export { messageProblems, LINE_ERRORS, type LineErrorDetail } from './line-limits.js';
export { signBody } from './line-ids.js';
export { signIdToken, type IdTokenClaims, type LoginChannel } from './line-login.js';
export type { Channel, Sent, Forced, Route, ChatLine } from './platform-state.js';
export { SANDBOX_LOGIN_CHANNEL } from './dev-channel.js';
