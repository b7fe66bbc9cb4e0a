import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { ajvOnFirstUse, checkOnFirstUse } from "../schema/compile-on-first-use.ts";
import type { SearchProviderName, SearchSettings } from "./config.ts";

/** One web search result as the planner reads it. */
export interface WebResult {
  title: string;
  link: string;
  snippet: string;
}

const text = Type.Optional(Type.String());
const searxngAnswer = Type.Object({
  results: Type.Array(Type.Object({ title: text, url: Type.String(), content: text })),
});
const tavilyAnswer = Type.Object({
  results: Type.Array(Type.Object({ title: text, url: Type.String(), content: text })),
});
const bingAnswer = Type.Object({
  webPages: Type.Optional(
    Type.Object({ value: Type.Array(Type.Object({ name: text, url: Type.String(), snippet: text })) }),
  ),
});
const braveAnswer = Type.Object({
  web: Type.Optional(
    Type.Object({ results: Type.Array(Type.Object({ title: text, url: Type.String(), description: text })) }),
  ),
});

/** How each provider is asked, and how its answer (checked against `answer` first) becomes results. */
interface Provider<Answer extends TSchema> {
  defaultUrl?: string;
  request(base: string, query: string, settings: SearchSettings): { url: string; init: RequestInit };
  answer: Answer;
  results(answer: Static<Answer>): Array<{ title?: string; url: string; text?: string }>;
}

function provider<Answer extends TSchema>(definition: Provider<Answer>): Provider<TSchema> {
  return definition as unknown as Provider<TSchema>;
}

const PROVIDERS: Record<SearchProviderName, Provider<TSchema>> = {
  searxng: provider({
    request: (base, query) => ({
      url: `${base}/search?${new URLSearchParams({ q: query, format: "json" })}`,
      init: { headers: { Accept: "application/json" } },
    }),
    answer: searxngAnswer,
    results: (answer) => answer.results.map((r) => ({ title: r.title, url: r.url, text: r.content })),
  }),
  tavily: provider({
    defaultUrl: "https://api.tavily.com",
    request: (base, query, settings) => ({
      url: `${base}/search`,
      init: {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${settings.apiKey}` },
        body: JSON.stringify({ query, max_results: settings.maxResults }),
      },
    }),
    answer: tavilyAnswer,
    results: (answer) => answer.results.map((r) => ({ title: r.title, url: r.url, text: r.content })),
  }),
  bing: provider({
    defaultUrl: "https://api.bing.microsoft.com",
    request: (base, query, settings) => ({
      url: `${base}/v7.0/search?${new URLSearchParams({ q: query, count: String(settings.maxResults) })}`,
      init: { headers: { "Ocp-Apim-Subscription-Key": settings.apiKey } },
    }),
    answer: bingAnswer,
    results: (answer) =>
      (answer.webPages?.value ?? []).map((r) => ({ title: r.name, url: r.url, text: r.snippet })),
  }),
  brave: provider({
    defaultUrl: "https://api.search.brave.com",
    request: (base, query, settings) => ({
      url: `${base}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(settings.maxResults) })}`,
      init: { headers: { Accept: "application/json", "X-Subscription-Token": settings.apiKey } },
    }),
    answer: braveAnswer,
    results: (answer) =>
      (answer.web?.results ?? []).map((r) => ({ title: r.title, url: r.url, text: r.description })),
  }),
};

const ajv = ajvOnFirstUse({ strict: false });
const validators = new Map(
  Object.entries(PROVIDERS).map(([name, definition]) => [name, checkOnFirstUse(ajv, definition.answer)]),
);

/** Tags and entities some providers put in snippets (`<strong>`, `&amp;`), as plain text. */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_match, entity: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[entity] ?? "",
    )
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Searches the web with the configured provider: at most `search.maxResults` results, within
 * `search.timeoutMs`. Rejects with a reason that names neither the key nor the request's headers.
 */
export async function webSearch(
  settings: SearchSettings,
  query: string,
  fetchFn: typeof fetch = fetch,
): Promise<WebResult[]> {
  const name = settings.provider;
  if (name === undefined) throw new Error("no search provider is configured");
  const definition = PROVIDERS[name];
  const base = (settings.url ?? definition.defaultUrl ?? "").replace(/\/+$/, "");
  const { url, init } = definition.request(base, query, settings);
  const response = await fetchFn(url, { ...init, signal: AbortSignal.timeout(settings.timeoutMs) });
  if (!response.ok) throw new Error(`${name} answered HTTP ${response.status}`);
  let answer: unknown;
  try {
    answer = await response.json();
  } catch {
    throw new Error(`${name} answered something other than JSON`);
  }
  if (!validators.get(name)!(answer)) throw new Error(`${name} answered JSON of an unexpected shape`);
  return definition
    .results(answer)
    .filter((result) => /^https?:\/\//i.test(result.url))
    .slice(0, settings.maxResults)
    .map((result) => ({
      title: plainText(result.title ?? ""),
      link: result.url,
      snippet: plainText(result.text ?? ""),
    }));
}
