import { collapseSpaces } from "../knowledge/html-blocks.ts";
import { readWebPage } from "../knowledge/readers.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { Logger } from "../log/logger.ts";
import { systemResolver, vettedGet } from "../media/vetted-get.ts";
import type { PromptTemplates } from "../prompts/templates.ts";
import type { SearchSettings } from "../search/config.ts";
import { webSearch } from "../search/web-search.ts";
import type { BuiltinTool, ToolRun } from "./builtin-tools.ts";

export const WEB_SEARCH_TOOL = "web_search";
export const FETCH_PAGE_TOOL = "fetch_page";

export interface SearchToolDeps {
  settings: () => SearchSettings;
  /** `media.allowPrivateNetworks`: whether fetch_page may reach loopback and LAN addresses. */
  allowPrivateNetworks: () => boolean;
  logger: Logger;
}

function oneStringSpec(name: string, prompts: PromptTemplates, parameter: "query" | "url"): ToolSpec {
  return {
    name,
    description: prompts.render(name === WEB_SEARCH_TOOL ? "tool_web_search" : "tool_fetch_page"),
    parameters: {
      type: "object",
      properties: {
        [parameter]: {
          type: "string",
          minLength: 1,
          description: prompts.render(
            parameter === "query" ? "tool_web_search_query" : "tool_fetch_page_url",
          ),
        },
      },
      required: [parameter],
      additionalProperties: false,
    },
  };
}

export function webSearchSpec(prompts: PromptTemplates): ToolSpec {
  return oneStringSpec(WEB_SEARCH_TOOL, prompts, "query");
}

export function fetchPageSpec(prompts: PromptTemplates): ToolSpec {
  return oneStringSpec(FETCH_PAGE_TOOL, prompts, "url");
}

/** A failure the planner is told about (and may tell the user), logged once. */
function failed(deps: SearchToolDeps, tool: string, reason: string): ToolRun {
  deps.logger.warn({ tool }, `${tool} failed: ${reason}`);
  return { output: { output: { error: reason }, isError: true } };
}

/** `web_search` (offered while `search.provider` is set) and `fetch_page` (beside it, while `search.fetchPage`). */
export function searchTools(deps: SearchToolDeps): Array<Pick<BuiltinTool, "spec" | "offered" | "run">> {
  return [
    {
      spec: (texts) => webSearchSpec(texts.prompts),
      offered: () => deps.settings().provider !== undefined,
      run: async (args, call) => {
        const query = (args.query as string).trim();
        if (query === "") return call.invalid("query must be a non-empty string");
        try {
          return { output: { output: { results: await webSearch(deps.settings(), query) } } };
        } catch (error) {
          return failed(deps, WEB_SEARCH_TOOL, (error as Error).message);
        }
      },
    },
    {
      spec: (texts) => fetchPageSpec(texts.prompts),
      offered: () => deps.settings().provider !== undefined && deps.settings().fetchPage,
      run: async (args, call) => {
        const url = (args.url as string).trim();
        if (!/^https?:\/\//i.test(url)) return call.invalid("url must be an http(s) URL");
        const settings = deps.settings();
        try {
          const page = await vettedGet(url, {
            allowPrivateNetworks: deps.allowPrivateNetworks(),
            maxBytes: settings.maxPageBytes,
            resolve: systemResolver,
            signal: AbortSignal.any([call.turn.signal, AbortSignal.timeout(settings.timeoutMs)]),
            accept: "text/html, text/plain;q=0.8",
          });
          if (!page.ok) return failed(deps, FETCH_PAGE_TOOL, page.reason);
          const read = await readWebPage(page.body.toString("utf8"), call.turn.signal);
          if (!read.ok) return failed(deps, FETCH_PAGE_TOOL, `the page cannot be read: ${read.reason}`);
          const { title = "", blocks } = read.value;
          const text = blocks.map((block) => collapseSpaces(block.text)).join("\n");
          return { output: { output: { url, title, text: text.slice(0, settings.maxPageChars) } } };
        } catch (error) {
          return failed(deps, FETCH_PAGE_TOOL, (error as Error).message);
        }
      },
    },
  ];
}
