// Runs the plugin inside a real bot, with a scripted model and a stand-in QQ (tsumugi/testing).
import assert from "node:assert/strict";
import { test } from "node:test";
import { startScene } from "tsumugi/testing";

test("/hello answers without the model", async (t) => {
  const scene = await startScene({ plugins: ["."] });
  t.after(() => scene.close());
  assert.equal(await scene.ask("/hello 紬"), "你好，紬");
});

test("the model calls the add tool and answers with its result", async (t) => {
  const scene = await startScene({ plugins: ["."] });
  t.after(() => scene.close());
  scene.willCall("add", { a: 2, b: 3 });
  scene.willReply("2 加 3 等于 5");
  assert.equal(await scene.ask("2 加 3 是多少？"), "2 加 3 等于 5");
  assert.deepEqual(scene.toolResults("add"), [{ sum: 5 }]);
});
