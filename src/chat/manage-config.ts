import { type Static, Type } from "@sinclair/typebox";
import { group, stringEnum } from "../schema/fields.ts";

/**
 * The keys of keeping groups in order (docs/manage.md): welcoming members, join requests, and
 * the management tools' switches. Each is also settable per group under `chat.groups."<id>"`.
 */

export const JOIN_REQUEST_MODES = ["off", "notify", "review", "auto"] as const;
export type JoinRequestMode = (typeof JOIN_REQUEST_MODES)[number];

/** Longest a welcome's guidance and a group's rule text may be: both go into a model's prompt. */
const MAX_WELCOME_TEXT = 500;
const MAX_RULES_TEXT = 4_000;

const welcomeFields = {
  enabled: Type.Boolean({
    default: false,
    description: "Welcome a member who joins, in the persona's words, mentioning them (once per join).",
  }),
  text: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_WELCOME_TEXT,
      description:
        "What the welcome should say (the rules, a link); the bot words it in the persona. Sent as written when no model answers.",
    }),
  ),
};

const joinRequestsDescription =
  'What the bot does with a request to join a group where it is an admin: "off" (nothing), "notify" (tells the group\'s admins, with the applicant\'s answer), "review" (a model reads the answer against chat.manage.rules and recommends; an admin approves with a reply or /approve), "auto" (approves or rejects by the rules, the reason logged).';

const manageFields = {
  tools: Type.Boolean({
    default: true,
    description:
      "Offer the management tools (to the group's owner and admins and bot.admins, where the bot is a group admin); false: never, in this group or everywhere.",
  }),
  dryRun: Type.Boolean({
    default: false,
    description:
      "Log and show on the timeline what the management tools and join requests would have done, without doing it.",
  }),
  notices: Type.Boolean({
    default: false,
    description: "Offer the group_notice tool (posts a group notice, 群公告) to the group's admins.",
  }),
  rules: Type.String({
    default: "",
    maxLength: MAX_RULES_TEXT,
    description:
      'The group\'s rules for newcomers, which "review" and "auto" read join requests against (e.g. "answer with the name of the course").',
  }),
};

export const welcomeSchema = group("Welcoming members who join a group.", welcomeFields);
export const joinRequestsSchema = stringEnum(JOIN_REQUEST_MODES, {
  default: "off",
  description: joinRequestsDescription,
});
export const manageSchema = group(
  "Keeping groups in order: the tools mute_member, kick_member, set_essence and group_notice (offered only to a group's owner and admins and bot.admins, where the bot is a group admin).",
  manageFields,
);

/** The same keys as one group's settings, without defaults: what a group names replaces the global key there. */
export const groupManageOverrides = {
  welcome: Type.Optional(
    Type.Object(
      { enabled: Type.Optional(Type.Boolean()), text: welcomeFields.text },
      { additionalProperties: false, description: "This group's welcome keys, over chat.welcome." },
    ),
  ),
  joinRequests: Type.Optional(
    stringEnum(JOIN_REQUEST_MODES, { description: "This group's chat.joinRequests." }),
  ),
  manage: Type.Optional(
    Type.Object(
      {
        tools: Type.Optional(Type.Boolean()),
        dryRun: Type.Optional(Type.Boolean()),
        notices: Type.Optional(Type.Boolean()),
        rules: Type.Optional(Type.String({ maxLength: MAX_RULES_TEXT })),
      },
      { additionalProperties: false, description: "This group's management keys, over chat.manage." },
    ),
  ),
};

export type WelcomeSettings = Static<typeof welcomeSchema>;
export type ManageSettings = Static<typeof manageSchema>;
