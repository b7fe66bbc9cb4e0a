import { useEffect, useState } from "preact/hooks";
import { parseDocument } from "yaml";
import { keyDescriptionsZh } from "../../../src/config/key-descriptions-zh.ts";
import { ApiError, api } from "../api.ts";
import { currentLang, t } from "../i18n.ts";
import { type Describe, isObject, SchemaForm, withDefaults } from "../schema-form.tsx";
import type { JsonSchema } from "../types.ts";

interface ConfigAnswer {
  file: string | null;
  editable: boolean;
  yaml: string;
  /** The whole config file's JSON Schema: the same kind plugin settings are forms of. */
  schema: JsonSchema;
}

interface SaveAnswer {
  saved: true;
  changedKeys: string[];
  restartRequired: string[];
}

type Value = Record<string, unknown>;

/**
 * The config file: a form per section, generated from the config schema with each key's
 * description in the page's language, or the YAML text itself one click away. Either way the
 * server checks it, saves it and hot-reloads it. A form changes only the keys edited, in the
 * file's own text, so its comments and layout stay.
 */
export function ConfigPage({ onSaved }: { onSaved: () => void }) {
  const [config, setConfig] = useState<ConfigAnswer | null>(null);
  const [raw, setRaw] = useState(false);
  const [section, setSection] = useState("bot");
  const [text, setText] = useState("");
  const [problems, setProblems] = useState<string[]>([]);
  const [result, setResult] = useState<SaveAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  /** Bumped on each load, so the form starts again from what was saved. */
  const [revision, setRevision] = useState(0);

  const load = async () => {
    const answer = await api.get<ConfigAnswer>("/api/config");
    setConfig(answer);
    setText(answer.yaml);
    setRevision((count) => count + 1);
  };
  useEffect(() => {
    void load();
  }, []);

  const save = async (yaml: string) => {
    setBusy(true);
    setProblems([]);
    setResult(null);
    try {
      setResult(await api.put<SaveAnswer>("/api/config", { yaml }));
      await load();
      onSaved();
    } catch (error) {
      setProblems(error instanceof ApiError && error.problems.length > 0 ? error.problems : [String(error)]);
    } finally {
      setBusy(false);
    }
  };

  if (!config) return <p>{t("loading")}</p>;
  const sections = Object.keys(config.schema.properties ?? {});
  const sectionSchema = config.schema.properties?.[section];
  const document = parseDocument(config.yaml);
  const stored = document.toJS() as unknown;
  const current = isObject(stored) && isObject(stored[section]) ? stored[section] : {};

  return (
    <section class="page config">
      <header class="page-head">
        <h1>{t("navConfig")}</h1>
        <span class="mono small">
          {t("configFile")}: {config.file ?? "—"}
        </span>
        <button type="button" class="link-button" onClick={() => setRaw(!raw)}>
          {raw ? t("configShowForm") : t("configShowRaw")}
        </button>
      </header>
      <p class="muted small">{config.editable ? t("configSecrets") : t("configReadOnly")}</p>
      {raw ? (
        <>
          <textarea
            name="yaml"
            class="code-editor"
            spellcheck={false}
            readOnly={!config.editable}
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
          />
          {config.editable && (
            <div class="actions">
              <button type="button" class="primary" disabled={busy} onClick={() => void save(text)}>
                {busy ? t("saving") : t("save")}
              </button>
            </div>
          )}
        </>
      ) : (
        <div class="card config-form">
          <label class="inline">
            {t("configSection")}
            <select
              name="section"
              value={section}
              onChange={(event) => setSection(event.currentTarget.value)}
            >
              {sections.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          {sectionSchema && (
            <>
              <p class="muted small">{describeKey(section, sectionSchema)}</p>
              <SchemaForm
                key={`${section}-${revision}`}
                schema={sectionSchema}
                value={current}
                busy={busy || !config.editable}
                submitLabel={busy ? t("saving") : t("save")}
                describe={(path, schema) => describeKey(`${section}.${path}`, schema)}
                onSubmit={(edited) => {
                  const before = withDefaults(sectionSchema, current);
                  const changed = changedPaths(before, edited);
                  if (changed.length === 0) {
                    setProblems([]);
                    setResult({ saved: true, changedKeys: [], restartRequired: [] });
                    return;
                  }
                  for (const path of changed) {
                    const value = valueAt(edited, path);
                    if (value === undefined) document.deleteIn([section, ...path]);
                    else document.setIn([section, ...path], document.createNode(value));
                  }
                  void save(document.toString());
                }}
              />
            </>
          )}
        </div>
      )}
      {problems.length > 0 && (
        <div class="banner error" role="alert">
          {t("configProblems")}
          <ul>
            {problems.map((problem) => (
              <li key={problem} class="mono">
                {problem}
              </li>
            ))}
          </ul>
        </div>
      )}
      {result && (
        <output class="banner ok">
          {result.changedKeys.length === 0 ? t("configNoChange") : t("configSaved")}
          {result.changedKeys.length > 0 && <span class="mono"> {result.changedKeys.join(", ")}</span>}
          {result.restartRequired.length > 0 && (
            <div>
              {t("configRestart")} <span class="mono">{result.restartRequired.join(", ")}</span>
            </div>
          )}
        </output>
      )}
    </section>
  );
}

/**
 * A key's description in the page's language: the schema's own in English, the key table's
 * Chinese one (src/config/key-descriptions-zh.ts, the README's) in Chinese, without its
 * Markdown code marks.
 */
const describeKey: Describe = (path, schema) => {
  // A section has no row of its own in the key table: on the Chinese page it goes undescribed.
  const text = currentLang() === "zh" ? keyDescriptionsZh[path] : schema.description;
  return text?.replace(/`([^`]*)`/g, "$1");
};

/** The paths (key lists) where `after` differs from `before`, as deep as both are objects. */
function changedPaths(before: Value, after: Value, at: string[] = []): string[][] {
  const changed: string[][] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[key];
    const now = after[key];
    if (isObject(was) && isObject(now)) changed.push(...changedPaths(was, now, [...at, key]));
    else if (JSON.stringify(was) !== JSON.stringify(now)) changed.push([...at, key]);
  }
  return changed;
}

function valueAt(value: Value, path: string[]): unknown {
  let found: unknown = value;
  for (const key of path) found = isObject(found) ? found[key] : undefined;
  return found;
}
