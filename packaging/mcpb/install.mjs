// Installs a Claude Desktop bundle the way Claude Desktop does, with the code it uses for that (the pinned
// @anthropic-ai/mcpb): unpacks BUNDLE into DIR, then resolves the manifest's mcp_config for the user's settings
// (USER_CONFIG, JSON: what the install dialog collected), and prints the command, args and env Claude would start
// the server with, as JSON. The dist tests (packaging/dist_test.go) start the server that way.
//
//	MCPB_MODULES=.cache/packaging/node_modules node packaging/mcpb/install.mjs BUNDLE DIR USER_CONFIG
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const [bundle, dir, userConfig = "{}"] = process.argv.slice(2);
if (!bundle || !dir) {
  console.error("usage: install.mjs BUNDLE DIR [USER_CONFIG]");
  process.exit(2);
}
const modules = resolve(process.env.MCPB_MODULES ?? ".cache/packaging/node_modules");
const mcpb = await import(pathToFileURL(join(modules, "@anthropic-ai", "mcpb", "dist", "index.js")).href);

if (!(await mcpb.unpackExtension({ mcpbPath: bundle, outputDir: dir, silent: true }))) {
  console.error(`install.mjs: could not unpack ${bundle}`);
  process.exit(1);
}
const extensionPath = resolve(dir);
const manifest = JSON.parse(readFileSync(join(extensionPath, "manifest.json"), "utf8"));
const home = homedir();
const config = await mcpb.getMcpConfigForManifest({
  manifest,
  extensionPath,
  systemDirs: { HOME: home, DESKTOP: join(home, "Desktop"), DOCUMENTS: join(home, "Documents"), DOWNLOADS: join(home, "Downloads") },
  userConfig: JSON.parse(userConfig),
  pathSeparator: sep,
});
if (!config) {
  console.error("install.mjs: the bundle's required settings are missing");
  process.exit(1);
}
console.log(JSON.stringify(config));
