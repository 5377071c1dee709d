// The neutral StoredResponseService: the responses the OpenAI Responses
// facade answered with `store` on, kept for the gateway's retention. Each
// belongs to the key that saved it; to every other key it does not exist.
// A record carries its conversation's context (the previous response's
// context, then its own input and output items), so a follow-up reads one row
// rather than walking the chain. Its documents are the facade's JSON, which
// this service stores as text and never interprets.
import type { JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ConnectError } from "@connectrpc/connect";
import {
  DeleteResponseResponseSchema,
  GetContextResponseSchema,
  GetResponseResponseSchema,
  ListInputItemsRequest_Order,
  ListInputItemsResponseSchema,
  SaveResponseResponseSchema,
  StoredResponseSchema,
  StoredResponseService,
  type StoredResponse,
} from "../../../gen/omnigate/response/v1/response_pb.js";
import type { StoredResponseDoc, StoredResponseRecord, StoredResponseStore } from "../../storage/types.js";
import type { Call } from "../call/call.js";
import type { ServiceImpl } from "../call/service.js";
import { Code, coreError, invalidArgument } from "../errors.js";
import { create } from "../proto/create.js";
import { joinJsonArrays, pageOf, withItemIds } from "./items.js";

export const DEFAULT_LIST = 20;
export const MAX_LIST = 100;
/** The ids the facade mints: "resp_" and letters, digits, "_" or "-". */
export const RESPONSE_ID = /^resp_[A-Za-z0-9_-]{1,123}$/;

export interface StoredResponseServiceDeps {
  store: StoredResponseStore;
  /** How long a stored response is kept after it is saved, in ms. */
  retentionMs: number;
  /** Largest document of a stored response (the Response object, its input items, its context), as JSON bytes. */
  maxBytes: number;
  now: () => number;
}

export function toStoredResponse(rec: StoredResponseRecord, response: JsonObject): StoredResponse {
  return create(StoredResponseSchema, {
    id: rec.id,
    createTime: timestampFromMs(rec.createTime),
    expireTime: timestampFromMs(rec.expireTime),
    status: rec.status,
    model: rec.model,
    previousResponseId: rec.previousResponseId,
    response,
  });
}

/** The NotFound of a response that is missing, expired or another key's (never told apart). */
export function responseNotFound(id: string, field = "id"): ConnectError {
  return coreError(Code.NotFound, `Response with id '${id.slice(0, 128)}' not found.`, { reason: "response_not_found", field });
}

/** The NotFound of a previous_response_id that names no response of the caller's. */
export function previousResponseNotFound(id: string, field = "id"): ConnectError {
  return coreError(Code.NotFound, `Previous response with id '${id.slice(0, 128)}' not found.`, { reason: "previous_response_not_found", field });
}

