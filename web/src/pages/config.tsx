import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { t } from "../i18n.ts";

interface ConfigAnswer {
  file: string | null;
  editable: boolean;
  yaml: string;
}

interface SaveAnswer {
  saved: true;
  changedKeys: string[];
  restartRequired: string[];
}

/** The config file as YAML: edited here, checked by the server, saved, and hot-reloaded. */
export function ConfigPage({ onSaved }: { onSaved: () => void }) {
  const [config, setConfig] = useState<ConfigAnswer | null>(null);
  const [text, setText] = useState("");
  const [problems, setProblems] = useState<string[]>([]);
  const [result, setResult] = useState<SaveAnswer | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async () => {
    const answer = await api.get<ConfigAnswer>("/api/config");
    setConfig(answer);
    setText(answer.yaml);
  };
  useEffect(() => {
    void load();
  }, []);

  const save = async () => {
    setBusy(true);
    setProblems([]);
    setResult(null);
    try {
      setResult(await api.put<SaveAnswer>("/api/config", { yaml: text }));
      await load();
      onSaved();
    } catch (error) {
      setProblems(error instanceof ApiError && error.problems.length > 0 ? error.problems : [String(error)]);
    } finally {
      setBusy(false);
    }
  };

  if (!config) return <p>{t("loading")}</p>;
  return (
    <section class="page config">
      <header class="page-head">
        <h1>{t("navConfig")}</h1>
        <span class="mono small">
          {t("configFile")}: {config.file ?? "—"}
        </span>
      </header>
      <p class="muted small">{config.editable ? t("configSecrets") : t("configReadOnly")}</p>
      <textarea
        name="yaml"
        class="code-editor"
        spellcheck={false}
        readOnly={!config.editable}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      {config.editable && (
        <div class="actions">
          <button type="button" class="primary" disabled={busy} onClick={() => void save()}>
            {busy ? t("saving") : t("save")}
          </button>
        </div>
      )}
      {problems.length > 0 && (
        <div class="banner error" role="alert">
          {t("configProblems")}
          <ul>
            {problems.map((problem) => (
              <li key={problem} class="mono">
                {problem}
              </li>
            ))}
          </ul>
        </div>
      )}
      {result && (
        <output class="banner ok">
          {result.changedKeys.length === 0 ? t("configNoChange") : t("configSaved")}
          {result.restartRequired.length > 0 && (
            <div>
              {t("configRestart")} <span class="mono">{result.restartRequired.join(", ")}</span>
            </div>
          )}
        </output>
      )}
    </section>
  );
}
