// How blame carries each line's origin from one version of a file to the next (jsdiff over
// lines): a kept line keeps its origin wherever it moves, an inserted or changed one takes the
// step's, and a step too different to diff line by line counts as a rewrite of what differs.
import { describe, expect, it } from "vitest";
import { carry, lineOrigins, splitLines } from "../../src/integrations/hosts/blame/line-origins.js";

describe("lineOrigins", () => {
  it("keeps a line's origin when lines are inserted above it and others deleted", () => {
    expect(
      lineOrigins([
        ["a", "b", "c"],
        ["h", "a", "c"],
        ["h", "x", "a", "c", "d"],
      ]),
    ).toEqual([1, 2, 0, 0, 2]);
  });

  it("gives a changed line to the step that changed it, and a line changed back to the step that changed it back", () => {
    expect(
      lineOrigins([
        ["a", "b"],
        ["a", "B"],
        ["a", "b"],
      ]),
    ).toEqual([0, 2]);
  });

  it("starts again from nothing when the file was gone in between", () => {
    expect(lineOrigins([["a", "b"], [], ["a", "b"]])).toEqual([2, 2]);
  });

  it("keeps repeated lines at the start and the end, and gives what was put between them to the step", () => {
    expect(
      lineOrigins([
        ["}", "}"],
        ["}", "x", "}", "}"],
      ]),
    ).toEqual([0, 1, 1, 0]);
  });

  it("counts a step past the edit limit as a rewrite of the part between the common start and end", () => {
    const before = Array.from({ length: 5000 }, (_, i) => `old ${i}`);
    const after = Array.from({ length: 5000 }, (_, i) => `new ${i}`);
    const origins = carry(
      ["head", ...before, "tail"],
      Array.from({ length: 5002 }, () => 0),
      ["head", ...after, "tail"],
      1,
    );
    expect(origins.length).toBe(5002);
    expect(origins[0]).toBe(0);
    expect(origins[5001]).toBe(0);
    expect(origins.slice(1, 5001).every((o) => o === 1)).toBe(true);
  });

  it("is empty for no versions", () => {
    expect(lineOrigins([])).toEqual([]);
  });
});

describe("splitLines", () => {
  it("ends the last line at a final newline, keeps a \\r with its line, and gives nothing for an empty file", () => {
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\nb")).toEqual(["a", "b"]);
    expect(splitLines("a\r\n\n")).toEqual(["a\r", ""]);
    expect(splitLines("")).toEqual([]);
  });
});
