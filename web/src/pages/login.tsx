import { useState } from "preact/hooks";
import { ApiError, api, setToken } from "../api.ts";
import { t } from "../i18n.ts";

/** Asks for `server.token` and checks it against the API before keeping it. */
export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [value, setValue] = useState("");
  const [wrong, setWrong] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setToken(value.trim());
    try {
      await api.get("/api/status");
      onLoggedIn();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setToken("");
        setWrong(true);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="centered">
      <form class="card login" onSubmit={submit}>
        <h1>
          <span class="brand-mark">紬</span> {t("loginTitle")}
        </h1>
        <p>{t("loginHint")}</p>
        <label>
          {t("loginToken")}
          <input
            name="token"
            type="password"
            autocomplete="current-password"
            value={value}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
        </label>
        {wrong && (
          <p class="error" role="alert">
            {t("loginWrong")}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || value.trim() === ""}>
          {t("loginSubmit")}
        </button>
      </form>
    </div>
  );
}
