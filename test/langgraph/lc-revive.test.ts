// Reading LangChain messages back without LangChain's `load` for each (lc-revive.ts): the
// first message of each class goes through `load`, and a list read at once waits for it
// instead of sending every message through `load`.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { describe, expect, it, vi } from "vitest";
import { ValueCodec } from "../../src/integrations/langgraph/value-codec.js";

const loads = vi.hoisted(() => ({ count: 0 }));

vi.mock("@langchain/core/load", async (original) => {
  const real = await original<typeof import("@langchain/core/load")>();
  return {
    ...real,
    load: (...args: Parameters<typeof real.load>) => {
      loads.count++;
      return real.load(...args);
    },
  };
});

describe("LangChain messages read back", () => {
  it("go through `load` once per class, even when a whole list is read at once", async () => {
    const serde = new JsonPlusSerializer();
    const messages = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0 ? new HumanMessage({ content: `question ${i}`, id: `h${i}` }) : new AIMessage({ content: `answer ${i}`, id: `a${i}` }),
    );
    const stored = await new ValueCodec(serde).toStored(messages);
    const [, bytes] = await serde.dumpsTyped(messages);
    const expected = (await serde.loadsTyped("json", bytes)) as unknown[];

    loads.count = 0;
    const read = (await new ValueCodec(serde).revive(JSON.parse(JSON.stringify(stored)))) as unknown[];
    // The check that `load` here is the serializer's (once per codec), then one per class.
    expect(loads.count).toBe(1 + 2);
    for (const [i, m] of read.entries()) {
      expect(Object.getPrototypeOf(m)).toBe(Object.getPrototypeOf(expected[i]));
      expect(m).toEqual(expected[i]);
    }

    loads.count = 0;
    await new ValueCodec(serde).revive(JSON.parse(JSON.stringify(stored)));
    expect(loads.count).toBe(1);
  });
});
