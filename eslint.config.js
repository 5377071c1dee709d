// ESLint: the recommended JavaScript and typescript-eslint rules. Import
// directions are checked by dependency-cruiser (.dependency-cruiser.cjs),
// formatting by prettier (.prettierrc.json).
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["gen/**", "dist/**", "console/**", "**/node_modules/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Omitting a field by destructuring (`const { a, ...rest } = x`) is how the translators drop one.
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true, argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      // `t.ok(...) || t.comment(...)`: say more only when a check fails.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
      // A `let` that a closure declared before its one assignment reads.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  // Per-event code of the streams: an object literal that starts with a spread
  // and goes on with keys ({ ...base, delta }) is promoted to V8's old
  // generation (Node 20), so every event of a stream would feed full
  // collections. Spread after a literal key instead ({ type, ...base, ...own }).
  {
    files: ["src/facades/*/stream.ts", "src/facades/*/output.ts", "src/facades/*/sse.ts", "src/facades/shared/sink.ts", "src/providers/*/stream.ts", "src/providers/shared/sse.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ObjectExpression[properties.0.type='SpreadElement'][properties.1]",
          message: "A literal that starts with a spread and goes on with keys is promoted to the old generation: put a literal key first.",
        },
      ],
    },
  },
  // Tests poke at wire shapes the types do not describe.
  { files: ["test/**"], rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unsafe-function-type": "off" } },
);
