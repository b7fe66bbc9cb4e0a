import { Type } from "@sinclair/typebox";
import { group, stringEnum } from "../schema/fields.ts";
import { PROMPT_LANGUAGES } from "./catalogue.ts";

export const promptsSchema = group(
  "The texts the models read: template files per language (docs/prompts.md).",
  {
    language: stringEnum(PROMPT_LANGUAGES, {
      default: "zh",
      description: "Language of the shipped templates (prompts/<language>/).",
    }),
    dir: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "Folder of your own templates, named like the shipped ones (planner.md, …); missing ones stay shipped. Relative to the config file.",
      }),
    ),
    templates: Type.Record(Type.String(), Type.String(), {
      default: {},
      description: "Template name → its text, overriding the shipped template and prompts.dir.",
    }),
  },
);
