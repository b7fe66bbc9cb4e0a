import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "../api.ts";
import { useGroupNames } from "../chat-names.ts";
import { t } from "../i18n.ts";
import type { BudgetReport, BudgetsAnswer, BudgetUse, DailySpendAnswer } from "../types.ts";
import { DayChart, type DayPoint } from "./usage-chart.tsx";

type Split = "model" | "chat";

const BUDGET_KEYS = [
  "limits.dailyCost",
  "limits.monthlyCost",
  "limits.groupDailyCost",
  "limits.groupMonthlyCost",
  "limits.userDailyCost",
];

/** What each day cost, stacked by model or by chat, over the page's period. */
export function CostChart({ days }: { days: number }) {
  const [daily, setDaily] = useState<DailySpendAnswer | null>(null);
  const [split, setSplit] = useState<Split>("model");
  const chatName = useChatLabel();
  useEffect(() => {
    void api.get<DailySpendAnswer>(withQuery("/api/usage/daily", { days })).then(setDaily);
  }, [days]);
  if (!daily) return null;
  const priced = daily.rows.filter((row) => row.cost !== null && row.cost > 0);
  const points: DayPoint[] = priced.map((row) => ({
    day: row.day,
    series: split === "model" ? `${row.provider}/${row.model}` : chatName(row.sessionId),
    value: row.cost ?? 0,
  }));
  return (
    <div class="cost-chart">
      <h3>
        {t("modelsCostPerDay")}
        {daily.currency && <span class="mono small"> ({daily.currency})</span>}{" "}
        <span class="segmented">
          {(["model", "chat"] as const).map((option) => (
            <button
              key={option}
              type="button"
              name="cost-split"
              value={option}
              class={split === option ? "active" : ""}
              aria-pressed={split === option}
              onClick={() => setSplit(option)}
            >
              {t(option === "model" ? "modelsByModel" : "modelsByGroup")}
            </button>
          ))}
        </span>
      </h3>
      {priced.length === 0 ? (
        <p class="muted">{t("modelsNoCost")}</p>
      ) : (
        <DayChart
          points={points}
          days={days}
          since={daily.since}
          label={t("modelsCostPerDay")}
          format={money}
        />
      )}
    </div>
  );
}

/** The budgets in force for all chats and each group with spending: limit, used, share, state. */
export function BudgetsTable() {
  const [answer, setAnswer] = useState<BudgetsAnswer | null>(null);
  const chatName = useChatLabel();
  useEffect(() => {
    void api.get<BudgetsAnswer>("/api/budgets").then(setAnswer);
  }, []);
  if (!answer) return null;
  const whose: Array<{ key: string; name: string; report: BudgetReport }> = [
    { key: "all", name: t("budgetAllChats"), report: answer.all },
    ...answer.groups.map((group) => ({
      key: group.sessionId,
      name: chatName(group.sessionId),
      report: group,
    })),
  ].filter((entry) => entry.report.budgets.length > 0);
  const economy = answer.economyAt > 0 && answer.economyModels.length > 0;
  return (
    <>
      <h2>{t("modelsBudgets")}</h2>
      {whose.length === 0 ? (
        <>
          <p class="muted">
            {t("modelsNoBudgets")} <code>{BUDGET_KEYS.join(", ")}</code>
          </p>
          <p class="muted small">
            {t("modelsBudgetsHow")} <code>limits.economyAt, llm.models.economy</code>
          </p>
        </>
      ) : (
        <>
          <p class="small muted">
            {economy ? (
              <>
                {t("modelsEconomyAt", { share: Math.round(answer.economyAt * 100) })}{" "}
                <span class="mono">{answer.economyModels.join(", ")}</span>
              </>
            ) : (
              <>
                {t("modelsNoEconomy")} <code>llm.models.economy, limits.economyAt</code>
              </>
            )}
          </p>
          <table class="grid-table budgets-table">
            <thead>
              <tr>
                <th>{t("budgetWhose")}</th>
                <th>{t("budgetName")}</th>
                <th>{t("budgetPeriod")}</th>
                <th>{t("budgetUsed")}</th>
                <th>{t("budgetShare")}</th>
                <th>{t("budgetState")}</th>
              </tr>
            </thead>
            <tbody>
              {whose.flatMap(({ key, name, report }) =>
                report.budgets.map((budget, index) => (
                  <tr key={`${key}|${budget.limit}`} data-budget={budget.limit} data-whose={key}>
                    {index === 0 && (
                      <th rowSpan={report.budgets.length} data-user-content={key !== "all" || undefined}>
                        {name}
                      </th>
                    )}
                    <td class="mono">limits.{budget.limit}</td>
                    <td>{t(budget.period === "day" ? "budgetToday" : "budgetThisMonth")}</td>
                    <td class="number">{amount(budget, answer.currency)}</td>
                    <td>
                      <ShareBar budget={budget} economyAt={economy ? answer.economyAt : 0} />
                    </td>
                    {index === 0 && (
                      <td rowSpan={report.budgets.length}>
                        <BudgetState report={report} />
                      </td>
                    )}
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}

function ShareBar({ budget, economyAt }: { budget: BudgetUse; economyAt: number }) {
  const percent = Math.round(budget.share * 100);
  const level = budget.share >= 1 ? "full" : economyAt > 0 && budget.share >= economyAt ? "economy" : "ok";
  return (
    <div class="share">
      <span class={`share-bar ${level}`}>
        <span style={{ width: `${Math.min(100, percent)}%` }} />
        {economyAt > 0 && <i style={{ left: `${economyAt * 100}%` }} />}
      </span>{" "}
      <span class="share-figure">{percent}%</span>
    </div>
  );
}

function BudgetState({ report }: { report: BudgetReport }) {
  if (report.stopped) return <span class="badge failed budget-state">{t("budgetStopped")}</span>;
  if (report.economy) return <span class="badge silent budget-state">{t("budgetEconomy")}</span>;
  return <span class="badge replied budget-state">{t("budgetNormal")}</span>;
}

/** "0.42 / 1 CNY" for money, "12,000 / 50,000" for tokens. */
function amount(budget: BudgetUse, currency: string | null): string {
  if (budget.measure === "tokens") return `${budget.used.toLocaleString()} / ${budget.max.toLocaleString()}`;
  return `${money(budget.used)} / ${money(budget.max)}${currency ? ` ${currency}` : ""}`;
}

/** Costs to two decimals, and to four below a hundredth (a day of a cheap model). */
function money(value: number): string {
  return value !== 0 && Math.abs(value) < 0.01 ? value.toFixed(4) : value.toFixed(2);
}

/** A chat's name for the chart and the table: the group's name where known, else its kind and id. */
function useChatLabel(): (sessionId: string | null) => string {
  const groupName = useGroupNames();
  return (sessionId) => {
    if (sessionId === null) return t("modelsOutsideChats");
    const [, , chatType, peerId = sessionId] = sessionId.split(":");
    if (chatType === "group") return groupName(sessionId) ?? t("modelsGroupChat", { id: peerId });
    if (chatType === "private") return t("modelsPrivateChat", { id: peerId });
    return sessionId;
  };
}
