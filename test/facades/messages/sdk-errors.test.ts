// Every error status of the Messages edge, seen through both SDK generations
// with their own error classes. Faults come from the local engine's
// `#fault:<kind>` directives.
import t, { type Test } from "tap";
import type Anthropic from "@anthropic-ai/sdk";
import { ADMIN_KEY, startServer, type TestServer } from "../../helpers/app.js";
import { MODEL, SDKS, type Sdk } from "./sdks.js";

let server: TestServer;
let small: TestServer;
t.before(async () => {
  server = await startServer();
  small = await startServer({ config: { bodyLimitBytes: 4096 } });
});
t.teardown(async () => {
  await server.close();
  await small.close();
});

interface SdkError {
  status?: number;
  error: { type: string; error: { type: string; message: string }; request_id: string };
  requestID?: string | null;
  headers?: Headers;
  message: string;
}

async function failure(p: Promise<unknown>): Promise<SdkError & Error> {
  return p.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => e as SdkError & Error,
  );
}

type ErrorClass = keyof typeof import("@anthropic-ai/sdk").default;

/** fault directive, status, error type, SDK class per major version. */
const FAULTS: [string, number, string, { 0: ErrorClass; 1: ErrorClass }][] = [
  ["rate_limit", 429, "rate_limit_error", { 0: "RateLimitError", 1: "RateLimitError" }],
  ["overloaded", 529, "overloaded_error", { 0: "InternalServerError", 1: "OverloadedError" }],
  ["internal", 500, "api_error", { 0: "InternalServerError", 1: "InternalServerError" }],
  ["timeout", 504, "timeout_error", { 0: "InternalServerError", 1: "GatewayTimeoutError" }],
  ["permission", 403, "permission_error", { 0: "PermissionDeniedError", 1: "PermissionDeniedError" }],
];

function checkEnvelope(t: Test, err: SdkError, status: number, type: string) {
  t.equal(err.status, status, "status");
  t.equal(err.error.type, "error");
  t.equal(err.error.error.type, type, "error.type");
  t.match(err.error.request_id, /^req_/);
  t.equal(err.requestID, err.error.request_id, "the body's request_id is the request-id header");
}

function sdkClass(sdk: Sdk, name: ErrorClass): new (...a: never[]) => unknown {
  return (sdk.errors as unknown as Record<string, new (...a: never[]) => unknown>)[name]!;
}

for (const sdk of SDKS) {
  t.test(sdk.name, async (t) => {
    const client = sdk.client(server.baseUrl, ADMIN_KEY);

    for (const [fault, status, type, classes] of FAULTS) {
      t.test(`#fault:${fault} -> ${status} ${type}`, async (t) => {
        const err = await failure(client.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: "user", content: `please #fault:${fault}` }] }));
        t.ok(err instanceof sdkClass(sdk, classes[sdk.major]), classes[sdk.major]);
        checkEnvelope(t, err, status, type);
        if (fault === "rate_limit") t.equal(err.headers?.get("retry-after"), "1", "retry-after header");
        if (fault === "internal") t.equal(err.error.error.message, "internal error", "internal text never leaks");
      });
    }

    t.test("401 wrong key", async (t) => {
      const bad = sdk.client(server.baseUrl, "sk-not-a-real-key");
      const err = await failure(bad.messages.create({ model: MODEL, max_tokens: 50, messages: [{ role: "user", content: "hi" }] }));
      t.ok(err instanceof sdk.errors.AuthenticationError);
      checkEnvelope(t, err, 401, "authentication_error");
    });

    t.test("404 unknown model via models.retrieve", async (t) => {
      const err = await failure(client.models.retrieve("no-such-model"));
      t.ok(err instanceof sdk.errors.NotFoundError);
      checkEnvelope(t, err, 404, "not_found_error");
    });

    t.test("400 missing field", async (t) => {
      const err = await failure(client.messages.create({ model: MODEL, messages: [{ role: "user", content: "hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming));
      t.ok(err instanceof sdk.errors.BadRequestError);
      checkEnvelope(t, err, 400, "invalid_request_error");
      t.equal(err.error.error.message, "max_tokens: Field required");
      t.match(err.message, /^400 \{"type":"error"/);
    });

    t.test("400 mistyped field", async (t) => {
      const err = await failure(client.messages.create({ model: MODEL, max_tokens: "many", messages: [{ role: "user", content: "hi" }] } as unknown as Anthropic.MessageCreateParamsNonStreaming));
      t.ok(err instanceof sdk.errors.BadRequestError);
      t.equal(err.error.error.message, "max_tokens: Input should be a valid number");
      const block = await failure(
        client.messages.create({
          model: MODEL,
          max_tokens: 10,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "a" },
                { type: "text", text: 5 },
              ],
            },
          ],
        } as unknown as Anthropic.MessageCreateParamsNonStreaming),
      );
      t.equal(block.error.error.message, "messages.0.content.1.text: Input should be a valid string");
    });

    t.test("400 thinking budget not below max_tokens", async (t) => {
      const err = await failure(client.messages.create({ model: MODEL, max_tokens: 1024, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [{ role: "user", content: "hi" }] }));
      t.ok(err instanceof sdk.errors.BadRequestError);
      t.match(err.error.error.message, /^thinking\.budget_tokens: /);
    });

    t.test("413 oversize body", async (t) => {
      const big = sdk.client(small.baseUrl, ADMIN_KEY);
      const err = await failure(big.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "x".repeat(20_000) }] }));
      if (sdk.major === 1) t.ok(err instanceof sdkClass(sdk, "ContentTooLargeError"), "ContentTooLargeError");
      else t.ok(err instanceof sdk.errors.APIError, "APIError");
      checkEnvelope(t, err, 413, "request_too_large");
      const fine = await big.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: "user", content: "small" }] });
      t.equal(fine.type, "message", "small bodies still pass");
    });

    t.test("count_tokens errors too", async (t) => {
      const err = await failure(client.messages.countTokens({ model: MODEL, messages: [] }));
      t.ok(err instanceof sdk.errors.BadRequestError);
      t.equal(err.error.error.message, "messages: List should have at least 1 item after validation, not 0");
    });
  });
}
