import { useEffect, useMemo, useRef, useState } from 'react';
import { STATUSES, type DailyStats, type TxStatus } from '../api/types';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { formatDate } from '../lib/format';
import { STATUS_COLOR } from './status';

/**
 * Stacked bars per day, drawn as SVG (no chart library: small bundle, no external assets). A visually
 * hidden table carries the same numbers for screen readers.
 */
export function DailyChart({ days }: { days: DailyStats[] }) {
  const { t, lang } = useI18n();
  const [hover, setHover] = useState<number | null>(null);
  // Drawn at the real pixel width (not a stretched viewBox) so labels keep their size on a phone.
  const box = useRef<HTMLDivElement>(null);
  const [W, setW] = useState(600);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setW(Math.max(240, Math.round(el.clientWidth))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const max = useMemo(() => Math.max(1, ...days.map((d) => Object.values(d.counts).reduce((a, b) => a + (b ?? 0), 0))), [days]);
  const present = useMemo(() => STATUSES.filter((s) => days.some((d) => (d.counts[s] ?? 0) > 0)), [days]);
  const H = 190,
    padL = 28,
    padB = 22,
    padT = 10;
  const labelEvery = W < 420 ? 10 : 7;
  const bw = (W - padL) / Math.max(1, days.length);
  const ticks = niceTicks(max);
  const total = days.reduce((a, d) => a + Object.values(d.counts).reduce((x, y) => x + (y ?? 0), 0), 0);
  const hd = hover !== null ? days[hover] : null;
  return (
    <figure className="chart">
      <div ref={box} className="chart-box">
        <svg
          viewBox={`0 0 ${W} ${H}`}
          width={W}
          height={H}
          role="img"
          aria-label={t('overview.chartLabel', { total })}
          className="chart-svg"
        >
          {ticks.map((v) => {
            const y = padT + (H - padB - padT) * (1 - v / ticks[ticks.length - 1]);
            return (
              <g key={v}>
                <line x1={padL} x2={W} y1={y} y2={y} stroke="#e2e8f0" strokeWidth="1" />
                <text x={padL - 6} y={y + 4} textAnchor="end" fontSize="11" fill="#64748b">
                  {v}
                </text>
              </g>
            );
          })}
          {days.map((d, i) => {
            let y = H - padB;
            const scale = (H - padB - padT) / ticks[ticks.length - 1];
            return (
              <g key={d.date} onMouseEnter={() => setHover(i)} onMouseLeave={() => setHover(null)}>
                <rect x={padL + i * bw} y={padT} width={bw} height={H - padB - padT} fill={hover === i ? '#f1f5f9' : 'transparent'} />
                {STATUSES.map((s) => {
                  const n = d.counts[s] ?? 0;
                  if (!n) return null;
                  const h = n * scale;
                  y -= h;
                  return <rect key={s} x={padL + i * bw + bw * 0.15} y={y} width={bw * 0.7} height={h} fill={STATUS_COLOR[s]} rx="1" />;
                })}
                {(days.length - 1 - i) % labelEvery === 0 && (
                  <text
                    x={padL + i * bw + bw / 2}
                    y={H - 6}
                    textAnchor={i === days.length - 1 ? 'end' : 'middle'}
                    fontSize="11"
                    fill="#64748b"
                  >
                    {formatDate(d.date, lang)}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <p className="chart-hover" aria-hidden="true">
        {hd
          ? `${formatDate(hd.date, lang)}: ${
              STATUSES.filter((s) => hd.counts[s])
                .map((s) => `${t(`status.${s}` as MessageKey)} ${hd.counts[s]}`)
                .join(' · ') || t('overview.noResultsDay')
            }`
          : '\u00a0'}
      </p>
      <figcaption className="legend">
        {(present.length ? present : (['SUCCESS'] as TxStatus[])).map((s) => (
          <span key={s} className="legend-item">
            <span className="badge-dot" style={{ background: STATUS_COLOR[s] }} aria-hidden="true" />
            {t(`status.${s}` as MessageKey)}
          </span>
        ))}
      </figcaption>
      <div className="sr-only">
        <table>
          <caption>{t('overview.chartTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('common.date')}</th>
              {present.map((s) => (
                <th key={s} scope="col">
                  {t(`status.${s}` as MessageKey)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days
              .filter((d) => present.some((s) => d.counts[s]))
              .map((d) => (
                <tr key={d.date}>
                  <th scope="row">{formatDate(d.date, lang)}</th>
                  {present.map((s) => (
                    <td key={s}>{d.counts[s] ?? 0}</td>
                  ))}
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}

function niceTicks(max: number): number[] {
  const step =
    max <= 5
      ? 1
      : max <= 10
        ? 2
        : Math.pow(10, Math.floor(Math.log10(max))) * (max / Math.pow(10, Math.floor(Math.log10(max))) > 5 ? 2 : 1);
  const top = Math.ceil(max / step) * step;
  const out: number[] = [];
  for (let v = 0; v <= top; v += step) out.push(v);
  return out;
}

export function Gauge({ used, limit, label }: { used: number; limit: number; label: string }) {
  const pct = limit > 0 ? Math.min(1, used / limit) : 0;
  const r = 52,
    c = Math.PI * r;
  const color = pct >= 1 ? '#b91c1c' : pct >= 0.8 ? '#c2410c' : '#0f5f4a';
  return (
    <div className="gauge" role="meter" aria-valuemin={0} aria-valuemax={limit} aria-valuenow={used} aria-label={label}>
      <svg viewBox="0 0 120 70" width="100%" aria-hidden="true">
        <path d="M8 62 A52 52 0 0 1 112 62" fill="none" stroke="#e2e8f0" strokeWidth="12" strokeLinecap="round" />
        {pct > 0 && (
          <path
            d="M8 62 A52 52 0 0 1 112 62"
            fill="none"
            stroke={color}
            strokeWidth="12"
            strokeLinecap="round"
            strokeDasharray={`${Math.max(0.5, c * pct)} ${c}`}
          />
        )}
      </svg>
      <div className="gauge-value">
        <strong>{used.toLocaleString()}</strong> / {limit.toLocaleString()}
      </div>
    </div>
  );
}
