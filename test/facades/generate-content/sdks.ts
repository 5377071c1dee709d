// Both generations of the official GenAI SDK: 2.x calls /v1beta, 3.x calls /v1.
import { GoogleGenAI as GenAI2, ApiError as ApiError2 } from "@google/genai";
import { GoogleGenAI as GenAI3, ApiError as ApiError3 } from "genai-3";

export const MODEL = "gemini-2.5-flash";

export type GenAI = GenAI2;

export interface Sdk {
  name: string;
  /** The API version segment the SDK calls. */
  version: "v1beta" | "v1";
  client(baseUrl: string, apiKey: string): GenAI;
  ApiError: new (...a: never[]) => Error & { status: number };
}

export const SDKS: Sdk[] = [
  { name: "genai-2", version: "v1beta", client: (baseUrl, apiKey) => new GenAI2({ apiKey, httpOptions: { baseUrl } }), ApiError: ApiError2 },
  { name: "genai-3", version: "v1", client: (baseUrl, apiKey) => new GenAI3({ apiKey, httpOptions: { baseUrl } }) as unknown as GenAI, ApiError: ApiError3 },
];

/** The SDK's ApiError of a failing call. */
export async function apiError(p: Promise<unknown>): Promise<Error & { status: number; message: string }> {
  return p.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => e as Error & { status: number; message: string },
  );
}

/** The google.rpc.Status body inside an ApiError message (the SDK puts the JSON body there). */
export function statusOf(err: Error): { code: number; message: string; status: string; details?: Record<string, unknown>[] } {
  const m = /\{.*\}/s.exec(err.message);
  if (!m) throw new Error(`no JSON in ${err.message}`);
  return (JSON.parse(m[0]) as { error: { code: number; message: string; status: string; details?: Record<string, unknown>[] } }).error;
}

/** The fieldViolations of a BadRequest detail. */
export function violations(details: Record<string, unknown>[] | undefined): { field: string; description: string }[] {
  const bad = (details ?? []).find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest") as { fieldViolations: { field: string; description: string }[] } | undefined;
  return bad?.fieldViolations ?? [];
}
