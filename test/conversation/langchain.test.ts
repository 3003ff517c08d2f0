// LangChain messages in and out, checked against @langchain/core itself: real messages'
// toJSON() and stored forms read into the model and written back identical, and what the
// library writes revived by LangChain's own `load` and mapStoredMessagesToChatMessages.
import {
  AIMessage,
  ChatMessage,
  FunctionMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type BaseMessage,
  type StoredMessage,
} from "@langchain/core/messages";
import { load } from "@langchain/core/load";
import { describe, expect, it } from "vitest";
import { fromLangChainMessages, readMessages, toLangChainMessages, toLangChainStoredMessages, toOpenAIMessages, type Message } from "../../src/index.js";
import { rejectsWith } from "../support/errors.js";
import { conversationBench, transcript } from "./support.js";

/** A LangChain conversation with every message class and the fields real model output carries. */
function langchainMessages(): BaseMessage[] {
  return [
    new SystemMessage("You are a weather assistant."),
    new SystemMessage({ content: "Answer in metric units.", additional_kwargs: { __openai_role__: "developer" } }),
    new HumanMessage({
      content: [
        { type: "text", text: "Weather in Paris and Rome?" },
        { type: "image_url", image_url: { url: "https://example.com/map.png" } },
      ],
      name: "alice",
      id: "msg-1",
    }),
    new AIMessage({
      content: "",
      id: "run-1",
      tool_calls: [
        { id: "call_1", name: "weather", args: { city: "Paris" }, type: "tool_call" },
        { id: "call_2", name: "weather", args: { city: "Rome", units: ["c"] }, type: "tool_call" },
      ],
      invalid_tool_calls: [{ id: "call_9", name: "weather", args: '{"city": "Ber', error: "Malformed args.", type: "invalid_tool_call" }],
      additional_kwargs: { refusal: null },
      response_metadata: { model_name: "gpt-4o", finish_reason: "tool_calls" },
      usage_metadata: { input_tokens: 40, output_tokens: 20, total_tokens: 60 },
    }),
    new ToolMessage({ content: '{"temp": 21}', tool_call_id: "call_1", name: "weather", status: "success", artifact: { raw: [21] } }),
    new ToolMessage({ content: [{ type: "text", text: "24 °C" }], tool_call_id: "call_2" }),
    new FunctionMessage({ content: "population 2.1M", name: "lookup" }),
    new AIMessage({ content: "Paris: 21 °C. Rome: 24 °C.", response_metadata: { finish_reason: "stop" } }),
  ];
}

/**
 * The model's transcript without what LangChain cannot hold: content null (it has ""),
 * the text of tool arguments (it has the object only) and broken arguments (which it
 * keeps apart, as invalid_tool_calls).
 */
function langchainSafeTranscript(): Message[] {
  return transcript().map((m) => {
    const out: Message = { ...m, content: m.content ?? "" };
    if (m.toolCalls) {
      out.toolCalls = m.toolCalls
        .filter((c) => c.argumentsText === undefined || Object.keys(c.arguments).length > 0)
        .map(({ argumentsText: _text, ...c }) => c);
    }
    return out;
  });
}

describe("from LangChain", () => {
  it("reads every message class, with tool calls, tool call ids and metadata", () => {
    const msgs = fromLangChainMessages(langchainMessages().map((m) => m.toJSON()));
    expect(msgs.map((m) => m.role)).toEqual(["system", "system", "user", "assistant", "tool", "tool", "tool", "assistant"]);
    expect(msgs[3]).toEqual({
      role: "assistant",
      content: "",
      id: "run-1",
      toolCalls: [
        { id: "call_1", name: "weather", arguments: { city: "Paris" } },
        { id: "call_2", name: "weather", arguments: { city: "Rome", units: ["c"] } },
      ],
      additionalKwargs: { refusal: null },
      extra: {
        invalid_tool_calls: [{ id: "call_9", name: "weather", args: '{"city": "Ber', error: "Malformed args.", type: "invalid_tool_call" }],
        response_metadata: { model_name: "gpt-4o", finish_reason: "tool_calls" },
        usage_metadata: { input_tokens: 40, output_tokens: 20, total_tokens: 60 },
      },
    });
    expect(msgs[4]).toEqual({
      role: "tool",
      content: '{"temp": 21}',
      name: "weather",
      toolCallId: "call_1",
      extra: { status: "success", artifact: { raw: [21] } },
    });
    expect(msgs[6]).toEqual({ role: "tool", content: "population 2.1M", name: "lookup" });
  });

  it("round trip of real serialized messages: toJSON() → model → LangChain gives the same JSON", () => {
    const serialized = langchainMessages().map((m) => m.toJSON());
    expect(toLangChainMessages(fromLangChainMessages(serialized))).toEqual(serialized);
  });

  it("round trip of real stored messages: mapChatMessagesToStoredMessages → model → stored gives the same", () => {
    const stored = mapChatMessagesToStoredMessages(langchainMessages());
    expect(toLangChainStoredMessages(fromLangChainMessages(stored))).toEqual(stored);
  });

  it("round trip through the store: LangChain messages appended, saved, restored, written out identical", async () => {
    const { cs } = await conversationBench();
    const serialized = langchainMessages().map((m) => m.toJSON());
    await cs.append(serialized);
    await cs.save();
    await cs.append(serialized.slice(0, 2));
    await cs.save();
    await cs.restore("#1", { linear: true });
    expect(toLangChainMessages(await cs.messages())).toEqual(serialized);
  });

  it("append takes live LangChain message objects and mixed formats", async () => {
    const { cs } = await conversationBench();
    await cs.append([new HumanMessage("hi"), { role: "assistant", content: "hello" }, { type: "ai", data: { content: "stored form" } }]);
    expect(await cs.messages()).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "assistant", content: "stored form" },
    ]);
  });

  it("reads a ChatMessage whose role is one of ours, and refuses one whose role is not, naming the message", async () => {
    expect(fromLangChainMessages([new ChatMessage({ content: "x", role: "assistant" }).toJSON()])).toEqual([{ role: "assistant", content: "x" }]);
    const { cs } = await conversationBench();
    const msgs = [new HumanMessage("a"), new AIMessage("b"), new HumanMessage("c"), new ChatMessage({ content: "x", role: "critic" })].map((m) => m.toJSON());
    const err = await rejectsWith(cs.append(msgs), "INVALID_ARGUMENT", /^message 3: ChatMessage role "critic" has no counterpart here/);
    expect(err.data).toEqual({ index: 3, field: "kwargs.role" });
    expect(await cs.messages()).toEqual([]);
  });

  it("refuses what is not a message LangChain writes", async () => {
    const { cs } = await conversationBench();
    await rejectsWith(
      cs.append({ lc: 1, type: "constructor", id: ["langchain_core", "messages", "RemoveMessage"], kwargs: { id: "m" } }),
      "INVALID_ARGUMENT",
      /^message 0: "RemoveMessage" is not a LangChain message class/,
    );
    await rejectsWith(cs.append({ type: "tool", data: { content: "x" } }), "INVALID_ARGUMENT", /^message 0: a ToolMessage needs tool_call_id/);
    await rejectsWith(
      cs.append({ type: "ai", data: { content: "", tool_calls: [{ id: "c", name: "f", args: "{}" }] } }),
      "INVALID_ARGUMENT",
      /^message 0: data\.tool_calls\[0\]\.args must be a JSON object/,
    );
  });
});

