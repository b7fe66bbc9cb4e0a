import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { formatTime, t } from "../i18n.ts";
import type { GroupsAnswer, GroupView } from "../types.ts";
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

interface KnowledgeAnswer {
  documents: KnowledgeDocument[];
  vectorSupport: "local" | "pgvector" | "none";
  searchMethod: "keywords" | "keywords+vectors";
}

/** What a question is really searched with here, in words. */
function searchText(answer: KnowledgeAnswer): string {
  if (answer.searchMethod === "keywords+vectors")
    return kt("knowledgeSearchBoth", { store: answer.vectorSupport === "pgvector" ? "pgvector" : "SQLite" });
  return answer.vectorSupport === "none"
    ? kt("knowledgeSearchKeywordsNoVectors")
    : kt("knowledgeSearchKeywords");
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
  const [answer, setAnswer] = useState<KnowledgeAnswer | null>(null);
  const load = () => void api.get<KnowledgeAnswer>("/api/knowledge").then((loaded) => setAnswer(loaded));
  useEffect(load, []);
  if (!answer) return <p>{t("loading")}</p>;
  return (
    <section class="page knowledge">
      <header class="page-head">
        <h1>{kt("knowledgeTitle")}</h1>
      </header>
      <p class="muted small">
        {kt("knowledgeHint")} <span data-search-method={answer.searchMethod}>{searchText(answer)}</span>
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
  const [uploading, setUploading] = useState<string | null>(null);
  const upload = async (file: File) => {
    setError(null);
    setUploading(file.name);
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    api
      .post("/api/knowledge/upload", { name: file.name, contentBase64: btoa(binary), scope })
      .then(
        () => onDone(),
        (failure: Error) => setError(failure.message),
      )
      .finally(() => setUploading(null));
  };
  return (
    <div class="card">
      <h2>{kt("knowledgeUpload")}</h2>
      <ScopeFields scope={scope} onChange={setScope} />
      {/* The browser's own file input speaks the browser's language: a button in the page's instead. */}
      <label class="file-button">
        <span>{uploading ? kt("knowledgeUploading", { name: uploading }) : kt("knowledgeChooseFile")}</span>
        <input
          type="file"
          name="document"
          class="hidden"
          accept=".md,.markdown,.txt,.html,.htm,.pdf,.docx"
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            event.currentTarget.value = "";
            if (file) void upload(file);
          }}
        />
      </label>
      {error && <p class="error">{error}</p>}
    </div>
  );
}

/** A question asked as one chat would ask it: the group is picked from the bot's groups. */
function QueryBox() {
  const [query, setQuery] = useState("");
  const [groups, setGroups] = useState<GroupView[]>([]);
  const [sessionId, setSessionId] = useState("");
  const [showScores, setShowScores] = useState(false);
  const [hits, setHits] = useState<Hit[] | null>(null);
  useEffect(() => {
    void api.get<GroupsAnswer>("/api/groups").then((answer) => {
      setGroups(answer.groups);
      setSessionId((current) => current || (answer.groups[0]?.sessionId ?? PRIVATE_SESSION));
    });
  }, []);
  const ask = () =>
    void api
      .post<{ hits: Hit[] }>("/api/knowledge/query", { query, sessionId: sessionId || PRIVATE_SESSION })
      .then((answer) => setHits(answer.hits));
  return (
    <div class="card query-box">
      <h2>{kt("knowledgeQuery")}</h2>
      <div class="row">
        <input
          name="query"
          value={query}
          onInput={(event) => setQuery(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && query.trim() !== "") ask();
          }}
        />
        <label>
          {kt("knowledgeSession")}{" "}
          <select
            name="session"
            value={sessionId}
            onChange={(event) => setSessionId(event.currentTarget.value)}
          >
            {groups.map((group) => (
              <option key={group.sessionId} value={group.sessionId}>
                {group.name ? `${group.name} (${group.groupId})` : group.groupId}
              </option>
            ))}
            <option value={PRIVATE_SESSION}>{kt("knowledgeAnyPrivate")}</option>
          </select>
        </label>
        <button type="button" disabled={query.trim() === ""} onClick={ask}>
          {kt("knowledgeAsk")}
        </button>
        <label class="inline">
          <input
            type="checkbox"
            name="scores"
            checked={showScores}
            onChange={(event) => setShowScores(event.currentTarget.checked)}
          />
          {kt("knowledgeScores")}
        </label>
      </div>
      {hits?.length === 0 && <p class="muted">{kt("knowledgeNoHits")}</p>}
      {hits?.map((hit) => (
        <div key={hit.chunkId} class="chunk">
          <p class="muted small">
            {hit.source}
            {hit.autoRetrieve ? "" : ` · ${kt("knowledgeAuto")}: ✗`}
          </p>
          {showScores && (
            <p class="muted small mono hit-scores">
              score {hit.score.toFixed(4)}
              {hit.bm25 === null ? "" : ` · BM25 ${hit.bm25.toFixed(2)}`}
              {hit.similarity === null ? "" : ` · cosine ${hit.similarity.toFixed(3)}`}
            </p>
          )}
          <pre class="wrap">{hit.text}</pre>
        </div>
      ))}
    </div>
  );
}

/** A private chat on the console's own platform: scopes tell group chats from private ones. */
const PRIVATE_SESSION = "console:10000:private:1";
