import type { Plugin } from "esbuild";

export declare const credentialsFromEnvironment: Plugin;
export declare const pureCalls: Plugin;
/** `text` (the source of the module at `path`) with each call of an imported function free of side effects marked pure. */
export declare function annotatePureCalls(path: string, text: string, valibot: ReadonlySet<string>): string;
/** An operations module's source with each operation's `success.schema` and `example` as `undefined`. */
export declare function withoutContractOnlyParts(path: string, text: string): string;
declare const plugins: Plugin[];
export default plugins;
