// OpenAI chat-completions messages in and out: a round trip either way gives the same
// messages back, legacy roles included, and bad input names the message and the field.
import { describe, expect, it } from "vitest";
import { fromOpenAIMessages, readMessages, toOpenAIMessages, type Message, type OpenAIMessage } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { conversationBench, transcript } from "./support.js";

/** A chat-completions transcript as an app sends it, with the fields real responses carry. */
function openaiTranscript(): OpenAIMessage[] {
  return [
    { role: "system", content: "You are a weather assistant." },
    { role: "developer", content: "Answer in metric units." },
    {
      role: "user",
      name: "alice",
      content: [
        { type: "text", text: "Weather in Paris and Rome?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      refusal: null,
      annotations: [],
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "function", function: { name: "weather", arguments: '{\n  "city": "Rome"\n}' } },
        { id: "call_3", type: "function", function: { name: "weather", arguments: '{"city": "Ber' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: '{"temp": 21}' },
    { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "24 °C" }] },
    { role: "tool", tool_call_id: "call_3", content: "error: bad arguments" },
    { role: "assistant", content: null, function_call: { name: "lookup", arguments: '{"q":"Paris"}' } },
    { role: "function", name: "lookup", content: "population 2.1M" },
    { role: "assistant", content: "Paris: 21 °C. Rome: 24 °C.", audio: { id: "audio_1" } },
  ];
}

describe("from OpenAI", () => {
  it("reads every role into the model: developer as system, function as a tool result without a call id", () => {
    const msgs = fromOpenAIMessages(openaiTranscript());
    expect(msgs.map((m) => [m.role, m.toolCallId ?? null, m.name ?? null])).toEqual([
      ["system", null, null],
      ["system", null, null],
      ["user", null, "alice"],
      ["assistant", null, null],
      ["tool", "call_1", null],
      ["tool", "call_2", null],
      ["tool", "call_3", null],
      ["assistant", null, null],
      ["tool", null, "lookup"],
      ["assistant", null, null],
    ]);
    expect(msgs[1]?.additionalKwargs).toEqual({ __openai_role__: "developer" });
    expect(msgs[3]?.content).toBeNull();
    expect(msgs[3]?.additionalKwargs).toEqual({ refusal: null, annotations: [] });
    expect(msgs[7]?.additionalKwargs).toEqual({ function_call: { name: "lookup", arguments: '{"q":"Paris"}' } });
  });

  it("parses tool-call arguments into objects, keeping the text only when it is not how JSON.stringify writes them", () => {
    const calls = fromOpenAIMessages(openaiTranscript())[3]?.toolCalls;
    expect(calls).toEqual([
      { id: "call_1", name: "weather", arguments: { city: "Paris" } },
      { id: "call_2", name: "weather", arguments: { city: "Rome" }, argumentsText: '{\n  "city": "Rome"\n}' },
      { id: "call_3", name: "weather", arguments: {}, argumentsText: '{"city": "Ber' },
    ]);
  });

  it("round trip OpenAI → model → OpenAI gives the same messages", () => {
    const original = openaiTranscript();
    expect(toOpenAIMessages(fromOpenAIMessages(original))).toEqual(original);
  });

  it("round trip OpenAI → store → OpenAI gives the same messages", async () => {
    const { cs, reopen } = await conversationBench();
    const original = openaiTranscript();
    await cs.append(original, { format: "openai" });
    await cs.save();
    await cs.append({ role: "user", content: "and tomorrow?" });
    await cs.restore("Checkpoint 1");
    const { cs: other } = await reopen();
    expect(toOpenAIMessages(await other.messages())).toEqual(original);
  });

  it("round trip model → OpenAI → model gives the same messages (LangChain-only fields and ids aside)", () => {
    const model: Message[] = transcript().map(({ extra: _extra, id: _id, ...m }) => m);
    expect(fromOpenAIMessages(toOpenAIMessages(model))).toEqual(model);
  });

  it("writes the model's messages as OpenAI expects them", () => {
    const out = toOpenAIMessages(transcript());
    expect(out[1]).toEqual({ role: "developer", content: "Answer in metric units." });
    expect(out[3]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Rome","units":["c"],"days":2}' } },
      ],
      refusal: null,
    });
    expect(out[4]).toEqual({ role: "tool", content: '{"temp": 21}', name: "weather", tool_call_id: "call_1" });
    expect(out[6]).toEqual({ role: "function", content: "population 2.1M", name: "lookup" });
    expect(out[7]?.tool_calls?.map((c) => c.function.arguments)).toEqual(['{ "q": "Paris" }', '{"q": "Rome']);
    // LangChain's metadata and message ids have no place in an OpenAI message.
    expect(out[9]).toEqual({ role: "assistant", content: "Paris: 21 °C. Rome: 24 °C." });
  });

  it("detects OpenAI messages among others without being told", () => {
    const msgs = readMessages([
      { role: "user", content: "hi" },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "developer", content: "be brief" },
    ]);
    expect(msgs).toEqual([
      { role: "user", content: "hi" },
      { role: "tool", content: "ok", toolCallId: "c1" },
      { role: "system", content: "be brief", additionalKwargs: { __openai_role__: "developer" } },
    ]);
  });
});

describe("bad OpenAI messages", () => {
  const good = openaiTranscript().slice(0, 3);

  it("a bad role at index 3 says message 3 and writes nothing", async () => {
    const { cs } = await conversationBench();
    const err = await rejectsWith(
      cs.append([...good, { role: "robot", content: "beep" }], { format: "openai" }),
      "INVALID_ARGUMENT",
      /^message 3: role "robot" is not one of/,
    );
    expect(err.data).toEqual({ index: 3, field: "role" });
    expect(await cs.messages()).toEqual([]);
  });

  it("names the field that is wrong", async () => {
    const { cs } = await conversationBench();
    const bad: [unknown, RegExp][] = [
      [{ role: "tool", content: "x" }, /^message 0: a tool message needs tool_call_id/],
      [{ role: "function", content: "x" }, /^message 0: a function message needs the name/],
      [{ role: "user", content: null }, /^message 0: content must be a string or a list of content parts, not null/],
      [{ role: "user", content: [{ text: "no type" }] }, /^message 0: content\[0\] must be a content part/],
      [
        { role: "assistant", content: "", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: { a: 1 } } }] },
        /^message 0: tool_calls\[0\]\.function\.arguments must be a string, not an object/,
      ],
      [
        { role: "assistant", content: "", tool_calls: [{ id: "c", type: "custom", custom: { name: "f", input: "x" } }] },
        /^message 0: tool_calls\[0\] is of type "custom"; only "function" tool calls are supported/,
      ],
      [{ role: "user", content: "x", tool_call_id: "c" }, /^message 0: tool_call_id belongs to tool messages, not user messages/],
    ];
    for (const [message, error] of bad) await rejectsWith(cs.append(message, { format: "openai" }), "INVALID_ARGUMENT", error);
    expect(await cs.messages()).toEqual([]);
  });
});
