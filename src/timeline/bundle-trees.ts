// What a bundle's trees must look like, from their roots down: a state root is a JSON value
// (`j` or `a`), whose references lead to JSON values and whose arrays' chunks hold arrays;
// a files root is a folder (`d`) whose folders are folders and whose files are one `b` node
// of the entry's size or an `f` node whose `b` chunks add up to it. Import checks it over
// the small facts it kept of each object; export checks what it is about to write.
import { InvalidBundleError } from "../core/errors.js";
import type { Hash } from "../objects/hash.js";
import type { TreeNode } from "../objects/node.js";

/** What a reference expects to find. */
export const STATE = 1; // a JSON value: `j` or `a`
export const PART = 2; // a chunk of a long array: `a`, or `j` holding an array
export const DIR = 3; // a folder: `d`
export const FILE = 4; // a file of `size` bytes: `b` of that size, or `f` whose chunks add up to it
export const CHUNK = 5; // a chunk of `size` bytes: `b` of that size
export const ANY = 6; // only that it exists (a link or skipped file carrying a hash)
export type Role = typeof STATE | typeof PART | typeof DIR | typeof FILE | typeof CHUNK | typeof ANY;

const J = 0x6a;
const A = 0x61;
const B = 0x62;
const F = 0x66;
const D = 0x64;

/** The small facts kept of a node: its kind (character code) and, for `b` its size, for `f` its chunks' total, for `j` 1 if it holds an array. */
export interface NodeFacts {
  readonly kind: number;
  readonly fact: number;
}

export function factsOf(node: TreeNode): NodeFacts {
  switch (node.kind) {
    case "b":
      return { kind: B, fact: node.data.length };
    case "f": {
      let total = 0;
      for (const e of node.entries) total += e[1];
      return { kind: F, fact: total };
    }
    case "j":
      return { kind: J, fact: firstChar(node.body) === "[" ? 1 : 0 };
    case "a":
      return { kind: A, fact: 0 };
    case "d":
      return { kind: D, fact: 0 };
  }
}

/** The first character of JSON text after its whitespace. */
function firstChar(text: string): string | undefined {
  let i = 0;
  while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  return text[i];
}

/** Calls `edge` for every reference of a node, with what it expects. */
export function forEachEdge(node: TreeNode, edge: (to: Hash, role: Role, size: number) => void): void {
  switch (node.kind) {
    case "j":
      for (const r of node.refs) edge(r[0], STATE, -1);
      return;
    case "a":
      for (const e of node.entries) edge(e[0], PART, -1);
      return;
    case "f":
      for (const e of node.entries) edge(e[0], CHUNK, e[1]);
      return;
    case "d":
      for (const e of node.entries) {
        if (e[0] === "") continue;
        edge(e[0], e[2] === "d" ? DIR : e[2] === "f" ? FILE : ANY, e[4]);
      }
      return;
    case "b":
      return;
  }
}

/** Why `facts` do not meet what a reference of `role` expects, or null. */
export function roleProblem(role: Role, size: number, facts: NodeFacts): string | null {
  const { kind, fact } = facts;
  switch (role) {
    case STATE:
      return kind === J || kind === A ? null : `is ${kindName(kind)}`;
    case PART:
      if (kind === A || (kind === J && fact === 1)) return null;
      return kind === J ? "is a JSON node that does not hold an array" : `is ${kindName(kind)}`;
    case DIR:
      return kind === D ? null : `is ${kindName(kind)}`;
    case FILE:
      if (kind === B) return fact === size ? null : `holds ${fact} bytes`;
      if (kind === F) return fact === size ? null : `lists chunks of ${fact} bytes in all`;
      return `is ${kindName(kind)}`;
    case CHUNK:
      if (kind === B) return fact === size ? null : `holds ${fact} bytes`;
      return `is ${kindName(kind)}`;
    default:
      return null;
  }
}

export function roleName(role: Role, size: number): string {
  switch (role) {
    case STATE:
      return "a JSON value";
    case PART:
      return "a chunk of an array";
    case DIR:
      return "a folder";
    case FILE:
      return `a file of ${size} bytes`;
    case CHUNK:
      return `a file chunk of ${size} bytes`;
    default:
      return "an object";
  }
}

function kindName(kind: number): string {
  switch (kind) {
    case J:
      return "a JSON (j) node";
    case A:
      return "an array (a) node";
    case B:
      return "a file bytes (b) node";
    case F:
      return "a big file (f) node";
    case D:
      return "a folder (d) node";
    default:
      return `an object of unknown kind ${kind}`;
  }
}

/** A tree root a checkpoint names, and how to name it in an error. */
export interface TreeRoot {
  readonly hash: Hash;
  readonly role: typeof STATE | typeof DIR;
  /** `checkpoint 01J… (#3 of session "s")'s files root` */
  readonly label: string;
}

/** Where the walk finds a node's facts and references; undefined when the node is not there. */
export interface TreeGraph {
  facts(hash: Hash): NodeFacts | undefined;
  edges(hash: Hash, edge: (to: Hash, role: Role, size: number) => void): void;
}

/** A reference to a node the graph does not hold. */
export interface OutsideRef {
  readonly to: Hash;
  readonly role: Role;
  readonly size: number;
  readonly from: string;
}

/**
 * Walks every tree from its root, checking each reference against what it leads to (once per
 * node); throws InvalidBundleError naming the referring object, the one referred to and the
 * rule. References to nodes the graph lacks are returned, not entered.
 */
export function walkTrees(graph: TreeGraph, roots: readonly TreeRoot[]): OutsideRef[] {
  const outside: OutsideRef[] = [];
  const seen = new Set<Hash>();
  const stack: Hash[] = [];
  const follow = (to: Hash, role: Role, size: number, from: string) => {
    const facts = graph.facts(to);
    if (!facts) {
      outside.push({ to, role, size, from });
      return;
    }
    refuseMismatch(to, role, size, from, facts);
    if (!seen.has(to)) {
      seen.add(to);
      stack.push(to);
    }
  };
  for (const r of roots) follow(r.hash, r.role, -1, r.label);
  while (stack.length > 0) {
    const h = stack.pop() as Hash;
    const from = `object ${h}`;
    graph.edges(h, (to, role, size) => follow(to, role, size, from));
  }
  return outside;
}

/** Throws InvalidBundleError when `facts` do not meet the reference's expectation. */
export function refuseMismatch(to: Hash, role: Role, size: number, from: string, facts: NodeFacts): void {
  const problem = roleProblem(role, size, facts);
  if (problem !== null) throw new InvalidBundleError(`${from} lists ${to} as ${roleName(role, size)}, but it ${problem}`);
}

/** The graph of nodes already loaded (export: everything it is about to write). */
export function loadedGraph(nodes: ReadonlyMap<Hash, TreeNode>): TreeGraph {
  return {
    facts: (h) => {
      const n = nodes.get(h);
      return n && factsOf(n);
    },
    edges: (h, edge) => {
      const n = nodes.get(h);
      if (n) forEachEdge(n, edge);
    },
  };
}
