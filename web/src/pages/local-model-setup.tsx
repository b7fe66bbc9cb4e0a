import { useEffect, useState } from "preact/hooks";
import { parseDocument } from "yaml";
import { formatBytes, formatDuration } from "../../../src/models/progress-text.ts";
import { ApiError, api } from "../api.ts";
import { t } from "../i18n.ts";

/** `GET /api/local-model` (see src/models/local-model-service.ts). */
interface LocalModelSnapshot {
  runtime: { installed: boolean; installing: boolean; error?: string; line?: string };
  downloadsFrom: string;
  recommended: Array<{ name: string; title: string; description: string; sizeBytes: number }>;
  installed: Array<{ name: string }>;
  downloads: Array<{
    name: string;
    state: "downloading" | "done" | "failed";
    error?: string;
    progress?: { receivedBytes: number; totalBytes: number; bytesPerSecond: number; etaSeconds?: number };
  }>;
  models: Array<{
    providerId: string;
    model: string;
    state: string;
    error?: string;
    memory?: { modelBytes: number };
    tokensPerSecond?: number;
  }>;
}

const POLL_MS = 500;

/** "Local model" beside "API provider": download with progress, then use it; loaded models' status. */
export function LocalModelSetup({ onSaved }: { onSaved: (file: string) => void }) {
  const [snapshot, setSnapshot] = useState<LocalModelSnapshot | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [waitingFor, setWaitingFor] = useState<string | null>(null);
  /** The model whose download (about 1 GB) waits for a yes. */
  const [confirming, setConfirming] = useState<string | null>(null);
  /** The last model asked for, to retry after a failure. */
  const [lastAsked, setLastAsked] = useState<string | null>(null);

  const refresh = () => api.get<LocalModelSnapshot>("/api/local-model").then(setSnapshot);

  useEffect(() => {
    void refresh();
  }, []);

  const use = async (name: string) => {
    try {
      const answer = await api.post<{ file: string }>("/api/local-model/use", { name });
      onSaved(answer.file);
    } catch (error) {
      setProblems(error instanceof ApiError && error.problems.length > 0 ? error.problems : [String(error)]);
    }
  };

  // While a download runs, follow its progress; once it is done, use the model.
  useEffect(() => {
    if (!waitingFor) return;
    const timer = setInterval(async () => {
      const next = await api.get<LocalModelSnapshot>("/api/local-model");
      setSnapshot(next);
      const download = next.downloads.find((item) => item.name === waitingFor);
      // The runtime is installed before the download starts: its failure (npm's reason) ends it too.
      const runtimeFailed = !next.runtime.installing && next.runtime.error !== undefined && !download;
      if (download?.state === "failed" || runtimeFailed) {
        setProblems([download?.error ?? next.runtime.error ?? t("localFailed")]);
        setWaitingFor(null);
      } else if (download?.state === "done") {
        setWaitingFor(null);
        void use(waitingFor);
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waitingFor]);

  const pull = async (name: string) => {
    setConfirming(null);
    setProblems([]);
    setLastAsked(name);
    try {
      await api.post("/api/local-model/pull", { name });
      setWaitingFor(name);
    } catch (error) {
      setProblems(error instanceof ApiError && error.problems.length > 0 ? error.problems : [String(error)]);
    }
  };

  if (!snapshot) return null;
  const installed = new Set(snapshot.installed.map((model) => model.name));
  return (
    <section class="card local-model">
      <h2>{t("localTitle")}</h2>
      <p>{t("localIntro")}</p>
      {snapshot.recommended.map((entry) => {
        const download = snapshot.downloads.find((item) => item.name === entry.name);
        const progress = download?.state === "downloading" ? download.progress : undefined;
        return (
          <div key={entry.name} class="local-model-entry">
            <strong>{entry.title}</strong> <span class="muted">{entry.description}</span>
            <div class="actions">
              {installed.has(entry.name) ? (
                <button type="button" class="primary" onClick={() => void use(entry.name)}>
                  {t("localUse")}
                </button>
              ) : (
                <button
                  type="button"
                  class="primary"
                  disabled={waitingFor !== null || confirming !== null}
                  onClick={() => setConfirming(entry.name)}
                >
                  {t("localDownload", { size: formatBytes(entry.sizeBytes) })}
                </button>
              )}
            </div>
            {confirming === entry.name && (
              <div class="banner warn confirm" role="alertdialog">
                <p>
                  {t("localConfirm", { size: formatBytes(entry.sizeBytes) })}{" "}
                  <span class="mono">{snapshot.downloadsFrom}</span>
                </p>
                <div class="actions">
                  <button type="button" class="primary" onClick={() => void pull(entry.name)}>
                    {t("localConfirmYes")}
                  </button>
                  <button type="button" onClick={() => setConfirming(null)}>
                    {t("pgCancel")}
                  </button>
                </div>
              </div>
            )}
            {snapshot.runtime.installing && (
              <p class="muted runtime-install">
                <progress /> {t("localRuntime")}
                {snapshot.runtime.line && <span class="mono small"> {snapshot.runtime.line}</span>}
              </p>
            )}
            {progress && (
              <div class="download-progress">
                <progress max={progress.totalBytes} value={progress.receivedBytes} />
                <span class="mono">
                  {t("localProgress", {
                    received: formatBytes(progress.receivedBytes),
                    total: formatBytes(progress.totalBytes),
                    speed: formatBytes(progress.bytesPerSecond),
                    eta: progress.etaSeconds === undefined ? "…" : formatDuration(progress.etaSeconds),
                  })}
                </span>
              </div>
            )}
          </div>
        );
      })}
      {snapshot.models.map((model) => (
        <p key={model.providerId} class="mono">
          {t("localStatus", {
            model: model.model,
            state: model.error ? `${model.state} (${model.error})` : model.state,
            memory: model.memory ? formatBytes(model.memory.modelBytes) : "—",
            speed: model.tokensPerSecond === undefined ? "—" : Math.round(model.tokensPerSecond),
          })}
        </p>
      ))}
      {problems.length > 0 && (
        <div class="banner error" role="alert">
          <ul class="plain">
            {problems.map((problem) => (
              <li key={problem} class="mono">
                {problem}
              </li>
            ))}
          </ul>
          {lastAsked && (
            <button type="button" onClick={() => void pull(lastAsked)}>
              {t("retry")}
            </button>
          )}
        </div>
      )}
      <MirrorField downloadsFrom={snapshot.downloadsFrom} onSaved={() => void refresh()} />
    </section>
  );
}

/**
 * `llm.modelMirror`: huggingface.co is often out of reach here, so downloads can come from a
 * mirror with its paths (HF_ENDPOINT-style). Saved like the Config page's forms: that one key,
 * in the file's own text, through PUT /api/config.
 */
function MirrorField({ downloadsFrom, onSaved }: { downloadsFrom: string; onSaved: () => void }) {
  const [mirror, setMirror] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = async () => {
    setProblem(null);
    setSaved(false);
    try {
      const { yaml } = await api.get<{ yaml: string }>("/api/config");
      const document = parseDocument(yaml);
      document.setIn(["llm", "modelMirror"], (mirror ?? "").trim());
      await api.put("/api/config", { yaml: document.toString() });
      setSaved(true);
      onSaved();
    } catch (error) {
      setProblem(
        error instanceof ApiError && error.problems.length > 0 ? error.problems.join("; ") : String(error),
      );
    }
  };
  return (
    <div class="mirror">
      <label>
        {t("localMirror")}
        <input
          name="modelMirror"
          placeholder="https://hf-mirror.com"
          value={mirror ?? (downloadsFrom === "https://huggingface.co" ? "" : downloadsFrom)}
          onInput={(event) => setMirror(event.currentTarget.value)}
        />
      </label>
      <button type="button" disabled={mirror === null} onClick={() => void save()}>
        {t("localMirrorSave")}
      </button>
      <p class="muted small">{t("localMirrorHint")}</p>
      {saved && <output class="ok small">{t("configSaved")}</output>}
      {problem && <p class="error small mono">{problem}</p>}
    </div>
  );
}
