import type { Static } from "@sinclair/typebox";
import { count, formattedString, group } from "../schema/fields.ts";

export const storageSchema = group("Where messages and state are stored.", {
  // A secret: a PostgreSQL URL carries the password.
  url: formattedString("storage-url", {
    default: "sqlite:./data/tsumugi.db",
    writeOnly: true,
    description:
      'Database: "sqlite:PATH" (relative to the working directory), "sqlite::memory:", or a PostgreSQL server "postgres://user:password@host:5432/database" (also "postgresql://"; needed to run several instances on one database).',
  }),
  retention: group(
    "How many chat messages are kept; the rest are deleted in small steps in the background.",
    {
      days: count("Delete messages older than this many days; 0 keeps them however old", 0, 0),
      messagesPerSession: count(
        "Keep at most this many newest messages per chat; 0 means no limit",
        100_000,
        0,
      ),
    },
  ),
  spoolSize: count(
    "Rows per table kept in memory while the database cannot be written (locked, disk full, read-only); beyond it the oldest messages that triggered nothing are dropped first",
    50_000,
    100,
  ),
});

export type MessageRetentionSettings = Static<typeof storageSchema>["retention"];
