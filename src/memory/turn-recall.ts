import type { ZonedClock } from "../context/clock-text.ts";
import type { Embedder } from "../llm/embedder.ts";
import type { ChatMessage } from "../message/inbound.ts";
import { renderSegments } from "../message/render.ts";
import type { Monitor } from "../monitor/monitor.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import { cosine } from "../util/vectors.ts";
import type { MemorySettings } from "./config.ts";
import { unique, uniqueEntries } from "./entries.ts";
import { linesWithin, memoryLine } from "./memory-lines.ts";
import type { MemoryEntry, MemoryHit, MemoryStore } from "./types.ts";
import { groupSubjectOf, mentionedSubjects, placeOf, senderSubject, visibleAt } from "./visibility.ts";

/** What a turn's recall reads: the store, and settings, prompts and clock per call (reloads swap them). */
export interface RecallDeps {
  store: MemoryStore;
  settings: () => MemorySettings;
  prompts: () => PromptTemplates;
  clock: () => ZonedClock;
  /** Embeddings for vector similarity, when `llm.models.embedding` names a model. */
  embedder?: () => Pick<Embedder, "configured" | "embed"> | undefined;
  monitor: Monitor;
}

/** What a turn recalls for: its new messages and the recent chat before them. */
export interface RecallTurn {
  replyId: string;
  messages: ChatMessage[];
  /** The history window's messages: the people in it are the others whose facts may matter. */
  participants: ChatMessage[];
}

/** The `llm.models` task whose models embed memories and queries. */
export const EMBEDDING_TASK = "embedding";
/** A turn waits this long for its query's embedding, then recalls by terms alone. */
const QUERY_EMBEDDING_TIMEOUT_MS = 2_000;

/**
 * The others in the recent chat whose facts a turn's recall may bring (the last to speak): each
 * one more widens the term search, whose cost grows with the memories it scores.
 */
const PRESENT_PEOPLE = 6;
/** Most characters of the new messages a turn's recall searches with. */
const MAX_QUERY_CHARS = 400;
/**
 * The section of memories a turn's prompts show (empty when there are none): facts about the
 * new messages' senders, the people they mention and this group that match what they said,
 * the senders' other facts, then facts about the others in the recent chat that match,
 * within `memory.recallLimit` and `recallChars`; never what may not be seen here (a fact learned
 * in another, private chat: visibility.ts). With an embedding model, vector similarity
 * to what was said reorders these candidates (and the recent chat's people's other facts).
 * Searches stay within named subjects, so they cost about the same at 100,000 memories as at 100.
 */
export async function recallSection(deps: RecallDeps, turn: RecallTurn): Promise<string> {
  const settings = deps.settings();
  const spoken = turn.messages.filter((message) => !message.fromSelf);
  const first = spoken[0];
  if (!settings.enabled || first === undefined || settings.recallLimit === 0) return "";
  const place = placeOf(first);
  const senders = unique(spoken.map(senderSubject).reverse());
  const mentioned = spoken.flatMap((message) => mentionedSubjects(message));
  const group = groupSubjectOf(place);
  const present = unique(
    turn.participants
      .filter((message) => !message.fromSelf)
      .map(senderSubject)
      .reverse(),
  )
    .filter((subject) => !senders.includes(subject))
    .slice(0, PRESENT_PEOPLE);
  const query = spoken
    .map((message) => renderSegments(message.segments))
    .join("\n")
    .slice(-MAX_QUERY_CHARS);
  const embedder = deps.embedder?.();
  const embedding = embedder?.configured(EMBEDDING_TASK)
    ? embedder.embed({
        task: EMBEDDING_TASK,
        texts: [query],
        sessionId: place.sessionId,
        signal: AbortSignal.timeout(QUERY_EMBEDDING_TIMEOUT_MS),
      })
    : undefined;
  // Each memory found is read whole (its sources too): find little more than can be shown,
  // more when vectors will reorder the candidates.
  const limit = settings.recallLimit * (embedding ? 4 : 1);
  const { store } = deps;
  const named = unique([...senders, ...mentioned, ...(group === undefined ? [] : [group])]);
  // One term search over everyone in view; the named (speakers, mentioned, the group) first.
  const [matching, theirOthers, presentOthers] = await Promise.all([
    store.search({ query, subjects: [...named, ...present], limit: limit * 2 }),
    store.search({ subjects: senders, limit }),
    embedding && present.length > 0 ? store.search({ subjects: present, limit }) : [],
  ]);
  const isNamed = (hit: MemoryHit) => named.includes(hit.entry.subject);
  const searches = [
    matching.filter(isNamed),
    theirOthers,
    matching.filter((hit) => !isNamed(hit)),
    presentOthers,
  ];
  let candidates = uniqueEntries(searches.flat()).filter((entry) => visibleAt(entry, place));
  const queryEmbedding = await embedding;
  if (queryEmbedding) {
    const vectors = await store.vectors(
      candidates.map((entry) => entry.id),
      queryEmbedding.ref,
    );
    candidates = byVectorSimilarity(candidates, vectors, queryEmbedding.vectors[0]!);
  }
  const prompts = deps.prompts();
  const clock = deps.clock();
  const { lines, shown } = linesWithin(
    candidates,
    (entry) => memoryLine(entry, prompts, clock),
    settings.recallLimit,
    settings.recallChars,
  );
  if (shown.length === 0) return "";
  deps.monitor.emit({
    type: "memory.recalled",
    replyId: turn.replyId,
    sessionId: place.sessionId,
    data: {
      ids: shown.map((entry) => entry.id),
      chars: lines.join("\n").length,
      entries: shown.map(({ id, subject, subjectName, content }) => ({
        id,
        subject,
        subjectName,
        content,
      })),
    },
  });
  return prompts.render("memories", { lines: lines.join("\n") });
}

/**
 * Candidates reordered by their place in the term search's order blended evenly with their
 * vector similarity to the query; one without a vector (made before an embedding model was
 * set, or by another model) counts as of average similarity.
 */
function byVectorSimilarity(
  candidates: MemoryEntry[],
  vectors: Map<number, Float32Array>,
  query: Float32Array,
): MemoryEntry[] {
  const similarities = new Map<number, number>();
  for (const [id, vector] of vectors) similarities.set(id, cosine(vector, query));
  const known = [...similarities.values()];
  const average = known.length > 0 ? known.reduce((sum, value) => sum + value, 0) / known.length : 0;
  const scored = candidates.map((entry, position) => ({
    entry,
    score: 0.5 * (1 - position / candidates.length) + 0.5 * (similarities.get(entry.id) ?? average),
  }));
  return scored.sort((a, b) => b.score - a.score).map(({ entry }) => entry);
}
