import { type MediaSource, useFetchedMedia } from "./fetched-media.ts";
import { t } from "./i18n.ts";

/**
 * A stored message's voice message, fetched through the bot (`/api/records`, the same limits
 * as pictures, audio types checked) so the browser never contacts the host the message names.
 */
export function Voice({ source, index }: { source: MediaSource; index: number }) {
  const fetched = useFetchedMedia("/api/records", source, index);
  if (fetched.state === "shown") {
    // biome-ignore lint/a11y/useMediaCaption: a voice message has no caption track
    return <audio class="voice" controls src={fetched.url} />;
  }
  return (
    <span class="muted" title={fetched.state === "failed" ? fetched.reason : undefined}>
      [{t("voice")}]{fetched.state === "failed" && ` ${t("voiceUnavailable")}: ${fetched.reason}`}
    </span>
  );
}
