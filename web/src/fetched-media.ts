import { useEffect, useState } from "preact/hooks";
import { api, withQuery } from "./api.ts";

/** Which stored message a picture or voice message belongs to: the bot fetches it from there. */
export interface MediaSource {
  sessionId: string;
  messageId: string;
}

export type FetchedMedia =
  | { state: "loading" }
  | { state: "shown"; url: string }
  | { state: "failed"; reason: string };

/**
 * Segment `index` of a stored message, fetched through the bot (`route`: `/api/pictures` or
 * `/api/records`) so the browser never contacts the host the message names, as a blob: URL
 * (an `<img>` or `<audio>` src could not carry the bearer token); revoked when no longer shown.
 */
export function useFetchedMedia(route: string, source: MediaSource, index: number): FetchedMedia {
  const [fetched, setFetched] = useState<FetchedMedia>({ state: "loading" });
  useEffect(() => {
    let url: string | undefined;
    let cancelled = false;
    api.blob(withQuery(route, { sessionId: source.sessionId, messageId: source.messageId, index })).then(
      (bytes) => {
        if (cancelled) return;
        url = URL.createObjectURL(bytes);
        setFetched({ state: "shown", url });
      },
      (error: unknown) =>
        !cancelled && setFetched({ state: "failed", reason: String((error as Error).message) }),
    );
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [route, source.sessionId, source.messageId, index]);
  return fetched;
}
