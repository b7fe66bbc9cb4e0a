import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import { type KnowledgeTextKey, kt } from "./knowledge-text.ts";

interface Scope {
  chats: "all" | "groups" | "private";
  groups: string[];
  autoRetrieve: boolean;
}

interface KnowledgeDocument {
  id: number;
  name: string;
  kind: string;
  title: string;
  scope: Scope;
  bytes: number;
  indexedAt: number;
  chunkCount: number;
  note?: string;
}

interface Chunk {
  id: number;
  position: number;
  heading: string;
  page?: number;
  text: string;
}

interface Hit {
  chunkId: number;
  source: string;
  text: string;
  score: number;
  bm25: number | null;
  similarity: number | null;
  autoRetrieve: boolean;
}

const CHATS: Array<[Scope["chats"], KnowledgeTextKey]> = [
  ["all", "knowledgeAll"],
  ["groups", "knowledgeGroups"],
  ["private", "knowledgePrivate"],
];

/**
 * The knowledge base: its documents with their scopes (editable) and passages, an upload, and
 * a question asked as one chat would ask it, with the scores that ranked what it finds.
 */
export function KnowledgePage() {
  const [answer, setAnswer] = useState<{ documents: KnowledgeDocument[]; vectorSupport: string } | null>(
    null,
  );
  const load = () =>
    void api
      .get<{ documents: KnowledgeDocument[]; vectorSupport: string }>("/api/knowledge")
      .then((loaded) => setAnswer(loaded));
  useEffect(load, []);
  if (!answer) return <p>{t("loading")}</p>;
  return (
    <section class="page knowledge">
      <header class="page-head">
        <h1>{kt("knowledgeTitle")}</h1>
      </header>
      <p class="muted small">
        {kt("knowledgeHint")} {kt("knowledgeVectors", { mode: answer.vectorSupport })}
      </p>
      <Upload onDone={load} />
      {answer.documents.length === 0 && <p class="muted">{kt("knowledgeNone")}</p>}
      {answer.documents.map((document) => (
        <DocumentCard key={document.id} document={document} onChanged={load} />
      ))}
      <QueryBox />
    </section>
  );
}

function DocumentCard({ document, onChanged }: { document: KnowledgeDocument; onChanged: () => void }) {
  const [chunks, setChunks] = useState<Chunk[] | null>(null);
  const toggle = () => {
    if (chunks) setChunks(null);
    else
      void api
        .get<{ chunks: Chunk[] }>(`/api/knowledge/${document.id}/chunks`)
        .then((loaded) => setChunks(loaded.chunks));
  };
  return (
    <div class="card">
      <h2>
        {document.name} <span class="muted small">({document.kind})</span>
      </h2>
      <p class="muted small">
        {kt("knowledgeChunks", { count: document.chunkCount })} · {formatTime(document.indexedAt)}
        {document.note ? ` · ${document.note}` : ""}
      </p>
      <ScopeForm document={document} onSaved={onChanged} />
      <button type="button" onClick={toggle}>
        {chunks ? kt("knowledgeHide") : kt("knowledgeShow")}
      </button>
      {chunks?.map((chunk) => (
        <div key={chunk.id} class="chunk">
          <p class="muted small">
            #{chunk.position + 1} {chunk.heading}
            {chunk.page === undefined ? "" : ` · p. ${chunk.page}`}
          </p>
          <pre class="wrap">{chunk.text}</pre>
        </div>
      ))}
    </div>
  );
}

function ScopeFields({ scope, onChange }: { scope: Scope; onChange: (scope: Scope) => void }) {
  return (
    <div class="row">
      <label>
        {kt("knowledgeScope")}{" "}
        <select
          value={scope.chats}
          onChange={(event) => onChange({ ...scope, chats: event.currentTarget.value as Scope["chats"] })}
        >
          {CHATS.map(([value, label]) => (
            <option key={value} value={value}>
              {kt(label)}
            </option>
          ))}
        </select>
      </label>
      {scope.chats === "groups" && (
        <label>
          {kt("knowledgeGroupIds")}{" "}
          <input
            value={scope.groups.join(", ")}
            onInput={(event) =>
              onChange({
                ...scope,
                groups: event.currentTarget.value.split(/[\s,]+/).filter((id) => id !== ""),
              })
            }
          />
        </label>
      )}
      <label>
        <input
          type="checkbox"
          checked={scope.autoRetrieve}
          onChange={(event) => onChange({ ...scope, autoRetrieve: event.currentTarget.checked })}
        />{" "}
        {kt("knowledgeAuto")}
      </label>
    </div>
  );
}

function ScopeForm({ document, onSaved }: { document: KnowledgeDocument; onSaved: () => void }) {
  const [scope, setScope] = useState(document.scope);
  const [error, setError] = useState<string | null>(null);
  const save = () =>
    void api
      .put(`/api/knowledge/${document.id}/scope`, scope)
      .then(onSaved, (failure: Error) => setError(failure.message));
  return (
    <div>
      <ScopeFields scope={scope} onChange={setScope} />
      <button type="button" onClick={save}>
        {t("save")}
      </button>
      {error && <p class="error">{error}</p>}
    </div>
  );
}

function Upload({ onDone }: { onDone: () => void }) {
  const [scope, setScope] = useState<Scope>({ chats: "all", groups: [], autoRetrieve: true });
  const [error, setError] = useState<string | null>(null);
  const upload = async (file: File) => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    api.post("/api/knowledge/upload", { name: file.name, contentBase64: btoa(binary), scope }).then(
      () => onDone(),
      (failure: Error) => setError(failure.message),
    );
  };
  return (
    <div class="card">
      <h2>{kt("knowledgeUpload")}</h2>
      <ScopeFields scope={scope} onChange={setScope} />
      <input
        type="file"
        accept=".md,.markdown,.txt,.html,.htm,.pdf,.docx"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) void upload(file);
        }}
      />
      {error && <p class="error">{error}</p>}
    </div>
  );
}

function QueryBox() {
  const [query, setQuery] = useState("");
  const [sessionId, setSessionId] = useState("console:10000:group:1");
  const [hits, setHits] = useState<Hit[] | null>(null);
  const ask = () =>
    void api
      .post<{ hits: Hit[] }>("/api/knowledge/query", { query, sessionId })
      .then((answer) => setHits(answer.hits));
  return (
    <div class="card">
      <h2>{kt("knowledgeQuery")}</h2>
      <div class="row">
        <input value={query} onInput={(event) => setQuery(event.currentTarget.value)} />
        <label>
          {kt("knowledgeSession")}{" "}
          <input value={sessionId} onInput={(event) => setSessionId(event.currentTarget.value)} />
        </label>
        <button type="button" disabled={query.trim() === ""} onClick={ask}>
          {kt("knowledgeAsk")}
        </button>
      </div>
      {hits?.length === 0 && <p class="muted">{kt("knowledgeNoHits")}</p>}
      {hits?.map((hit) => (
        <div key={hit.chunkId} class="chunk">
          <p class="muted small">
            {hit.source} · score {hit.score.toFixed(4)}
            {hit.bm25 === null ? "" : ` · BM25 ${hit.bm25.toFixed(2)}`}
            {hit.similarity === null ? "" : ` · cosine ${hit.similarity.toFixed(3)}`}
            {hit.autoRetrieve ? "" : ` · ${kt("knowledgeAuto")}: ✗`}
          </p>
          <pre class="wrap">{hit.text}</pre>
        </div>
      ))}
    </div>
  );
}
