export { createSandboxBank, type SandboxBank, type SandboxBankOptions } from './sandbox-server.js';
export {
  renderSlip,
  renderNonSlip,
  drawSlip,
  VARIANTS,
  LAYOUTS,
  EDITS,
  EDIT_FACES,
  editedSatang,
  type EditFace,
  type Layout,
  type EditKind,
  SLIP_WIDTH,
  SLIP_HEIGHT,
  type Variant,
  type SlipData,
  type RenderOptions,
  type ImageFormat,
} from './slip-renderer.js';
export { generateSlip, type GenerateSlipOptions, type GeneratedSlip } from './slip-generator.js';
export {
  buildSlipPayload,
  buildTrueMoneyPayload,
  buildPromptPayPayload,
  parseSlipPayload,
  randomTransRef,
  crc16,
  BANK_CODES,
  type TrueMoneySlipFields,
  type ParsedSlipPayload,
  type ParseFailure,
} from './slip-payload.js';
export {
  createTransferStore,
  makeTransfer,
  TRUEMONEY,
  type Transfer,
  type NewTransfer,
  type TransferStore,
  type Fault,
  type Party,
  type ProxyType,
} from './transfer-store.js';
export { maskAccount, maskProxy, maskStyleFor, displayName, type MaskStyle } from './account-mask.js';
export { bankInfo, type BankInfo } from './bank-info.js';
export { prng } from './render-support.js';
export { amountText, LAYOUT_BANK } from './slip-layouts.js';
