// Lint: ESLint's and typescript-eslint's recommended rules over the TypeScript sources; formatting is Prettier's
// (`npm run format:check`, both run by `npm run lint`). A rule is switched off only with its reason beside it.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "web/dist/**",
      ".sst/**",
      ".local/**",
      "docs/**",
      "**/*.d.ts",
      "**/*.js",
      "**/*.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `const { pk, sk, ...rest } = item` drops stored keys from an answer: the names say what is dropped.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
      // Input sanitising matches control characters on purpose (to refuse them).
      "no-control-regex": "off",
    },
  },
  {
    // Tests, benches and the local fakes poke at raw answers and SDK internals; the product code gets no `any`.
    files: ["tests/**", "bench/**", "local/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // SST's generated platform types are referenced the way SST's own template does.
    files: ["sst.config.ts"],
    rules: { "@typescript-eslint/triple-slash-reference": "off" },
  },
);
