// Shared set-up for the conversation tests: a conversation session on a real SQLite file
// in a temp folder, driven by a ManualClock, and a transcript with every kind of message.
// Everything opened here is closed and removed when the calling test finishes.
import { onTestFinished } from "vitest";
import { ConversationSession, ManualClock, openStore, type Message, type Store } from "../../src/index.js";
import { makeTempDir, type TempDir } from "../support/temp.js";

export const MINUTE = 60_000;
/** 2025-01-20 09:00:00 UTC. */
export const T0 = Date.UTC(2025, 0, 20, 9, 0, 0);

export interface Bench {
  readonly dir: TempDir;
  readonly url: string;
  readonly clock: ManualClock;
  readonly store: Store;
  readonly cs: ConversationSession;
  /** Another handle on the same SQLite file (as a second process would have), same clock. */
  reopen(): Promise<{ store: Store; cs: ConversationSession }>;
}

/** A conversation session `name` in a new SQLite store under a temp folder, with a ManualClock at T0. */
export async function conversationBench(name = "chat"): Promise<Bench> {
  const dir = makeTempDir("conversation");
  const url = `sqlite:${dir.path}/forge.db`;
  const clock = new ManualClock(T0);
  const stores: Store[] = [];
  onTestFinished(async () => {
    for (const s of stores.reverse()) await s.close();
    dir.remove();
  });
  const store = await openStore(url, { clock });
  stores.push(store);
  const cs = await ConversationSession.open(store, name);
  return {
    dir,
    url,
    clock,
    store,
    cs,
    reopen: async () => {
      const other = await openStore(url, { clock });
      stores.push(other);
      return { store: other, cs: await ConversationSession.open(other, name) };
    },
  };
}

/**
 * A conversation with every kind of message: system (and a developer one), a user message
 * of several parts with a name and an id, an assistant calling two tools at once, both
 * answers (one of them in parts), a legacy function result, an assistant whose tool
 * arguments were written with spaces and one whose arguments are broken JSON, and an
 * answer carrying LangChain's metadata.
 */
export function transcript(): Message[] {
  return [
    { role: "system", content: "You are a weather assistant." },
    { role: "system", content: "Answer in metric units.", additionalKwargs: { __openai_role__: "developer" } },
    {
      role: "user",
      content: [
        { type: "text", text: "Weather in Paris and Rome?" },
        { type: "image_url", image_url: { url: "https://example.com/map.png", detail: "low" } },
      ],
      name: "alice",
      id: "msg-1",
    },
    {
      role: "assistant",
      content: null,
      toolCalls: [
        { id: "call_1", name: "weather", arguments: { city: "Paris" } },
        { id: "call_2", name: "weather", arguments: { city: "Rome", units: ["c"], days: 2 } },
      ],
      additionalKwargs: { refusal: null },
    },
    { role: "tool", content: '{"temp": 21}', toolCallId: "call_1", name: "weather" },
    { role: "tool", content: [{ type: "text", text: "24 °C" }], toolCallId: "call_2" },
    { role: "tool", content: "population 2.1M", name: "lookup" },
    {
      role: "assistant",
      content: "",
      toolCalls: [
        { id: "call_3", name: "search", arguments: { q: "Paris" }, argumentsText: '{ "q": "Paris" }' },
        { id: "call_4", name: "search", arguments: {}, argumentsText: '{"q": "Rome' },
      ],
    },
    { role: "tool", content: "results…", toolCallId: "call_3" },
    {
      role: "assistant",
      content: "Paris: 21 °C. Rome: 24 °C.",
      id: "msg-2",
      extra: { response_metadata: { model_name: "gpt-4o" }, usage_metadata: { input_tokens: 52, output_tokens: 9, total_tokens: 61 } },
    },
  ];
}

/** A promise and the function that settles it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
