import { useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { t } from "../i18n.ts";
import { Link } from "../link.tsx";
import type { ConsoleStatus, ModelTestResult } from "../types.ts";
import { LocalModelSetup } from "./local-model-setup.tsx";
import { TestResult } from "./test-result.tsx";

type ProviderType = "openai-compatible" | "openai" | "gemini" | "anthropic";

/** Suggestions per provider type; every field can be changed. */
const PRESETS: Record<ProviderType, { baseUrl: string; model: string }> = {
  "openai-compatible": { baseUrl: "https://api.deepseek.com/v1", model: "deepseek-chat" },
  openai: { baseUrl: "", model: "gpt-4o-mini" },
  gemini: { baseUrl: "", model: "gemini-2.0-flash" },
  anthropic: { baseUrl: "", model: "claude-3-5-haiku-latest" },
};

/** First run: pick a provider and model, test it, save it to the config file. */
export function SetupPage({ status, onSaved }: { status: ConsoleStatus; onSaved: () => void }) {
  const [type, setType] = useState<ProviderType>("openai-compatible");
  const [baseUrl, setBaseUrl] = useState(PRESETS["openai-compatible"].baseUrl);
  const [apiKey, setApiKey] = useState("");
  const [model, setModel] = useState(PRESETS["openai-compatible"].model);
  const [tested, setTested] = useState<ModelTestResult | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [savedTo, setSavedTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const body = () => ({ type, ...(baseUrl ? { baseUrl } : {}), apiKey, model });

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setProblems([]);
    try {
      await action();
    } catch (error) {
      setProblems(error instanceof ApiError && error.problems.length > 0 ? error.problems : [String(error)]);
    } finally {
      setBusy(false);
    }
  };

  const test = () =>
    run(async () => {
      setTested(await api.post<ModelTestResult>("/api/setup/test", body()));
    });
  const save = () =>
    run(async () => {
      const answer = await api.post<{ file: string }>("/api/setup/model", body());
      setSavedTo(answer.file);
      onSaved();
    });

  const chooseType = (next: ProviderType) => {
    setType(next);
    setBaseUrl(PRESETS[next].baseUrl);
    setModel(PRESETS[next].model);
    setTested(null);
  };

  return (
    <section class="page setup">
      <header class="page-head">
        <h1>{t("setupTitle")}</h1>
      </header>
      {!status.modelConfigured && <output class="banner warn">{t("noModelBanner")}</output>}
      <LocalModelSetup
        onSaved={(file) => {
          setSavedTo(file);
          onSaved();
        }}
      />
      <p>{t("setupIntro")}</p>
      <form
        class="card form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label>
          {t("setupType")}
          <select
            name="type"
            value={type}
            onChange={(event) => chooseType(event.currentTarget.value as ProviderType)}
          >
            {Object.keys(PRESETS).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("setupBaseUrl")}
          <input
            name="baseUrl"
            value={baseUrl}
            onInput={(event) => setBaseUrl(event.currentTarget.value.trim())}
          />
        </label>
        <label>
          {t("setupApiKey")}
          <input
            name="apiKey"
            type="password"
            autocomplete="off"
            value={apiKey}
            onInput={(event) => setApiKey(event.currentTarget.value.trim())}
          />
        </label>
        <label>
          {t("setupModel")}
          <input name="model" value={model} onInput={(event) => setModel(event.currentTarget.value.trim())} />
        </label>
        <div class="actions">
          <button type="button" disabled={busy || !model} onClick={() => void test()}>
            {busy ? t("testing") : t("test")}
          </button>
          <button type="submit" class="primary" disabled={busy || !model}>
            {t("save")}
          </button>
          {tested && <TestResult result={tested} />}
        </div>
      </form>
      {problems.length > 0 && (
        <ul class="banner error" role="alert">
          {problems.map((problem) => (
            <li key={problem} class="mono">
              {problem}
            </li>
          ))}
        </ul>
      )}
      {savedTo && (
        <output class="banner ok">
          {t("setupSaved", { file: savedTo })} <Link href="/playground">{t("setupGoPlayground")}</Link>
        </output>
      )}
    </section>
  );
}
