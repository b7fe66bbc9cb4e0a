/**
 * Node module resolve hook (it runs on the loader thread, so it is plain JavaScript).
 * - `tsumugi/sdk` resolves to this project's SDK from any folder.
 * - Script files imported by plugin code are ES modules even without a package.json saying
 *   `"type": "module"` (a plugin folder anywhere on disk usually has none). Plugin code is
 *   recognised by its importer: the host's entry import or a module of a plugin namespace
 *   both carry the marker below in their URL.
 */
const PLUGIN_MARKER = "tsumugi-plugin";
const SCRIPT = /\.(?:[cm]?[jt]s|tsx)$/;
let sdkUrl = "";

export function initialize(data) {
  sdkUrl = data.sdkUrl;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier === "tsumugi/sdk" ? sdkUrl : specifier, context);
  const url = resolved.url;
  const fromPlugin = context.parentURL?.includes(PLUGIN_MARKER) === true;
  if (
    fromPlugin &&
    url.startsWith("file:") &&
    !url.includes("/node_modules/") &&
    SCRIPT.test(url.split("?")[0])
  ) {
    return { ...resolved, format: "module" };
  }
  return resolved;
}
