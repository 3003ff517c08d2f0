// The value codec builds a LangChain object's JSON itself (its toJSON() walked as the
// serializer's replacer would) once the first object of its class gave exactly the
// serializer's text that way; a class that does not stays with the serializer. And the JSON
// it keeps of objects it met is frozen once reused (the value encoder then trusts it by
// identity), never the caller's own objects.
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Serializable } from "@langchain/core/load/serializable";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { describe, expect, it, vi } from "vitest";
import { ValueCodec } from "../../src/integrations/langgraph/value-codec.js";

const utf8 = new TextDecoder();

async function serializerText(serde: JsonPlusSerializer, v: unknown): Promise<string> {
  const [type, bytes] = await serde.dumpsTyped(v);
  expect(type).toBe("json");
  return utf8.decode(bytes);
}

/** Messages of many shapes, made anew by each call (so no object is met twice). */
function messages(n: number): unknown[] {
  return [
    new HumanMessage({ content: `question ${n}`, id: `h-${n}` }),
    new HumanMessage({
      content: [
        { type: "text", text: `part ${n}` },
        { type: "image_url", image_url: { url: "data:," } },
      ],
      name: "ada",
    }),
    new AIMessage({
      content: `answer ${n}`,
      id: `a-${n}`,
      tool_calls: [{ id: `call-${n}`, name: "search", args: { q: "x", limit: n, nested: { deep: [1, null, "y"] } } }],
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
      additional_kwargs: { extra: { list: [1, 2, { u: undefined }] }, gone: undefined },
      response_metadata: { model: "m", finish: "stop" },
    }),
    new AIMessageChunk({ content: `chunk ${n}`, id: `c-${n}` }),
    new SystemMessage({ content: `system ${n}` }),
    new ToolMessage({ content: `result ${n}`, tool_call_id: `call-${n}`, artifact: { rows: [n, n + 1] } }),
    // Something only the serializer turns into JSON, inside a message: the serializer's way.
    new AIMessage({ content: "dated", additional_kwargs: { at: new Date(n * 1000) } }),
  ];
}

