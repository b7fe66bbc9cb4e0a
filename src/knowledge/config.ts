import { type Static, Type } from "@sinclair/typebox";
import { count, group } from "../schema/fields.ts";

export const knowledgeSchema = group(
  "The knowledge base: documents the bot answers from (Markdown, text, HTML, PDF, DOCX), searched by the search_knowledge tool and retrieved into prompts.",
  {
    dirs: Type.Array(Type.String({ minLength: 1 }), {
      default: ["./knowledge"],
      description:
        "Folders watched for documents (relative to the working directory); each file's scope comes from a sidecar `<file>.scope.yaml`, a folder's `scopes.yaml`, or the console (all chats when none says).",
    }),
    autoRetrieve: Type.Boolean({
      default: true,
      description:
        "Whether the passages most relevant to a turn's new messages go into its prompts (after the chat); a document's scope may turn it off for that document.",
    }),
    autoRetrieveLimit: count("Most passages retrieved into one prompt", 3, 0),
    autoRetrieveTokens: count(
      "Most tokens of retrieved passages in one prompt (counted as 1 per CJK character, 1 per 4 other characters)",
      600,
      0,
    ),
    searchLimit: count("Most passages one search_knowledge call returns", 5, 1),
    maxFileBytes: count(
      "Largest document file indexed (bytes); larger ones are listed with the reason",
      20_000_000,
      1,
    ),
    maxPdfPages: count("Most pages of a PDF indexed (the rest are left out, said in the console)", 300, 1),
    readTimeoutMs: count(
      "Longest a document's text may take to read (ms), in its own worker thread; a document that takes longer or runs out of memory is quarantined until the file changes",
      60_000,
      1_000,
    ),
    chunkChars: count(
      "Longest passage (characters) a document is cut into, at headings and paragraphs",
      800,
      100,
    ),
  },
);

/** `knowledge` of the config. */
export type KnowledgeSettings = Static<typeof knowledgeSchema>;
