import { useEffect, useState } from "preact/hooks";
import { formatBytes, formatDuration } from "../../../src/models/progress-text.ts";
import { ApiError, api } from "../api.ts";
import { t } from "../i18n.ts";

/** `GET /api/local-model` (see src/models/local-model-service.ts). */
interface LocalModelSnapshot {
  runtime: { installed: boolean; installing: boolean; error?: string };
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
      if (download?.state === "failed") {
        setProblems([download.error ?? next.runtime.error ?? "download failed"]);
        setWaitingFor(null);
      } else if (download?.state === "done") {
        setWaitingFor(null);
        void use(waitingFor);
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waitingFor]);

  const pull = async (name: string) => {
    setProblems([]);
    await api.post("/api/local-model/pull", { name });
    setWaitingFor(name);
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
                  disabled={waitingFor !== null}
                  onClick={() => void pull(entry.name)}
                >
                  {t("localDownload", { size: formatBytes(entry.sizeBytes) })}
                </button>
              )}
            </div>
            {snapshot.runtime.installing && <p class="muted">{t("localRuntime")}</p>}
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
        <ul class="banner error" role="alert">
          {problems.map((problem) => (
            <li key={problem} class="mono">
              {problem}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
