export { BANKS, TRUEMONEY_CODE, TRUEMONEY_NAME, type BankInfo } from './slip-qr-banks.js';
export {
  parseSlipPayload,
  crc16ccittFalse,
  type SlipPayloadResult,
  type SlipPayloadOk,
  type SlipPayloadError,
  type SlipPayloadErrorCode,
} from './slip-qr-parser.js';
export { decodeSlipImage, type DecodeResult, type DecodeErrorCode, type DecodeOptions } from './slip-qr-decoder.js';
export {
  createSlipDecoderPool,
  type SlipDecoderPool,
  type SlipDecoderPoolOptions,
  type DecodeCallOptions,
  type DecodeAndRead,
} from './slip-qr-pool.js';
export { readPrintedAmount, amountTextToSatang, type PrintedRead } from './slip-qr-amount.js';
export { runDecodeCommand, runReadCommand, type DecodeCommandLine, type ReadCommandLine } from './slip-qr-command.js';
