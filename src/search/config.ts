import { type Static, Type } from "@sinclair/typebox";
import { count, formattedString, group, milliseconds, stringEnum } from "../schema/fields.ts";

export const SEARCH_PROVIDERS = ["searxng", "tavily", "bing", "brave"] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

export const searchSchema = group(
  "Web search: the planner's web_search tool (and fetch_page), off until a provider is set.",
  {
    provider: Type.Optional(
      stringEnum(SEARCH_PROVIDERS, {
        description:
          "searxng (self-hosted SearXNG's JSON API, no key), tavily, bing (Bing Web Search API) or brave (Brave Search API); absent: no web_search tool.",
      }),
    ),
    url: Type.Optional(
      formattedString("http-url", {
        description:
          "The provider's base URL: required for searxng (its GET /search?q=…&format=json); the keyed providers default to their public API.",
      }),
    ),
    apiKey: Type.String({
      default: "",
      writeOnly: true,
      description: "The key of tavily, bing or brave (a secret); empty means none.",
    }),
    maxResults: count("Most results one web_search call returns", 5, 1),
    timeoutMs: milliseconds("How long a search or a page fetch may take", 10_000),
    fetchPage: Type.Boolean({
      default: true,
      description:
        "Whether the planner is offered fetch_page beside web_search: the main text of one web page, fetched like a chat's pictures (no private addresses unless media.allowPrivateNetworks; size and time capped).",
    }),
    maxPageBytes: count("Largest web page fetch_page reads (bytes)", 2_000_000, 1),
    maxPageChars: count("Most characters of a page's main text fetch_page returns", 4000, 100),
  },
);

/** `search` of the config. */
export type SearchSettings = Static<typeof searchSchema>;

/** What a configured provider lacks: SearXNG has no public instance to assume, the others need a key. */
export function findSearchProblems(search: SearchSettings): string[] {
  if (search.provider === undefined) return [];
  if (search.provider === "searxng") {
    return search.url === undefined ? ["search.url: required for the searxng provider (its base URL)"] : [];
  }
  return search.apiKey === "" ? [`search.apiKey: required for the ${search.provider} provider`] : [];
}
