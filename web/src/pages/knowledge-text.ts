import { currentLang, fill } from "../i18n.ts";

/** The knowledge page's text in Chinese and English (kept beside the page). */
const KNOWLEDGE_TEXT = {
  navKnowledge: ["知识库", "Knowledge"],
  knowledgeTitle: ["知识库", "Knowledge base"],
  knowledgeHint: [
    "knowledge.dirs 中的文档（Markdown、文本、HTML、PDF、DOCX）；文件变化时自动重新索引。范围写在文档旁的 .scope.yaml 中。",
    "Documents in knowledge.dirs (Markdown, text, HTML, PDF, DOCX), indexed again when a file changes. A scope is kept in the document's .scope.yaml.",
  ],
  knowledgeNone: ["还没有文档。", "No documents yet."],
  knowledgeSearchKeywords: [
    "检索方式：关键词（BM25）。配置 llm.models.embedding 后还会按语义（向量）检索。",
    "Searched by keywords (BM25). With llm.models.embedding set, also by meaning (vectors).",
  ],
  knowledgeSearchKeywordsNoVectors: [
    "检索方式：关键词（全文检索）。这个 PostgreSQL 没有 pgvector，不能按语义检索。",
    "Searched by keywords (full text). This PostgreSQL has no pgvector, so not by meaning.",
  ],
  knowledgeSearchBoth: [
    "检索方式：关键词（BM25）加语义（向量，存于 {store}）。",
    "Searched by keywords (BM25) and by meaning (vectors, kept in {store}).",
  ],
  knowledgeChunks: ["{count} 段", "{count} {count:passage|passages}"],
  knowledgeScope: ["范围", "Scope"],
  knowledgeAll: ["所有聊天", "All chats"],
  knowledgeGroups: ["指定的群", "Some groups"],
  knowledgePrivate: ["私聊", "Private chats"],
  knowledgeGroupIds: ["群号（逗号分隔）", "Group ids (comma-separated)"],
  knowledgeAuto: ["自动放入提示词", "Retrieve into prompts"],
  knowledgeShow: ["查看段落", "Show passages"],
  knowledgeHide: ["收起", "Hide"],
  knowledgeUpload: ["上传文档", "Upload a document"],
  knowledgeChooseFile: ["选择文件上传…", "Choose a file to upload…"],
  knowledgeUploading: ["正在上传 {name}…", "Uploading {name}…"],
  knowledgeQuery: ["试问", "Try a question"],
  knowledgeSession: ["在哪个聊天里问", "Asked in"],
  knowledgeAnyPrivate: ["私聊", "a private chat"],
  knowledgeScores: ["显示排序分数", "Show ranking scores"],
  knowledgeAsk: ["检索", "Search"],
  knowledgeNoHits: ["没有找到段落。", "No passage found."],
} as const;

export type KnowledgeTextKey = keyof typeof KNOWLEDGE_TEXT;

export function isKnowledgeTextKey(key: string): key is KnowledgeTextKey {
  return Object.hasOwn(KNOWLEDGE_TEXT, key);
}

/** The text for `key` in the current language, with `{name}` placeholders filled. */
export function kt(key: KnowledgeTextKey, vars: Record<string, string | number> = {}): string {
  return fill(KNOWLEDGE_TEXT[key][currentLang() === "zh" ? 0 : 1], vars);
}
