/**
 * Money in the service is integer satang. Request values (`amount`, `expectedAmount`, `amountMin`,
 * `amountMax`) are decimal strings matching AMOUNT_PATTERN, read into satang once at the edge with
 * parseAmountToSatang; nothing after that touches a floating-point amount. The functions live in the
 * SDK so that the service, the dashboard and integrators read a price exactly alike.
 */
export { AMOUNT_PATTERN, amountQueryValue, formatSatang, parseAmountToSatang, satangFromAmount, satangToAmount } from '@slipcheck/sdk';
