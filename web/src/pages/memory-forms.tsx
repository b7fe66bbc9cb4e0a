import { useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { t } from "../i18n.ts";
import type { MemoryEntry } from "../types.ts";

/* The memory page's forms: editing a memory, adding one by hand, confirming a deletion. */

/** Rewrites what a memory says. */
export function EditContent({
  memory,
  onSaved,
  onCancel,
}: {
  memory: MemoryEntry;
  onSaved: (memory: MemoryEntry) => void;
  onCancel: () => void;
}) {
  const [content, setContent] = useState(memory.content);
  const [failure, setFailure] = useState<string | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await api.patch<{ memory: MemoryEntry }>(`/api/memory/${memory.id}`, { content });
      onSaved(answer.memory);
    } catch (error) {
      setFailure(failureText(error));
    }
  };

  return (
    <form class="form" onSubmit={save}>
      <textarea
        name="content"
        rows={3}
        value={content}
        onInput={(event) => setContent(event.currentTarget.value)}
      />
      {failure && <p class="error">{failure}</p>}
      <div class="actions">
        <button type="submit" class="primary" disabled={!content.trim()}>
          {t("save")}
        </button>
        <button type="button" onClick={onCancel}>
          {t("memCancel")}
        </button>
      </div>
    </form>
  );
}

/** A fact about the filtered person or group, written by hand. */
export function AddMemory({ subject, onAdded }: { subject: string; onAdded: () => void }) {
  const [content, setContent] = useState("");
  const [failure, setFailure] = useState<string | null>(null);

  const add = async (event: Event) => {
    event.preventDefault();
    try {
      await api.post("/api/memory", { subject, content });
      setContent("");
      setFailure(null);
      onAdded();
    } catch (error) {
      setFailure(failureText(error));
    }
  };

  return (
    <form class="form memory-add" onSubmit={add}>
      <h3 class="small">{t("memAdd")}</h3>
      <input
        name="new-memory"
        placeholder={t("memAddContent")}
        value={content}
        onInput={(event) => setContent(event.currentTarget.value)}
      />
      <button type="submit" disabled={!content.trim()}>
        {t("memAddSave")}
      </button>
      {failure && <p class="error">{failure}</p>}
    </form>
  );
}

/** A question asked in place before a deletion; a refusal from the server shows under it. */
export function Confirm({
  question,
  yes,
  onYes,
  onNo,
}: {
  question: string;
  yes: string;
  onYes: () => Promise<void>;
  onNo: () => void;
}) {
  const [failure, setFailure] = useState<string | null>(null);
  return (
    <div class="banner warn confirm">
      <p>{question}</p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => void onYes().catch((error: unknown) => setFailure(failureText(error)))}
        >
          {yes}
        </button>
        <button type="button" onClick={onNo}>
          {t("memCancel")}
        </button>
      </div>
      {failure && <p class="error">{failure}</p>}
    </div>
  );
}

/** What a failed call shows: the server's message for a refusal, else the error itself. */
export function failureText(error: unknown): string {
  return error instanceof ApiError ? error.message : String(error);
}
