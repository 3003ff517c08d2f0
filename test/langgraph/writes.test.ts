// ForgeSaver's pending writes: LangGraph's order, the special channels' replace rule,
// writes that arrive before their checkpoint, durability, and values that are not plain JSON.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ERROR, INTERRUPT, uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { checkpointOf, loopMetadata, openSaver, sqliteSaver, threadConfig } from "./support.js";

describe("pending writes", () => {
  it("come back in LangGraph's order: task path, then task id, then index", async () => {
    const { saver } = await sqliteSaver();
    const config = await saver.put(threadConfig("t"), checkpointOf({}, {}), loopMetadata(0), {});
    await saver.putWrites(
      config,
      [
        ["x", "b0"],
        ["y", "b1"],
      ],
      "task-b",
      "~__pregel_pull, b",
    );
    await saver.putWrites(config, [["x", "a0"]], "task-a", "~__pregel_pull, b");
    await saver.putWrites(config, [["x", "input"]], "task-z");
    await saver.putWrites(config, [["x", "pull-a"]], "task-c", "~__pregel_pull, a");
    expect((await saver.getTuple(config))?.pendingWrites).toEqual([
      ["task-z", "x", "input"],
      ["task-c", "x", "pull-a"],
      ["task-a", "x", "a0"],
      ["task-b", "x", "b0"],
      ["task-b", "y", "b1"],
    ]);
  });

  it("a write to a special channel replaces the stored one; a regular one stored already stays", async () => {
    const { saver } = await sqliteSaver();
    const config = await saver.put(threadConfig("t"), checkpointOf({}, {}), loopMetadata(0), {});
    await saver.putWrites(config, [["x", "first"]], "task");
    await saver.putWrites(config, [["x", "second"]], "task");
    await saver.putWrites(config, [[ERROR, "boom"]], "task");
    await saver.putWrites(config, [[ERROR, "boom again"]], "task");
    await saver.putWrites(config, [[INTERRUPT, { value: "ask" }]], "task");
    expect((await saver.getTuple(config))?.pendingWrites).toEqual([
      ["task", INTERRUPT, { value: "ask" }],
      ["task", ERROR, "boom again"],
      ["task", "x", "first"],
    ]);
  });

  it("writes put before their checkpoint's put are kept by it", async () => {
    const { saver } = await sqliteSaver();
    const id = uuid6(-1);
    await saver.putWrites(threadConfig("t", id), [["x", 1]], "early-task");
    // Until the put, there is no checkpoint to read.
    expect(await saver.getTuple(threadConfig("t", id))).toBeUndefined();
    const config = await saver.put(threadConfig("t"), { ...checkpointOf({ x: 0 }, { x: 1 }), id }, loopMetadata(0), { x: 1 });
    await saver.putWrites(config, [["x", 2]], "late-task");
    const tuple = await saver.getTuple(config);
    expect(tuple?.checkpoint.channel_values).toEqual({ x: 0 });
    expect(tuple?.pendingWrites).toEqual([
      ["early-task", "x", 1],
      ["late-task", "x", 2],
    ]);
  });

  it("survive the saver: a new one over the same file reads them", async () => {
    const { saver, url } = await sqliteSaver();
    const config = await saver.put(threadConfig("t"), checkpointOf({ x: 0 }, { x: 1 }), loopMetadata(0), { x: 1 });
    await saver.putWrites(config, [["x", { deep: [1, 2, 3] }]], "task");
    await saver.close();
    const again = await openSaver(url);
    expect((await again.getTuple(threadConfig("t")))?.pendingWrites).toEqual([["task", "x", { deep: [1, 2, 3] }]]);
  });

  it("keep LangChain messages, undefined and Sets as what they were", async () => {
    const { saver, url } = await sqliteSaver();
    const messages = [new HumanMessage({ content: "hi", id: "m1" }), new AIMessage({ content: "hello", id: "m2" })];
    const config = await saver.put(threadConfig("t"), checkpointOf({ messages, tags: new Set(["a", "b"]) }, { messages: 1, tags: 1 }), loopMetadata(0), {
      messages: 1,
      tags: 1,
    });
    await saver.putWrites(
      config,
      [
        ["messages", [new AIMessage({ content: "more", id: "m3" })]],
        ["maybe", undefined],
      ],
      "task",
    );
    await saver.close();
    const tuple = await (await openSaver(url)).getTuple(config);
    const values = tuple?.checkpoint.channel_values as { messages: unknown[]; tags: unknown };
    expect(values.messages.map((m) => m instanceof HumanMessage || m instanceof AIMessage)).toEqual([true, true]);
    expect(values.messages.map((m) => (m as HumanMessage).content)).toEqual(["hi", "hello"]);
    expect(values.tags).toEqual(new Set(["a", "b"]));
    const [[, , more], [, channel, maybe]] = (tuple?.pendingWrites ?? []) as unknown as [unknown[], unknown[]];
    expect((more as AIMessage[])[0]).toBeInstanceOf(AIMessage);
    expect(channel).toBe("maybe");
    expect(maybe).toBeUndefined();
  });

  it("putWrites without a checkpoint_id fails naming the missing field", async () => {
    const { saver } = await sqliteSaver();
    await expect(saver.putWrites(threadConfig("t"), [["x", 1]], "task")).rejects.toThrow(/config\.configurable\.checkpoint_id is missing/);
  });
});
