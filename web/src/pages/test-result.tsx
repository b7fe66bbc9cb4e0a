import { t } from "../i18n.ts";
import type { ModelTestResult } from "../types.ts";

/** The outcome of a model test, in one line. */
export function TestResult({ result }: { result: ModelTestResult }) {
  if (result.ok) {
    return (
      <output class="test-result ok">
        ✓ {t("setupTestOk", { ms: result.latencyMs, text: result.text ?? "" })}
      </output>
    );
  }
  return (
    <output class="test-result fail">
      ✗ {t("setupTestFail")} {result.error}
    </output>
  );
}
