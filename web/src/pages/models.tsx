import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { t } from "../i18n.ts";
import type { ModelTestResult, ProviderInfo, UsageRow } from "../types.ts";
import { BudgetsTable, CostChart } from "./spend.tsx";
import { TestResult } from "./test-result.tsx";
import { DayChart } from "./usage-chart.tsx";

interface ModelsInfo {
  providers: ProviderInfo[];
  tasks: Record<string, string[]>;
}

const PERIODS = [7, 30, 90];

/** Whether every model of the vision task is a local one, which cannot see pictures. */
function visionIsLocalOnly(models: ModelsInfo): boolean {
  const refs = models.tasks.vision ?? [];
  const typeOf = (ref: string) =>
    models.providers.find((provider) => provider.id === ref.slice(0, ref.indexOf("/")))?.type;
  return refs.length > 0 && refs.every((ref) => typeOf(ref) === "llama-cpp");
}

/** Providers, each task's model list with a test button, spend over time, and the budgets. */
export function ModelsPage() {
  const [models, setModels] = useState<ModelsInfo | null>(null);
  const [days, setDays] = useState(30);
  const [usage, setUsage] = useState<{ since: string; rows: UsageRow[] } | null>(null);

  useEffect(() => {
    void api.get<ModelsInfo>("/api/models").then(setModels);
  }, []);
  useEffect(() => {
    void api.get<{ since: string; rows: UsageRow[] }>(withQuery("/api/usage", { days })).then(setUsage);
  }, [days]);

  return (
    <section class="page">
      <header class="page-head">
        <h1>{t("navModels")}</h1>
      </header>
      <h2>{t("modelsProviders")}</h2>
      {models && models.providers.length === 0 && <p class="muted">{t("modelsNoProviders")}</p>}
      <ul class="cards">
        {models?.providers.map((provider) => (
          <li key={provider.id} class="card">
            <strong>{provider.id}</strong> <span class="badge">{provider.type}</span>
            <div class="mono small">{provider.baseUrl ?? "—"}</div>
            <div class="small muted">{provider.hasApiKey ? t("modelsKeySet") : t("modelsNoKey")}</div>
          </li>
        ))}
      </ul>
      <h2>{t("modelsTasks")}</h2>
      {models && visionIsLocalOnly(models) && (
        <output class="banner warn">{t("modelsVisionLocalOnly")}</output>
      )}
      <table class="grid-table">
        <tbody>
          {models &&
            Object.entries(models.tasks).map(([task, refs]) => (
              <tr key={task}>
                <th class="mono">{task}</th>
                <td>
                  {refs.length === 0 && <span class="muted">—</span>}
                  {refs.map((ref) => (
                    <ModelTest key={ref} modelRef={ref} />
                  ))}
                </td>
              </tr>
            ))}
        </tbody>
      </table>
      <h2>
        {t("modelsUsage")}{" "}
        <select name="days" value={days} onChange={(event) => setDays(Number(event.currentTarget.value))}>
          {PERIODS.map((period) => (
            <option key={period} value={period}>
              {t("modelsDays", { n: period })}
            </option>
          ))}
        </select>
      </h2>
      {usage && usage.rows.length === 0 && <p class="muted">{t("modelsNoUsage")}</p>}
      {usage && usage.rows.length > 0 && (
        <>
          <CostChart days={days} />
          <h3>{t("modelsTokensPerDay")}</h3>
          <DayChart
            points={usage.rows.map((row) => ({
              day: row.day,
              series: `${row.provider}/${row.model}`,
              value: row.promptTokens + row.completionTokens,
            }))}
            days={days}
            since={usage.since}
            label={t("modelsTokensPerDay")}
          />
          <UsageTable rows={usage.rows} />
        </>
      )}
      <BudgetsTable />
    </section>
  );
}

function ModelTest({ modelRef }: { modelRef: string }) {
  const [result, setResult] = useState<ModelTestResult | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      setResult(await api.post<ModelTestResult>("/api/models/test", { ref: modelRef }));
    } catch (error) {
      setResult({ ok: false, latencyMs: 0, error: String(error) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="model-ref" data-model={modelRef}>
      <span class="mono">{modelRef}</span>{" "}
      <button type="button" onClick={() => void run()} disabled={busy}>
        {busy ? t("testing") : t("test")}
      </button>{" "}
      {result && <TestResult result={result} />}
    </div>
  );
}

/** Totals per task and model over the period. */
function UsageTable({ rows }: { rows: UsageRow[] }) {
  const groups = new Map<string, UsageRow & { latencySum: number }>();
  for (const row of rows) {
    const key = `${row.task}|${row.provider}/${row.model}`;
    const total = groups.get(key);
    if (!total) {
      groups.set(key, { ...row, latencySum: row.averageLatencyMs * row.calls });
      continue;
    }
    total.calls += row.calls;
    total.failures += row.failures;
    total.promptTokens += row.promptTokens;
    total.completionTokens += row.completionTokens;
    total.latencySum += row.averageLatencyMs * row.calls;
    total.cachedPromptTokens += row.cachedPromptTokens;
    total.cost = total.cost === null ? row.cost : total.cost + (row.cost ?? 0);
  }
  const totals = [...groups.values()];
  const anyPrice = totals.some((row) => row.cost !== null);
  return (
    <>
      <table class="grid-table usage">
        <thead>
          <tr>
            <th>{t("modelsTask")}</th>
            <th>{t("modelsModel")}</th>
            <th>{t("modelsCalls")}</th>
            <th>{t("modelsFailures")}</th>
            <th>{t("modelsPrompt")}</th>
            <th>{t("modelsCompletion")}</th>
            <th>{t("modelsAvgLatency")}</th>
            <th>{t("modelsCost")}</th>
          </tr>
        </thead>
        <tbody>
          {totals.map((row) => (
            <tr key={`${row.task}|${row.provider}/${row.model}`}>
              <td>{row.task}</td>
              <td class="mono">
                {row.provider}/{row.model}
              </td>
              <td>{row.calls}</td>
              <td>{row.failures}</td>
              <td>{row.promptTokens}</td>
              <td>{row.completionTokens}</td>
              <td>{Math.round(row.latencySum / row.calls)} ms</td>
              <td>{row.cost === null ? "—" : row.cost.toFixed(4)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!anyPrice && <p class="muted small">{t("modelsPriceHint")}</p>}
    </>
  );
}
