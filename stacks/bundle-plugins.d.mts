import type { Plugin } from "esbuild";

export declare const credentialsFromEnvironment: Plugin;
declare const plugins: Plugin[];
export default plugins;
