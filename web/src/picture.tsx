import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "./api.ts";
import { type MediaSource, useFetchedMedia } from "./fetched-media.ts";
import { t } from "./i18n.ts";
import type { PictureDescriptionAnswer } from "./types.ts";

interface PictureProps {
  source: MediaSource;
  /** The segment's position in the message. */
  index: number;
  /** Changes when a picture may have been described since (the description is read again). */
  revision?: number;
}

/**
 * A stored message's picture, fetched through the bot (`/api/pictures`) so the browser never
 * contacts QQ's servers, shown from a blob: URL, with the vision model's description below.
 */
export function Picture({ source, index, revision }: PictureProps) {
  const shown = useFetchedMedia("/api/pictures", source, index);
  const [description, setDescription] = useState<PictureDescriptionAnswer["description"]>(null);
  const query = { sessionId: source.sessionId, messageId: source.messageId, index };

  useEffect(() => {
    const path = withQuery("/api/pictures/description", query);
    void api.get<PictureDescriptionAnswer>(path).then(
      (answer) => setDescription(answer.description),
      () => setDescription(null),
    );
  }, [source.sessionId, source.messageId, index, revision]);

  return (
    <span class="picture-frame">
      {shown.state === "shown" && <img class="picture" src={shown.url} alt={description?.text ?? ""} />}
      {shown.state === "loading" && <span class="picture-placeholder muted">[{t("picture")}]</span>}
      {shown.state === "failed" && (
        <span class="picture-placeholder muted" title={shown.reason}>
          [{t("picture")}] {t("pictureUnavailable")}: {shown.reason}
        </span>
      )}
      {description && (
        <span class="picture-description small muted">
          {description.kind === "sticker" ? t("stickerMeans") : t("pictureShows")} {description.text}
        </span>
      )}
    </span>
  );
}