describe("to LangChain", () => {
  it("what the model writes, LangChain's load revives: classes, tool calls and tool call ids intact", async () => {
    const model = langchainSafeTranscript();
    const revived = await Promise.all(toLangChainMessages(model).map((m) => load<BaseMessage>(JSON.stringify(m))));
    expect(revived.map((m) => m.constructor.name)).toEqual([
      "SystemMessage",
      "SystemMessage",
      "HumanMessage",
      "AIMessage",
      "ToolMessage",
      "ToolMessage",
      "FunctionMessage",
      "AIMessage",
      "ToolMessage",
      "AIMessage",
    ]);
    const ai = revived[3] as AIMessage;
    expect(ai.tool_calls).toEqual([
      { id: "call_1", name: "weather", args: { city: "Paris" }, type: "tool_call" },
      { id: "call_2", name: "weather", args: { city: "Rome", units: ["c"], days: 2 }, type: "tool_call" },
    ]);
    expect((revived[4] as ToolMessage).tool_call_id).toBe("call_1");
    expect(revived[2]?.name).toBe("alice");
    expect(revived[2]?.id).toBe("msg-1");
    expect((revived[9] as AIMessage).usage_metadata).toEqual({ input_tokens: 52, output_tokens: 9, total_tokens: 61 });
    // And LangChain's own serialization of the revived messages reads back to the same model.
    expect(fromLangChainMessages(revived.map((m) => m.toJSON()))).toEqual(model);
  });

  it("what the model writes in stored form, mapStoredMessagesToChatMessages revives, and it reads back the same", () => {
    const model = langchainSafeTranscript();
    // LangChain types `data` as if every message had string content and every optional key; the runtime takes what toDict() writes.
    const revived = mapStoredMessagesToChatMessages(toLangChainStoredMessages(model) as unknown as StoredMessage[]);
    expect((revived[3] as AIMessage).tool_calls?.map((c) => c.id)).toEqual(["call_1", "call_2"]);
    expect(revived.filter((m) => m instanceof ToolMessage).map((m) => (m as ToolMessage).tool_call_id)).toEqual(["call_1", "call_2", "call_3"]);
    expect(fromLangChainMessages(mapChatMessagesToStoredMessages(revived))).toEqual(model);
  });

  it("round trip model → LangChain → model gives the same messages", () => {
    const model = langchainSafeTranscript();
    expect(fromLangChainMessages(toLangChainMessages(model))).toEqual(model);
    expect(fromLangChainMessages(toLangChainStoredMessages(model))).toEqual(model);
  });

  it("tool arguments that are not a JSON object become one of LangChain's invalid tool calls", async () => {
    const [ai] = toLangChainMessages([transcript()[7] as Message]);
    const revived = await load<AIMessage>(JSON.stringify(ai));
    expect(revived.tool_calls).toEqual([{ id: "call_3", name: "search", args: { q: "Paris" }, type: "tool_call" }]);
    expect(revived.invalid_tool_calls).toEqual([
      { id: "call_4", name: "search", args: '{"q": "Rome', error: "the arguments are not a JSON object", type: "invalid_tool_call" },
    ]);
  });

  it("LangChain → model → OpenAI: a developer system message and provider fields carry across", () => {
    const msgs = fromLangChainMessages(langchainMessages().map((m) => m.toJSON()));
    const openai = toOpenAIMessages(msgs);
    expect(openai[1]).toEqual({ role: "developer", content: "Answer in metric units." });
    expect(openai[3]).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Rome","units":["c"]}' } },
      ],
      refusal: null,
    });
    expect(openai[6]).toEqual({ role: "function", content: "population 2.1M", name: "lookup" });
    // And OpenAI's messages read back into the model as LangChain would send them.
    expect(readMessages(openai).map((m) => m.role)).toEqual(msgs.map((m) => m.role));
  });
});
