import { call, dashboardApi } from "../api.ts";
import { ErrorState, formatNumber, formatTime, Loading, Page, useLoad } from "../ui.tsx";

export function Account() {
  const account = useLoad(async () => (await call(dashboardApi.GET("/account"))).data);
  const data = account.data;
  return (
    <Page title="Overview">
      <ErrorState failure={account.failure} />
      {account.loading && !data ? <Loading what="the account" /> : null}
      {data ? (
        <>
          <dl class="stats">
            <div>
              <dt>Plan</dt>
              <dd class="capitalize">{data.plan}</dd>
            </div>
            <div>
              <dt>Balance</dt>
              <dd>{data.credits === null ? "Unlimited" : `${formatNumber(data.credits)} credits`}</dd>
            </div>
            <div>
              <dt>Next monthly refill</dt>
              <dd>{data.next_refill_at ? formatTime(data.next_refill_at) : "None"}</dd>
            </div>
            <div>
              <dt>Rate limit now</dt>
              <dd>
                {formatNumber(data.rate_limit.remaining)} of {formatNumber(data.rate_limit.limit)} requests left this
                minute
              </dd>
            </div>
          </dl>
          <p class="muted">
            Account <code>{data.account_id}</code>
            {data.name ? <> ({data.name})</> : null}. The window frees a request slot at{" "}
            {formatTime(new Date(data.rate_limit.reset * 1000).toISOString())}.
          </p>
          <button type="button" class="secondary" onClick={account.reload}>
            Refresh
          </button>
        </>
      ) : null}
    </Page>
  );
}
