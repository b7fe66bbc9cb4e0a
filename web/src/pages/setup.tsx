import { useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { t } from "../i18n.ts";
import { Link } from "../link.tsx";
import { navigate, useQueryParam } from "../router.ts";
import type { ConsoleStatus, ModelTestResult } from "../types.ts";
import { ConnectPage } from "./connect.tsx";
import { LocalModelSetup } from "./local-model-setup.tsx";
import { PROVIDER_PRESETS, type ProviderType, presetName } from "./provider-presets.ts";
import { TestResult } from "./test-result.tsx";

const PROVIDER_TYPES: ProviderType[] = ["openai-compatible", "openai", "gemini", "anthropic"];
const FIRST_PRESET = PROVIDER_PRESETS[0]!;

/** First run is done once a model is set and a QQ account is connected: it leaves the menu then. */
export function firstRunDone(status: ConsoleStatus): boolean {
  return status.modelConfigured && status.adapters.some((adapter) => adapter.connected);
}

/** First run in two steps: a model (tested, then saved to the config file), then Connect QQ. */
export function SetupPage({ status, onSaved }: { status: ConsoleStatus; onSaved: () => void }) {
  const step = useQueryParam("step") === "connect" ? "connect" : "model";
  const connected = status.adapters.some((adapter) => adapter.connected);
  return (
    <section class="page setup">
      <header class="page-head">
        <h1>{step === "model" ? t("setupTitle") : t("connectTitle")}</h1>
      </header>
      <ol class="steps">
        <li class={step === "model" ? "current" : ""}>
          <a href="/setup" onClick={go("/setup")}>
            {t("setupStepModel")} {status.modelConfigured ? "✓" : ""}
          </a>
        </li>
        <li class={step === "connect" ? "current" : ""}>
          <a href="/setup?step=connect" onClick={go("/setup?step=connect")}>
            {t("setupStepConnect")} {connected ? "✓" : ""}
          </a>
        </li>
      </ol>
      {step === "model" ? (
        <ModelStep status={status} onSaved={onSaved} />
      ) : (
        <>
          <ConnectPage embedded />
          {firstRunDone(status) && (
            <output class="banner ok">
              {t("setupDone")} <Link href="/playground">{t("setupGoPlayground")}</Link>
            </output>
          )}
        </>
      )}
    </section>
  );
}

function go(path: string) {
  return (event: MouseEvent) => {
    event.preventDefault();
    navigate(path);
  };
}

function ModelStep({ status, onSaved }: { status: ConsoleStatus; onSaved: () => void }) {
  const [presetId, setPresetId] = useState(FIRST_PRESET.id);
  const [type, setType] = useState<ProviderType>(FIRST_PRESET.type);
  const [baseUrl, setBaseUrl] = useState(FIRST_PRESET.baseUrl);
  const [apiKey, setApiKey] = useState("");
  const [model, setModel] = useState(FIRST_PRESET.model);
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

  const choosePreset = (id: string) => {
    const preset = PROVIDER_PRESETS.find((candidate) => candidate.id === id) ?? FIRST_PRESET;
    setPresetId(preset.id);
    setType(preset.type);
    setBaseUrl(preset.baseUrl);
    setModel(preset.model);
    setTested(null);
  };

  return (
    <>
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
          {t("setupProvider")}
          <select
            name="preset"
            value={presetId}
            onChange={(event) => choosePreset(event.currentTarget.value)}
          >
            {PROVIDER_PRESETS.map((preset) => (
              <option key={preset.id} value={preset.id}>
                {presetName(preset)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("setupType")}
          <select
            name="type"
            value={type}
            onChange={(event) => {
              setType(event.currentTarget.value as ProviderType);
              setTested(null);
            }}
          >
            {PROVIDER_TYPES.map((name) => (
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
          {t("setupSaved", { file: savedTo })} <Link href="/setup?step=connect">{t("setupNextConnect")}</Link>{" "}
          · <Link href="/playground">{t("setupGoPlayground")}</Link>
        </output>
      )}
    </>
  );
}
