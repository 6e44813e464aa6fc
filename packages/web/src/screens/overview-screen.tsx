import { useAuth } from '../api/auth';
import { api } from '../api/client';
import { useLiveResults } from '../api/live';
import { ROUTES } from '../api/routes';
import type { DailyStats, Overview, PlanCard } from '../api/types';
import { DailyChart, Gauge } from '../components/chart';
import { TxList } from '../components/tx-list';
import { Alert, Card, Empty, ErrorText, Loading, PageHeader } from '../components/ui';
import { useI18n, type MessageKey } from '../i18n/i18n';
import { formatDateTime, formatMoney, formatNumber } from '../lib/format';
import { formatBaht } from '../lib/money';
import { quotaNext } from '../lib/quota-next';
import { Link, useRouter } from '../lib/router';
import { useLoad } from '../lib/use-load';
import { TotalsCard } from '../components/reports';

export function OverviewScreen() {
  const { t, lang } = useI18n();
  const { search } = useRouter();
  const { me } = useAuth();
  const ov = useLoad(() => api<Overview>(ROUTES.overview));
  // Only for the trial banner: the name and price of the plan the owner picked at sign-up.
  const plans = useLoad(() => api<{ items: PlanCard[] }>(ROUTES.plans, { noAuth: true }).catch(() => ({ items: [] as PlanCard[] })));
  // A new result changes every number on this page: reload rather than patch the aggregates by hand.
  useLiveResults(() => void ov.reload(), !!ov.data);
  const d = ov.data;
  if (!d) return <>{ov.error ? <ErrorText error={ov.error} /> : <Loading />}</>;
  const days: DailyStats[] = d.daily.map((x) => ({ date: x.date, counts: x.byStatus }));
  const onTrial = d.shop.planCode === 'TRIAL';
  return (
    <>
      <PageHeader title={t('overview.title')} intro={d.shop.name} />
      {search.get('welcome') && (
        <Alert kind="ok" title={t('overview.welcomeTitle')}>
          {t('overview.welcomeBody')}
        </Alert>
      )}
      {onTrial && (
        <TrialBanner
          daysLeft={d.trialDaysLeft}
          limit={d.plan.monthlyLimit}
          chosen={plans.data?.items.find((p) => p.code === d.shop.chosenPlanCode) ?? null}
        />
      )}
      {d.payeeCount === 0 && (
        <Alert kind="warn" title={t('payees.emptyTitle')}>
          {t('payees.emptyBody')}{' '}
          <Link to="/payees" className="alert-action">
            {t('overview.addPayee')}
          </Link>
        </Alert>
      )}
      <TotalsCard reloadKey={d} />
      <div className="grid-3">
        <Card title={t('overview.plan')}>
          <p className="big">{d.plan.code === 'TRIAL' ? t('plan.TRIAL') : d.plan.name}</p>
          <p className="muted">{t(`shopState.${d.shop.state}` as MessageKey)}</p>
          {onTrial && d.trialDaysLeft !== null && (
            <p className={d.trialDaysLeft <= 2 ? 'warn-text' : undefined}>
              {d.trialDaysLeft > 0 ? t('overview.trialDaysLeft', { n: d.trialDaysLeft }) : t('overview.trialOver')}
            </p>
          )}
          {onTrial && (
            <p className="muted small">
              {d.shop.chosenPlanCode
                ? t('overview.chosenPlan', {
                    plan: plans.data?.items.find((p) => p.code === d.shop.chosenPlanCode)?.name ?? d.shop.chosenPlanCode,
                  })
                : t('overview.trialNext')}
            </p>
          )}
          {!onTrial && d.plan.priceThb > 0 && (
            <p className="muted small">{t('signup.perMonth', { price: formatMoney(d.plan.priceThb) })}</p>
          )}
        </Card>
        <Card title={t('overview.quota')}>
          <Gauge used={d.quota.used} limit={d.quota.limit} label={t('overview.quotaLabel', { used: d.quota.used, limit: d.quota.limit })} />
          <p className="muted small center">
            {t('overview.remaining', { n: d.quota.remaining.toLocaleString() })}
            {onTrial ? (
              // A trial's allowance ends with the trial, not at the month's reset.
              <> · {t('overview.trialQuota', { n: d.quota.limit.toLocaleString(), days: d.plan.trialDays })}</>
            ) : (
              d.quota.daysUntilReset !== undefined && <> · {t('overview.resetIn', { n: d.quota.daysUntilReset })}</>
            )}
          </p>
          <QuotaNextNote overview={d} onTrial={onTrial} />
        </Card>
        <Card title={t('overview.quick')}>
          <ul className="quick">
            <li>
              <Link to="/check" className="btn btn-primary btn-block">
                {t('nav.check')}
              </Link>
            </li>
            <li>
              <Link to="/payees" className="btn btn-secondary btn-block">
                {t('overview.payeesCount', { n: d.payeeCount })}
              </Link>
            </li>
            {me?.user.role !== 'staff' && (
              <li>
                <Link to="/keys" className="btn btn-secondary btn-block">
                  {t('nav.keys')}
                </Link>
              </li>
            )}
          </ul>
        </Card>
      </div>
      <Card title={t('overview.chartTitle')}>
        <DailyChart days={days} />
      </Card>
      <Card
        title={t('overview.recent')}
        actions={
          <Link to="/transactions" className="btn btn-ghost">
            {t('overview.seeAll')}
          </Link>
        }
      >
        {d.recent.length ? <TxList items={d.recent} /> : <Empty title={t('tx.empty')}>{t('tx.emptyHint')}</Empty>}
        <p className="muted small">{t('common.updated', { time: formatDateTime(new Date().toISOString(), lang) })}</p>
      </Card>
    </>
  );
}

