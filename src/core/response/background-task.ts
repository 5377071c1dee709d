// A background response as the task runner stores it (kind
// "background-response", the response's id): the neutral chat call to run,
// the facade's opaque render state, and once it has finished its neutral
// events and failure. What the core shows of it is a BackgroundResponse.
// Pure: no storage, no clock.
import { fromBinary, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ErrorDetailSchema, type ErrorDetail } from "../../../gen/omnigate/common/v1/common_pb.js";
import { StreamGenerateResponseSchema, type StreamGenerateResponse } from "../../../gen/omnigate/chat/v1/chat_pb.js";
import { BackgroundResponse_State as State, BackgroundResponseSchema, type BackgroundResponse } from "../../../gen/omnigate/response/v1/response_pb.js";
import { Code, ConnectError, errorDetail } from "../errors.js";
import { create } from "../proto/create.js";
import type { StoredTask, TaskStatus } from "../tasks/types.js";

export const BACKGROUND_KIND = "background-response";
/** The runner's queue of background responses (one for every key and model). */
export const BACKGROUND_QUEUE = "background-responses";

/** A failure as the task keeps it: a ConnectError's code, message and detail (binary, base64). */
export interface StoredFailure {
  code: number;
  message: string;
  detail?: string | undefined;
}

export interface BackgroundPayload {
  /** The StreamGenerateRequest (binary, base64); dropped once it has finished. */
  request?: string | undefined;
  /** The wire format the call is made and metered in (the facade's). */
  format: string;
  /** The facade's render state, returned with the events. */
  render: JsonObject;
  /** Its neutral events (each binary, base64), kept when it finishes. */
  events?: string[] | undefined;
  /** Why it failed, when its chat call did. */
  error?: StoredFailure | undefined;
}

export type BackgroundTask = StoredTask<BackgroundPayload>;

export const encodeEvents = (events: readonly StreamGenerateResponse[]): string[] => events.map((e) => Buffer.from(toBinary(StreamGenerateResponseSchema, e)).toString("base64"));
export const decodeEvents = (events: readonly string[] | undefined): StreamGenerateResponse[] => (events ?? []).map((e) => fromBinary(StreamGenerateResponseSchema, Buffer.from(e, "base64")));

export function storedFailure(err: ConnectError): StoredFailure {
  const d = errorDetail(err);
  return { code: err.code, message: err.rawMessage, ...(d ? { detail: Buffer.from(toBinary(ErrorDetailSchema, d)).toString("base64") } : {}) };
}

export function stateOf(s: TaskStatus): State {
  switch (s) {
    case "NOT_START":
    case "MODAL":
      return State.QUEUED;
    case "SUBMITTED":
    case "IN_PROGRESS":
      return State.IN_PROGRESS;
    case "SUCCESS":
      return State.SUCCEEDED;
    case "FAILURE":
      return State.FAILED;
    default:
      return State.CANCELLED;
  }
}

/** The failure of a task that failed without a chat error of its own (a timeout, a restart into a lost queue). */
function runnerFailure(t: BackgroundTask): StoredFailure {
  const reason = t.run.failReason ?? "failed";
  return { code: reason.startsWith("timed out") ? Code.DeadlineExceeded : Code.Internal, message: reason };
}

/** The BackgroundResponse of a stored task; `state` overrides the stored one (a live run that ended before its write). */
export function toBackground(t: BackgroundTask, state = stateOf(t.run.status), finishMs = t.run.finishTime): BackgroundResponse {
  const failed = state === State.FAILED ? (t.payload.error ?? runnerFailure(t)) : undefined;
  let detail: ErrorDetail | undefined;
  if (failed?.detail) detail = fromBinary(ErrorDetailSchema, Buffer.from(failed.detail, "base64"));
  return create(BackgroundResponseSchema, {
    state,
    render: t.payload.render,
    ...(failed ? { errorCode: failed.code, errorMessage: failed.message, ...(detail ? { errorDetail: detail } : {}) } : {}),
    ...(finishMs !== undefined && state >= State.SUCCEEDED ? { finishTime: timestampFromMs(finishMs) } : {}),
  });
}

export const isFinished = (s: State): boolean => s === State.SUCCEEDED || s === State.FAILED || s === State.CANCELLED;
