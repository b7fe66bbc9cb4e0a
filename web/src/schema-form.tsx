import { useState } from "preact/hooks";
import { t } from "./i18n.ts";
import type { JsonSchema } from "./types.ts";

type Value = Record<string, unknown>;
type Problems = Record<string, string>;

interface SchemaFormProps {
  schema: JsonSchema;
  value: Value;
  busy: boolean;
  submitLabel: string;
  onSubmit: (value: Value) => void;
  /** A field's description in the page's language (default: the schema's own). */
  describe?: Describe;
}

/** A field's description from its path in the form (`a.b`) and its schema. */
export type Describe = (path: string, schema: JsonSchema) => string | undefined;

const schemaDescription: Describe = (_path, schema) => schema.description;

/**
 * A form generated from an object JSON Schema: text, number, switch and choice fields, lists
 * of values one per line, nested objects as groups, and raw JSON for anything else. It checks
 * what it can before submitting; the server checks the whole schema again.
 */
export function SchemaForm({
  schema,
  value,
  busy,
  submitLabel,
  onSubmit,
  describe = schemaDescription,
}: SchemaFormProps) {
  const [draft, setDraft] = useState<Value>(() => withDefaults(schema, value));
  const [jsonProblems, setJsonProblems] = useState<Problems>({});
  const [problems, setProblems] = useState<Problems>({});

  const submit = (event: Event) => {
    event.preventDefault();
    const found = { ...validate(schema, draft, ""), ...jsonProblems };
    setProblems(found);
    if (Object.keys(found).length === 0) onSubmit(draft);
  };

  return (
    <form class="schema-form" onSubmit={submit} noValidate>
      <ObjectFields
        schema={schema}
        value={draft}
        path=""
        problems={problems}
        describe={describe}
        onChange={setDraft}
        onJsonProblem={(path, problem) =>
          setJsonProblems((current) => {
            const next = { ...current };
            if (problem) next[path] = problem;
            else delete next[path];
            return next;
          })
        }
      />
      <button type="submit" class="primary" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}

interface FieldsProps {
  schema: JsonSchema;
  value: Value;
  path: string;
  problems: Problems;
  describe: Describe;
  onChange: (value: Value) => void;
  onJsonProblem: (path: string, problem: string | undefined) => void;
}

function ObjectFields({ schema, value, path, problems, describe, onChange, onJsonProblem }: FieldsProps) {
  return (
    <>
      {Object.entries(schema.properties ?? {}).map(([name, field]) => {
        const fieldPath = path ? `${path}.${name}` : name;
        const set = (next: unknown) => onChange({ ...value, [name]: next });
        const required = schema.required?.includes(name) === true;
        const description = describe(fieldPath, field);
        return (
          <div key={name} class="form-field" data-field={fieldPath}>
            <Field
              name={name}
              schema={field}
              value={value[name]}
              path={fieldPath}
              required={required}
              problems={problems}
              describe={describe}
              onChange={set}
              onJsonProblem={onJsonProblem}
            />
            {description && <div class="muted small">{description}</div>}
            {problems[fieldPath] && (
              <div class="error small" role="alert">
                {name}: {problems[fieldPath]}
              </div>
            )}
          </div>
        );
      })}
    </>
  );
}

interface FieldProps {
  name: string;
  schema: JsonSchema;
  value: unknown;
  path: string;
  required: boolean;
  problems: Problems;
  describe: Describe;
  onChange: (value: unknown) => void;
  onJsonProblem: (path: string, problem: string | undefined) => void;
}

function Field({
  name,
  schema,
  value,
  path,
  required,
  problems,
  describe,
  onChange,
  onJsonProblem,
}: FieldProps) {
  const label = `${schema.title ?? name}${required ? " *" : ""}`;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum) {
    return (
      <label>
        {label}
        <select
          name={path}
          value={JSON.stringify(value ?? null)}
          onChange={(event) => onChange(JSON.parse(event.currentTarget.value))}
        >
          {!required && <option value="null">—</option>}
          {schema.enum.map((option) => (
            <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
              {String(option)}
            </option>
          ))}
        </select>
      </label>
    );
  }
  switch (type) {
    case "boolean":
      return (
        <label class="inline">
          <input
            type="checkbox"
            name={path}
            checked={value === true}
            onChange={(event) => onChange(event.currentTarget.checked)}
          />
          {label}
        </label>
      );
    case "string":
      return (
        <label>
          {label}
          <input
            name={path}
            value={typeof value === "string" ? value : ""}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        </label>
      );
    case "number":
    case "integer":
      return (
        <label>
          {label}
          <input
            name={path}
            inputMode="decimal"
            value={value === undefined ? "" : String(value)}
            onInput={(event) => {
              const text = event.currentTarget.value.trim();
              onChange(text === "" ? undefined : Number.isNaN(Number(text)) ? text : Number(text));
            }}
          />
        </label>
      );
    case "array":
      if (
        schema.items?.type === "string" ||
        schema.items?.type === "number" ||
        schema.items?.type === "integer"
      ) {
        const numeric = schema.items.type !== "string";
        return (
          <label>
            {label} <span class="muted small">({t("formListHint")})</span>
            <textarea
              name={path}
              rows={3}
              value={Array.isArray(value) ? value.join("\n") : ""}
              onInput={(event) => {
                const lines = event.currentTarget.value.split("\n").filter((line) => line.trim() !== "");
                onChange(numeric ? lines.map(Number) : lines);
              }}
            />
          </label>
        );
      }
      break;
    case "object":
      if (schema.properties) {
        return (
          <fieldset>
            <legend>{label}</legend>
            <ObjectFields
              schema={schema}
              value={isObject(value) ? value : {}}
              path={path}
              problems={problems}
              describe={describe}
              onChange={onChange}
              onJsonProblem={onJsonProblem}
            />
          </fieldset>
        );
      }
      break;
  }
  return (
    <JsonField label={label} path={path} value={value} onChange={onChange} onJsonProblem={onJsonProblem} />
  );
}

