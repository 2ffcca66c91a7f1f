import type { Schema } from "@verbatim/contract";
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from "chart.js";
import { useEffect, useRef, useState } from "preact/hooks";
import { call, v2Api } from "../api.ts";
import { ErrorState, formatNumber, Loading, Page, useLoad } from "../ui.tsx";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

type UsageReport = Schema<"UsageReport">;

function day(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
}

export function Usage() {
  const [range, setRange] = useState({ from: day(-29), to: day(0) });
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const usage = useLoad(
    async () => (await call(v2Api.GET("/usage", { params: { query: range } }))).data,
    [range.from, range.to],
  );
  const report = usage.data;

  const submit = (event: Event) => {
    event.preventDefault();
    setRange({ from, to });
    if (from === range.from && to === range.to) usage.reload();
  };

  return (
    <Page title="Usage">
      <form class="inline" onSubmit={submit} aria-label="Date range">
        <div class="field">
          <label for="usage-from">From</label>
          <input id="usage-from" type="date" required value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="usage-to">To</label>
          <input id="usage-to" type="date" required value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </div>
        <button type="submit">Show</button>
      </form>
      <ErrorState failure={usage.failure} />
      {usage.loading && !report ? <Loading what="usage" /> : null}
      {report ? <UsageReportView report={report} /> : null}
    </Page>
  );
}

function UsageReportView({ report }: { report: UsageReport }) {
  const requests = report.days.reduce((sum, entry) => sum + entry.requests, 0);
  return (
    <>
      <dl class="stats">
        <div>
          <dt>Credits spent</dt>
          <dd data-testid="credits-spent">{formatNumber(report.credits_spent)}</dd>
        </div>
        <div>
          <dt>Requests</dt>
          <dd>{formatNumber(requests)}</dd>
        </div>
        <div>
          <dt>Balance now</dt>
          <dd>{formatNumber(report.balance)}</dd>
        </div>
      </dl>
      <section aria-labelledby="per-day">
        <h2 id="per-day">
          Credits per day, {report.from} to {report.to}
        </h2>
        <DailyChart report={report} />
        <details>
          <summary>Every day as a table</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day (UTC)</th>
                  <th scope="col" class="num">
                    Credits
                  </th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {[...report.days].reverse().map((entry) => (
                  <tr key={entry.date}>
                    <th scope="row">{entry.date}</th>
                    <td class="num">{formatNumber(entry.credits_spent)}</td>
                    <td class="num">{formatNumber(entry.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </section>
      <section aria-labelledby="per-operation">
        <h2 id="per-operation">Credits per operation</h2>
        {report.endpoints.length === 0 ? (
          <p class="muted">No requests in this range.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Operation</th>
                  <th scope="col" class="num">
                    Credits
                  </th>
                  <th scope="col" class="num">
                    Requests
                  </th>
                </tr>
              </thead>
              <tbody>
                {report.endpoints.map((entry) => (
                  <tr key={entry.endpoint}>
                    <th scope="row" class="mono">
                      {entry.endpoint}
                    </th>
                    <td class="num">{formatNumber(entry.credits_spent)}</td>
                    <td class="num">{formatNumber(entry.requests)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function DailyChart({ report }: { report: UsageReport }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: {
        labels: report.days.map((entry) => entry.date.slice(5)),
        datasets: [
          { label: "Credits", data: report.days.map((entry) => entry.credits_spent), backgroundColor: "#1d4ed8" },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
        plugins: { tooltip: { enabled: true } },
      },
    });
    return () => chart.destroy();
  }, [report]);
  const busiest = report.days.reduce((best, entry) => (entry.credits_spent > best.credits_spent ? entry : best), {
    date: "",
    credits_spent: 0,
    requests: 0,
  });
  const summary = `Bar chart of credits spent per day from ${report.from} to ${report.to}: ${report.credits_spent} credits in all${
    busiest.date ? `, most on ${busiest.date} (${busiest.credits_spent})` : ""
  }.`;
  return (
    <div class="chart">
      <canvas ref={canvas} role="img" aria-label={summary} />
    </div>
  );
}