/** Days left and what happens after payment, at the top of the page where an owner on a trial looks first. */
function TrialBanner({ daysLeft, limit, chosen }: { daysLeft: number | null; limit: number; chosen: PlanCard | null }) {
  const { t, lang } = useI18n();
  const over = daysLeft !== null && daysLeft <= 0;
  const title = over
    ? t('overview.trialBannerOver')
    : daysLeft !== null
      ? t('overview.trialBannerTitle', { n: daysLeft })
      : t('shopState.trial');
  return (
    <section
      className={`trial-banner ${over ? 'trial-over' : daysLeft !== null && daysLeft <= 2 ? 'trial-soon' : ''}`}
      aria-labelledby="trial-title"
    >
      <h2 id="trial-title" className="trial-title">
        {title}
      </h2>
      <p>{t('overview.trialBannerBody', { limit: limit.toLocaleString(lang === 'th' ? 'th-TH' : 'en-GB') })}</p>
      <p className="trial-next">
        {chosen && chosen.priceThb > 0
          ? t('overview.trialBannerNext', { plan: chosen.name, price: formatMoney(chosen.priceThb) })
          : t('overview.trialBannerNextNoPlan')}
      </p>
    </section>
  );
}

/**
 * What happens next when the shop is near or past its limit: checks go on (free buffer, then charged
 * per slip, up to the hard block) or stop. One short title and one sentence, for a phone at a glance.
 */
function QuotaNextNote({ overview: d, onTrial }: { overview: Overview; onTrial: boolean }) {
  const { t, lang } = useI18n();
  const next = quotaNext({
    used: d.quota.used,
    limit: d.quota.limit,
    freeBuffer: d.plan.freeBuffer,
    hardLimit: d.plan.hardLimit,
    allowOverage: d.plan.allowOverage,
    overage: d.quota.overage,
    overagePriceSatang: d.plan.overagePriceSatang,
    trial: onTrial,
  });
  if (!next) return null;
  const v = next.vars;
  const vars = {
    limit: formatNumber(v.limit, lang),
    buffer: formatNumber(v.buffer, lang),
    hard: formatNumber(v.hard, lang),
    n: formatNumber(v.n, lang),
    price: formatBaht(v.priceSatang),
    amount: formatBaht(v.amountSatang),
    days: d.quota.daysUntilReset,
  };
  return (
    <p className={`quota-next small${next.stage === 'near' ? '' : ' warn-text'}`} data-stage={next.stage}>
      <strong>{t(next.title)}</strong> {t(next.body, vars)}
    </p>
  );
}