export function storedResponseService(deps: StoredResponseServiceDeps): ServiceImpl<typeof StoredResponseService> {
  /** The caller's unexpired response with the documents asked for, or the NotFound `missing` makes. */
  const load = async (id: string, call: Call, docs: readonly StoredResponseDoc[], missing = responseNotFound): Promise<StoredResponseRecord> => {
    if (!id) throw invalidArgument("Missing required parameter: 'id'.", "id", "missing_required_parameter");
    const rec = RESPONSE_ID.test(id) ? await deps.store.get({ id, ownerKeyId: call.principal.keyId, now: deps.now() }, docs) : undefined;
    if (!rec) throw missing(id, "id");
    return rec;
  };
  /** A document's JSON, refused when it is over the cap. */
  const bounded = (what: string, field: string, json: string): string => {
    // A string's UTF-8 bytes are at most three times its UTF-16 length: most documents pass without counting them.
    const bytes = json.length > deps.maxBytes / 3 ? Buffer.byteLength(json) : json.length;
    if (bytes > deps.maxBytes) {
      throw coreError(Code.InvalidArgument, `The stored response's ${what} would be ${bytes} bytes; at most ${deps.maxBytes} bytes may be stored.`, {
        reason: "stored_response_too_large",
        ...(field ? { field } : {}),
      });
    }
    return json;
  };

  return {
    async saveResponse(req, call) {
      const owner = call.principal.keyId;
      if (!RESPONSE_ID.test(req.id)) throw invalidArgument(`'${req.id.slice(0, 64)}' is not a response id ("resp_" and up to 123 letters, digits, "_" or "-").`, "id");
      const response = req.response ?? {};
      if (response.id !== undefined && response.id !== req.id) throw invalidArgument("The Response object's id differs from the id it is saved under.", "response.id");
      if (req.previousResponseId === req.id) throw invalidArgument("A response cannot continue itself.", "previous_response_id");
      const t = deps.now();
      let previous = "[]";
      if (req.previousResponseId) {
        const prev = RESPONSE_ID.test(req.previousResponseId) ? await deps.store.get({ id: req.previousResponseId, ownerKeyId: owner, now: t }, ["context"]) : undefined;
        if (!prev) throw previousResponseNotFound(req.previousResponseId, "previous_response_id");
        previous = prev.context;
      }
      const input = bounded("input", "input", JSON.stringify(withItemIds(req.input)));
      const rec: StoredResponseRecord = {
        id: req.id,
        ownerKeyId: owner,
        model: req.model,
        status: req.status,
        previousResponseId: req.previousResponseId,
        createTime: req.createTime ? timestampMs(req.createTime) : t,
        expireTime: t + deps.retentionMs,
        response: bounded("Response object", "response", JSON.stringify(response)),
        input,
        context: bounded("context (the conversation so far)", "", joinJsonArrays([previous, input, JSON.stringify(req.output)])),
      };
      // Ids are minted at random by the facade: a clash is another key's record that a caller named on purpose.
      if (!(await deps.store.put(rec))) throw coreError(Code.AlreadyExists, `Response with id '${req.id}' already exists.`, { reason: "response_exists", field: "id" });
      return create(SaveResponseResponseSchema, { response: toStoredResponse(rec, response) });
    },

    async getResponse(req, call) {
      const rec = await load(req.id, call, ["response"]);
      return create(GetResponseResponseSchema, { response: toStoredResponse(rec, JSON.parse(rec.response) as JsonObject) });
    },

    async deleteResponse(req, call) {
      if (!req.id) throw invalidArgument("Missing required parameter: 'id'.", "id", "missing_required_parameter");
      const gone = RESPONSE_ID.test(req.id) && (await deps.store.delete({ id: req.id, ownerKeyId: call.principal.keyId, now: deps.now() }));
      if (!gone) throw responseNotFound(req.id);
      return create(DeleteResponseResponseSchema, { id: req.id });
    },

    async listInputItems(req, call) {
      const limit = req.limit || DEFAULT_LIST;
      if (limit < 1 || limit > MAX_LIST) throw invalidArgument(`limit must be between 1 and ${MAX_LIST}.`, "limit", "invalid_value");
      const rec = await load(req.id, call, ["input"]);
      const page = pageOf(JSON.parse(rec.input) as JsonObject[], { after: req.after, limit, desc: req.order !== ListInputItemsRequest_Order.ASC });
      if (!page) throw invalidArgument(`No input item with id '${req.after.slice(0, 128)}' in response '${req.id}'.`, "after", "invalid_value");
      const id = (item: JsonObject | undefined) => (typeof item?.id === "string" ? item.id : "");
      return create(ListInputItemsResponseSchema, { items: page.items, firstId: id(page.items[0]), lastId: id(page.items.at(-1)), hasMore: page.hasMore });
    },

    async getContext(req, call) {
      const rec = await load(req.id, call, ["context"], previousResponseNotFound);
      return create(GetContextResponseSchema, { items: JSON.parse(rec.context) as JsonObject[], model: rec.model });
    },
  };
}
