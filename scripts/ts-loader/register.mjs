// Registers the TypeScript loader of the test processes (tap's node-arg in
// .taprc): see hooks.mjs.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