describe("the value codec's direct JSON for LangChain objects", () => {
  it("gives exactly the serializer's text, for the first object of each class and every later one", async () => {
    const serde = new JsonPlusSerializer();
    const codec = new ValueCodec(serde);
    for (let round = 0; round < 4; round++) {
      for (const m of messages(round)) {
        const stored = (await codec.toStored(m)) as { json: unknown };
        expect(JSON.stringify(stored.json)).toBe(await serializerText(serde, m));
      }
      const list = messages(100 + round);
      const stored = (await codec.toStored({ messages: list })) as { json: unknown };
      expect(JSON.stringify(stored.json)).toBe(await serializerText(serde, { messages: list }));
    }
  });

  it("no longer asks the serializer for a class it learnt", async () => {
    const serde = new JsonPlusSerializer();
    const dumps = vi.spyOn(serde, "dumpsTyped");
    const codec = new ValueCodec(serde);
    await codec.toStored([new AIMessage({ content: "first", id: "1" })]);
    expect(dumps).toHaveBeenCalledTimes(1);
    const later = [new AIMessage({ content: "second", id: "2" }), new AIMessage({ content: "third", id: "3" })];
    const stored = (await codec.toStored(later)) as { json: unknown };
    expect(dumps).toHaveBeenCalledTimes(1);
    dumps.mockRestore();
    expect(JSON.stringify(stored.json)).toBe(await serializerText(serde, later));
  });

  it("leaves a class whose toJSON does not give the serializer's text to the serializer", async () => {
    let calls = 0;
    class Drifting extends Serializable {
      lc_namespace = ["test", "drifting"];
      override lc_serializable = true;
      // A different text at every call: built here, it would never be the serializer's.
      override toJSON() {
        calls++;
        return { lc: 1, type: "constructor", id: ["test", "Drifting"], kwargs: { call: calls } } as ReturnType<Serializable["toJSON"]>;
      }
    }
    const serde = new JsonPlusSerializer();
    const dumps = vi.spyOn(serde, "dumpsTyped");
    const codec = new ValueCodec(serde);
    for (let i = 1; i <= 3; i++) {
      const stored = (await codec.toStored([new Drifting({})])) as { json: [{ kwargs: { call: number } }] };
      expect(dumps).toHaveBeenCalledTimes(i);
      // What the serializer's own call gave (the codec's check called toJSON once more, the first time only).
      expect(stored.json[0].kwargs.call).toBe(i === 1 ? 1 : i + 1);
    }
  });

  it("freezes the JSON it keeps once it reuses it, never the caller's objects", async () => {
    const codec = new ValueCodec(new JsonPlusSerializer());
    const plain = { type: "human", content: "hi", meta: { tags: ["a"] } };
    const message = new AIMessage({ content: "yo", id: "m" });
    const list = [plain, message];
    const first = (await codec.toStored(list)) as { json: unknown[] };
    const second = (await codec.toStored([...list])) as { json: unknown[] };
    expect(second.json[0]).toBe(first.json[0]);
    expect(second.json[1]).toBe(first.json[1]);
    for (const json of second.json) {
      expect(Object.isFrozen(json)).toBe(true);
      expect(Object.isFrozen((json as { meta?: object; kwargs?: object }).meta ?? (json as { kwargs: object }).kwargs)).toBe(true);
    }
    expect(Object.isFrozen(plain) || Object.isFrozen(plain.meta) || Object.isFrozen(plain.meta.tags) || Object.isFrozen(message)).toBe(false);
    // The caller's object changed in place is still seen (its frozen JSON is not reused).
    plain.meta.tags.push("b");
    const third = (await codec.toStored(list)) as { json: { meta: { tags: string[] } }[] };
    expect(third.json[0]?.meta.tags).toEqual(["a", "b"]);
  });

  it("takes the items of a list read back and grown from their stored JSON, and sees one changed in place", async () => {
    const codec = new ValueCodec(new JsonPlusSerializer());
    const stored = {
      json: [
        { type: "human", content: "a" },
        { type: "ai", content: "b", meta: { n: 1 } },
        { type: "human", content: "c" },
      ],
    };
    const read = (await codec.revive(stored)) as Record<string, unknown>[];
    expect(read).toEqual(stored.json);
    const grown = (await codec.toStored([...read, { type: "ai", content: "d" }])) as { json: unknown[] };
    for (let i = 0; i < 3; i++) expect(grown.json[i]).toBe(stored.json[i]);
    expect(grown.json[3]).toEqual({ type: "ai", content: "d" });
    (read[1]?.["meta"] as { n: number }).n = 2;
    const again = (await codec.toStored([...read, { type: "ai", content: "d" }])) as { json: unknown[] };
    expect(again.json[0]).toBe(stored.json[0]);
    expect(again.json[1]).toEqual({ type: "ai", content: "b", meta: { n: 2 } });
    expect(stored.json[1]).toEqual({ type: "ai", content: "b", meta: { n: 1 } });
  });

  it("sees an item whose keys changed in place with their count kept, whatever their values", async () => {
    const serde = new JsonPlusSerializer();
    const codec = new ValueCodec(serde);
    const a: Record<string, unknown> = { p: "x", q: 1 };
    const b: Record<string, unknown> = { p: "x", q: 1 };
    const list = [a, b, { other: true }];
    await codec.toStored(list);
    await codec.toStored([...list]);
    // Same number of keys, one of them different, holding undefined or what Object.prototype holds.
    delete a["p"];
    a["r"] = undefined;
    delete b["p"];
    b["constructor"] = Object;
    const stored = (await codec.toStored([...list])) as { json: unknown };
    expect(JSON.stringify(stored.json)).toBe(await serializerText(serde, list));
  });
});
