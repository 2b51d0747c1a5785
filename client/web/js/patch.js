// RFC 6902 JSON Patch, applied to plain JSON values (RFC 6901 pointers).
//
// applyPatch never mutates its input: the table keeps the previous view for
// replays and for comparing, so a patch works on a deep copy.

export class PatchError extends Error {}

/** A deep copy of a JSON value. */
export function clone(value) {
  return value === undefined ? undefined : structuredClone(value);
}

/** JSON equality, as the `test` operation means it (key order does not count). */
export function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/** The reference tokens of a JSON pointer: "/a~1b/0" -> ["a/b", "0"]. */
export function parsePointer(pointer) {
  if (pointer === "") return [];
  if (typeof pointer !== "string" || pointer[0] !== "/") {
    throw new PatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  }
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(array, token, forInsert) {
  if (forInsert && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`bad array index ${token}`);
  const index = Number(token);
  const max = forInsert ? array.length : array.length - 1;
  if (index > max) throw new PatchError(`array index ${index} out of range`);
  return index;
}

function own(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** The container holding a pointer's target, and the last token. */
function parentOf(doc, tokens) {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (node !== null && typeof node === "object" && own(node, token)) node = node[token];
    else throw new PatchError(`path not found at ${token}`);
  }
  if (node === null || typeof node !== "object") throw new PatchError("parent is not a container");
  return [node, tokens[tokens.length - 1]];
}

function getAt(doc, tokens) {
  let node = doc;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)];
    else if (node !== null && typeof node === "object" && own(node, token)) node = node[token];
    else throw new PatchError(`path not found at ${token}`);
  }
  return node;
}

// Each operation returns the (possibly new) root: a pointer "" replaces the document.
function add(doc, tokens, value) {
  if (tokens.length === 0) return value;
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc, tokens) {
  if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else if (own(parent, key)) delete parent[key];
  else throw new PatchError(`nothing to remove at ${key}`);
  return doc;
}

function replace(doc, tokens, value) {
  if (tokens.length === 0) return value;
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  else if (own(parent, key)) parent[key] = value;
  else throw new PatchError(`nothing to replace at ${key}`);
  return doc;
}

/** `ops` applied in order to a copy of `doc`; throws PatchError if any fails. */
export function applyPatch(doc, ops) {
  let result = clone(doc);
  for (const op of ops) {
    const path = parsePointer(op.path);
    switch (op.op) {
      case "add":
        result = add(result, path, clone(op.value));
        break;
      case "remove":
        result = remove(result, path);
        break;
      case "replace":
        result = replace(result, path, clone(op.value));
        break;
      case "move": {
        const from = parsePointer(op.from);
        if (op.path.startsWith(op.from + "/")) throw new PatchError("cannot move into a child");
        const value = getAt(result, from);
        result = remove(result, from);
        result = add(result, path, value);
        break;
      }
      case "copy":
        result = add(result, path, clone(getAt(result, parsePointer(op.from))));
        break;
      case "test":
        if (!deepEqual(getAt(result, path), op.value)) {
          throw new PatchError(`test failed at ${op.path}`);
        }
        break;
      default:
        throw new PatchError(`unknown operation ${JSON.stringify(op.op)}`);
    }
  }
  return result;
}
