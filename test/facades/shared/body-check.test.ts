import t from "tap";
import { bodyCheckFinding, withBodyCheckFinding } from "../../../src/facades/shared/body-check.js";
import { JsonDepthError, UnpairedSurrogateError } from "../../../src/server/json-body.js";
import { RequestEncodingError } from "../../../src/server/request-encoding.js";

const fastifyParseError = Object.assign(new Error("Unexpected token } in JSON at position 9"), { name: "FastifyError", code: "FST_ERR_CTP_INVALID_JSON_BODY", statusCode: 400 });

t.equal(bodyCheckFinding(new JsonDepthError()), "JSON nested more than 100 levels deep", "the depth check");
t.match(bodyCheckFinding(new UnpairedSurrogateError("$.prompt")), /^the string at \$\.prompt holds an unpaired UTF-16 surrogate/, "the surrogate check");
t.equal(bodyCheckFinding(new RequestEncodingError("Unsupported Content-Encoding 'zz'")), "Unsupported Content-Encoding 'zz'", "the encoding check");
t.equal(bodyCheckFinding(fastifyParseError), undefined, "fastify's own parse error says nothing useful");
t.equal(bodyCheckFinding(new SyntaxError("Unexpected end of JSON input")), undefined, "another error");
t.equal(bodyCheckFinding(Object.assign(new Error(""), { code: "FST_ERR_CTP_INVALID_JSON_BODY" })), undefined, "no message");
t.equal(bodyCheckFinding("FST_ERR_CTP_INVALID_JSON_BODY"), undefined, "not an error");

t.equal(withBodyCheckFinding("Bad body.", new JsonDepthError()), "Bad body. JSON nested more than 100 levels deep", "a message with the finding");
t.equal(withBodyCheckFinding("bad body", new JsonDepthError(), ": "), "bad body: JSON nested more than 100 levels deep", "after another separator");
t.equal(withBodyCheckFinding("Bad body.", fastifyParseError), "Bad body.", "a message alone when there is none");
