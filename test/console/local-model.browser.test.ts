/**
 * The first-run page's local model, offline, in a real browser: a download of about 1 GB waits
 * for a yes naming where it comes from, the mirror (llm.modelMirror) is set from the page, and
 * a mirror that cannot be reached ends in the network's reason and a retry, never in
 * "Downloading…" for ever.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLAMA_RUNTIME_VERSION } from "../../src/llm/llama-cpp/llama-runtime.ts";
import { type BotHarness, startBot } from "../support/bot-harness.ts";
import { browserPages } from "../support/browser-pages.ts";
import { freePort } from "../support/server-process.ts";

const TOKEN = "local-model-token";

describe("the local model on the first-run page", () => {
  const pages = browserPages();
  let bot: BotHarness;
  let dataDir: string;

  beforeAll(async () => {
    // A runtime that reads as installed: the download is what this test is about, and it
    // starts only once the runtime is there.
    dataDir = mkdtempSync(join(tmpdir(), "tsumugi-local-model-"));
    const library = join(dataDir, "runtime", "node_modules", "node-llama-cpp");
    mkdirSync(library, { recursive: true });
    writeFileSync(join(library, "package.json"), JSON.stringify({ version: LLAMA_RUNTIME_VERSION }));
    bot = await startBot({ dataDir, configFile: true, config: { server: { token: TOKEN } } });
  });
  afterAll(async () => {
    await bot?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("asks before the download, uses the mirror set on the page, and shows why it failed offline", async () => {
    const offline = `http://127.0.0.1:${await freePort()}`;
    const page = await pages.open(`${bot.baseUrl}/setup`, { token: TOKEN, locale: "en-US" });
    const local = page.locator(".local-model");

    await local.locator("input[name=modelMirror]").fill(offline);
    await local.locator(".mirror").getByRole("button", { name: "Save the mirror" }).click();
    await local.locator(".mirror output.ok").waitFor();
    expect(readFileSync(bot.configFile!, "utf8")).toContain(`modelMirror: ${offline}`);

    await local.getByRole("button", { name: /Download and use/ }).click();
    const confirm = local.getByRole("alertdialog");
    await expect.poll(() => confirm.textContent()).toContain(offline);
    expect(await confirm.textContent()).toMatch(/about 1[.,]\d+ GB/);
    // Nothing starts before the yes.
    const before = await fetch(`${bot.baseUrl}/api/local-model`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    }).then((answer) => answer.json() as Promise<{ downloads: unknown[] }>);
    expect(before.downloads).toEqual([]);

    await confirm.getByRole("button", { name: "Download" }).click();
    const alert = local.getByRole("alert");
    await expect
      .poll(() => alert.textContent(), { timeout: 15_000 })
      .toContain(`could not download ${offline}/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/`);
    expect(await alert.textContent()).toContain("ECONNREFUSED");

    // Retry asks again, and fails again for the same reason.
    await alert.getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => alert.textContent(), { timeout: 15_000 }).toContain("ECONNREFUSED");
  });
});