interface JsonFieldProps {
  label: string;
  path: string;
  value: unknown;
  onChange: (value: unknown) => void;
  onJsonProblem: (path: string, problem: string | undefined) => void;
}

/** Any value the form has no widget for, as JSON text. */
function JsonField({ label, path, value, onChange, onJsonProblem }: JsonFieldProps) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value, null, 2));
  return (
    <label>
      {label} <span class="muted small">(JSON)</span>
      <textarea
        name={path}
        class="mono"
        rows={4}
        value={text}
        onInput={(event) => {
          const next = event.currentTarget.value;
          setText(next);
          if (next.trim() === "") {
            onJsonProblem(path, undefined);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(next));
            onJsonProblem(path, undefined);
          } catch {
            onJsonProblem(path, t("formJson"));
          }
        }}
      />
    </label>
  );
}

/** What can be checked here: required fields, numbers, bounds and patterns. */
function validate(schema: JsonSchema, value: Value, path: string): Problems {
  const problems: Problems = {};
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const fieldPath = path ? `${path}.${name}` : name;
    const item = value[name];
    if (item === undefined || item === "") {
      if (schema.required?.includes(name)) problems[fieldPath] = t("formRequired");
      continue;
    }
    const type = Array.isArray(field.type) ? field.type[0] : field.type;
    if ((type === "number" || type === "integer") && !field.enum) {
      if (typeof item !== "number") problems[fieldPath] = t("formNumber");
      else if (type === "integer" && !Number.isInteger(item)) problems[fieldPath] = t("formInteger");
      else if (field.minimum !== undefined && item < field.minimum) {
        problems[fieldPath] = t("formMin", { n: field.minimum });
      } else if (field.maximum !== undefined && item > field.maximum) {
        problems[fieldPath] = t("formMax", { n: field.maximum });
      }
    }
    if (
      type === "string" &&
      typeof item === "string" &&
      field.pattern &&
      !new RegExp(field.pattern, "u").test(item)
    ) {
      problems[fieldPath] = t("formPattern");
    }
    if (type === "object" && field.properties && isObject(item))
      Object.assign(problems, validate(field, item, fieldPath));
  }
  return problems;
}

/** `value` with the schema's defaults filled in where it has none: what the form starts from. */
export function withDefaults(schema: JsonSchema, value: Value): Value {
  const filled: Value = { ...value };
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    if (filled[name] === undefined && field.default !== undefined) filled[name] = field.default;
    if (field.type === "object" && field.properties) {
      filled[name] = withDefaults(field, isObject(filled[name]) ? filled[name] : {});
    }
  }
  return filled;
}

export function isObject(value: unknown): value is Value {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
