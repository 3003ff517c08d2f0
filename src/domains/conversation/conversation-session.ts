// A conversation session: the messages of a chat — every role, tool calls and tool results
// intact — kept as a session's working state so every process sees them, with the
// time-travel app's checkpoint manager over it: save, restore (branching, or linear:
// the future discarded), list, get, latest, delete, clear, export and import.
import { CheckpointNotFoundError, ForgeError, InvalidArgumentError } from "../../core/errors.js";
import { DEFAULT_SESSION } from "../../core/config.js";
import type { Session } from "../../timeline/session.js";
import type { SetWorkingResult, WriteFacts } from "../../timeline/types.js";
import type { Store } from "../../timeline/store.js";
import type { Checkpoint, CheckpointOptions, RestoreResult } from "../../timeline/types.js";
import { DOCUMENT_FORMAT, DOCUMENT_VERSION, type ConversationDocument, type ExportedCheckpoint } from "./document.js";
import { writeImportedSession } from "./import.js";
import { readMessages, type InputFormat } from "./interchange.js";
import { CONVERSATION_SESSION_KIND, conversationState, isConversationState, toConversationState, type Message } from "./model.js";

/** A checkpoint of a conversation, with what `save` recorded about it. */
export interface ConversationCheckpoint extends Checkpoint {
  /** The name it was saved under: "Checkpoint N" unless one was given. */
  readonly name: string;
  readonly description: string;
  /** How many messages it holds; null for a checkpoint not made by a conversation save. */
  readonly messageCount: number | null;
}

export interface ConversationSaveOptions {
  readonly description?: string;
  readonly tags?: readonly string[];
}

export interface AppendOptions {
  /** The format of the messages given ("auto", the default, detects each message's). */
  readonly format?: InputFormat;
}

export interface AppendResult {
  /** The messages added, as stored. */
  readonly appended: Message[];
  /** How many messages the conversation holds now. */
  readonly count: number;
  /** The working state's version after the write. */
  readonly version: number;
}

export interface ConversationRestoreOptions {
  /**
   * The linear model: checkpoints made after the target on its branch are deleted.
   * Without it (the default) they stay on their branch, and the next save starts a new one.
   */
  readonly linear?: boolean;
}

export interface ConversationRestoreResult {
  readonly checkpoint: ConversationCheckpoint;
  /** The messages the conversation holds again. */
  readonly messages: Message[];
  /** Checkpoints a linear restore deleted, oldest first. */
  readonly discarded: ConversationCheckpoint[];
  readonly head: RestoreResult["head"];
}

export interface SavedConversation {
  readonly checkpoint: ConversationCheckpoint;
  readonly messages: Message[];
}

export interface ConversationImportOptions {
  /** The new session's name (default: the session name in the document). */
  readonly as?: string;
  /** For a plain list of messages: their format (default "auto"). */
  readonly format?: InputFormat;
}

export interface ConversationImportResult {
  readonly session: ConversationSession;
  readonly checkpoints: number;
  readonly messages: number;
}

const MAX_ATTEMPTS = 12;

export class ConversationSession {
  readonly session: Session;
  readonly #store: Store;

  private constructor(store: Store, session: Session) {
    this.#store = store;
    this.session = session;
  }

  /**
   * Opens the conversation session `name`, starting it if there is none. A session of
   * another kind (a reasoning session, a run) is refused.
   */
  static async open(store: Store, name: string = DEFAULT_SESSION): Promise<ConversationSession> {
    const cs = new ConversationSession(store, await store.session(name, { kind: CONVERSATION_SESSION_KIND }));
    await cs.#checkKind();
    return cs;
  }

  /**
   * Opens the existing conversation session `name` (SESSION_NOT_FOUND if there is none): what
   * reads use, so that looking never creates a session. A session of another kind is refused.
   */
  static async openExisting(store: Store, name: string = DEFAULT_SESSION): Promise<ConversationSession> {
    let session: Session;
    try {
      session = await store.getSession(name);
    } catch (e) {
      if (!(e instanceof ForgeError && e.code === "SESSION_NOT_FOUND")) throw e;
      throw new ForgeError("SESSION_NOT_FOUND", `no conversation named "${name}"`, {
        hint: "`forge chat new NAME` starts one; `forge session list` lists the sessions",
        cause: e,
      });
    }
    const cs = new ConversationSession(store, session);
    await cs.#checkKind();
    return cs;
  }

  /** Starts a new conversation session (SESSION_EXISTS if the name is taken), optionally with messages. */
  static async create(store: Store, name: string, options: { messages?: readonly unknown[]; format?: InputFormat } = {}): Promise<ConversationSession> {
    const first = options.messages === undefined ? [] : readMessages(options.messages, options.format);
    let session: Session;
    try {
      session = await store.createSession(name, { kind: CONVERSATION_SESSION_KIND });
    } catch (e) {
      if (!(e instanceof ForgeError && e.code === "SESSION_EXISTS")) throw e;
      throw new ForgeError("SESSION_EXISTS", `session "${name}" already exists`, { hint: "pick another name, or work in it with --session NAME", cause: e });
    }
    const cs = new ConversationSession(store, session);
    if (first.length > 0) await cs.#mutate(() => first);
    return cs;
  }

  /**
   * Imports an export document (see `export`), or a plain list of messages in any
   * supported format, as a NEW session — named `as`, else as in the document. It never
   * replaces or merges: a session of that name already in the store is IMPORT_CONFLICT.
   * Everything is checked before anything is written, and the session with all its
   * checkpoints, branches, HEAD and messages is written in one transaction.
   */
  static async import(store: Store, input: unknown, options: ConversationImportOptions = {}): Promise<ConversationImportResult> {
    let doc: ConversationDocument;
    if (Array.isArray(input)) {
      if (options.as === undefined)
        throw new InvalidArgumentError("a plain list of messages has no session name", "say which session to create (as / --as NAME)");
      const messages = readMessages(input, options.format);
      doc = {
        format: DOCUMENT_FORMAT,
        version: DOCUMENT_VERSION,
        session: options.as,
        exportedAt: "",
        messages,
        head: { branch: "main", checkpoint: null },
        branches: [],
        checkpoints: [],
      };
    } else {
      // Loaded on demand: document checking needs zod, which most commands do not.
      const { parseDocument } = await import("./document-schema.js");
      doc = parseDocument(input);
    }
    const name = options.as ?? doc.session;
    await writeImportedSession(store, doc, name);
    return { session: await ConversationSession.open(store, name), checkpoints: doc.checkpoints.length, messages: doc.messages.length };
  }

  get name(): string {
    return this.session.name;
  }

  async #checkKind(): Promise<void> {
    const info = await this.session.info();
    if (info.kind === CONVERSATION_SESSION_KIND) return;
    // A generic session (made by `forge checkpoint …` before anything else) may hold a conversation.
    if (info.kind === "generic") {
      const working = await this.session.working();
      if (working === undefined || isConversationState(working.state)) return;
      throw new ForgeError("INVALID_ARGUMENT", `session "${this.name}" holds a state that is not a conversation`, {
        hint: "choose another session with --session NAME (or FORGE_SESSION); `forge chat new NAME` starts one",
      });
    }
    throw new ForgeError("INVALID_ARGUMENT", `session "${this.name}" is a ${info.kind} session, not a conversation`, {
      hint: "choose another session with --session NAME (or FORGE_SESSION); `forge chat new NAME` starts one",
    });
  }

  /** The working state: messages and the version they were read at. */
  async #load(): Promise<{ messages: Message[]; version: number }> {
    const working = await this.session.working();
    if (!working) return { messages: [], version: await this.session.workVersion() };
    return { messages: toConversationState(working.state, this.name).messages, version: working.version };
  }

  /**
   * Read-modify-write of the messages: if another process wrote in between (CONFLICT), it
   * starts again from that process's messages, so no write is lost. `checkpoint`, asked
   * inside the write's transaction, may make the write a checkpoint as well.
   */
  async #mutate(
    next: (current: Message[]) => Message[],
    checkpoint?: (messages: Message[], facts: WriteFacts) => CheckpointOptions,
  ): Promise<{ result: SetWorkingResult; messages: Message[] }> {
    for (let attempt = 1; ; attempt++) {
      const { messages, version } = await this.#load();
      const after = next(messages);
      try {
        const result = await this.session.setWorking(conversationState(after), {
          expectedVersion: version,
          ...(checkpoint !== undefined && { checkpoint: (facts: WriteFacts) => checkpoint(after, facts) }),
        });
        return { result, messages: after };
      } catch (e) {
        if (!(e instanceof ForgeError && e.code === "CONFLICT") || attempt >= MAX_ATTEMPTS) throw e;
        // Back off a random while, growing, so two writers stop colliding in lockstep.
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** attempt)));
      }
    }
  }

  /** The messages the conversation holds now (saved or not). */
  async messages(): Promise<Message[]> {
    return (await this.#load()).messages;
  }

  /**
   * Adds one message or a list, in the model's shape, OpenAI's or LangChain's (detected per
   * message unless `format` says). All are checked before anything is written; concurrent
   * appends from other processes are kept, in the order they commit.
   */
  async append(input: unknown, options: AppendOptions = {}): Promise<AppendResult> {
    const incoming = readMessages(Array.isArray(input) ? input : [input], options.format);
    const { result, messages } = await this.#mutate((current) => [...current, ...incoming]);
    return { appended: structuredClone(incoming), count: messages.length, version: result.version };
  }

  /** Replaces all messages (an app that holds the whole list, such as a LangGraph state). */
  async replace(input: readonly unknown[], options: AppendOptions = {}): Promise<AppendResult> {
    const incoming = readMessages(input, options.format);
    const { result, messages } = await this.#mutate(() => incoming);
    return { appended: structuredClone(incoming), count: messages.length, version: result.version };
  }

  /**
   * Saves the messages as a checkpoint named `name`, or "Checkpoint N" where N − 1 is how many
   * checkpoints this session has had (deleted ones included, so a name is never reused and
   * matches the checkpoint's #N: the name is made inside the write's transaction, from the
   * seq the checkpoint gets). Metadata: name, description, messageCount.
   */
  async save(name?: string, options: ConversationSaveOptions = {}): Promise<ConversationCheckpoint> {
    const given = name?.trim();
    if (name !== undefined && !given) throw new InvalidArgumentError("a checkpoint name must not be empty");
    const description = options.description ?? "";
    if (typeof description !== "string") throw new InvalidArgumentError("a description must be a string");
    const { result } = await this.#mutate(
      (current) => current,
      (messages, facts) => {
        const label = given ?? `Checkpoint ${facts.nextSeq}`;
        return { message: label, tags: options.tags ?? [], trigger: "manual", metadata: { name: label, description, messageCount: messages.length } };
      },
    );
    return toConversationCheckpoint(result.checkpoint as Checkpoint);
  }

  /**
   * The checkpoint `ref` names: a checkpoint's name (as `list` shows it), else any ref of
   * this session (`#3`, `HEAD~1`, an id prefix, a branch, `tag:NAME`).
   */
  async #resolve(ref: string): Promise<Checkpoint> {
    const named = (await this.session.list()).filter((cp) => nameOf(cp) === ref);
    if (named.length === 1) return named[0] as Checkpoint;
    if (named.length > 1) {
      throw new ForgeError("AMBIGUOUS_REF", `"${ref}" names ${named.length} checkpoints: ${named.map((c) => `#${c.seq}`).join(", ")}`, {
        hint: "name one by its #SEQ",
        data: { ref, candidates: named.map((c) => c.id) },
      });
    }
    let cp: Checkpoint;
    try {
      cp = await this.session.get(ref);
    } catch (e) {
      if (e instanceof ForgeError && e.code === "CHECKPOINT_NOT_FOUND")
        throw new CheckpointNotFoundError(ref, "run `forge chat list` to see the saved checkpoints");
      throw e;
    }
    if (cp.sessionId !== this.session.id) {
      throw new ForgeError("INVALID_REF", `checkpoint ${cp.id} belongs to another session, not "${this.name}"`, {
        hint: "run `forge chat list` to see this session's checkpoints",
      });
    }
    return cp;
  }

  async #messagesOf(cp: Checkpoint): Promise<Message[]> {
    return toConversationState(await this.session.state(cp.id), this.name).messages;
  }

  /**
   * Makes a checkpoint's messages the conversation's again. Branching by default: HEAD
   * moves there, later checkpoints stay on their branch, and the next save starts a new
   * branch. With `linear`, the checkpoints after it on its branch are deleted.
   */
  async restore(ref: string, options: ConversationRestoreOptions = {}): Promise<ConversationRestoreResult> {
    const target = await this.#resolve(ref);
    const messages = await this.#messagesOf(target); // a state that is not a conversation fails before HEAD moves
    const r = await this.session.restore(target.id, { discardFuture: options.linear === true });
    return { checkpoint: toConversationCheckpoint(r.checkpoint), messages, discarded: r.discarded.map(toConversationCheckpoint), head: r.head };
  }

  /** Every checkpoint of the conversation, oldest first, on every branch. */
  async list(): Promise<ConversationCheckpoint[]> {
    return (await this.session.list()).map(toConversationCheckpoint);
  }

  /** A checkpoint and its messages, without moving HEAD. */
  async get(ref: string): Promise<SavedConversation> {
    const cp = await this.#resolve(ref);
    return { checkpoint: toConversationCheckpoint(cp), messages: await this.#messagesOf(cp) };
  }

  /** The checkpoint saved last (on any branch) and its messages; undefined before the first save. */
  async latest(): Promise<SavedConversation | undefined> {
    const [cp] = await this.session.list({ order: "desc", limit: 1 });
    return cp === undefined ? undefined : { checkpoint: toConversationCheckpoint(cp), messages: await this.#messagesOf(cp) };
  }

  /**
   * Deletes checkpoints. A deleted checkpoint's children are re-linked to its parent and
   * branch heads move back; the messages the conversation holds now do not change.
   */
  async delete(refs: string | readonly string[]): Promise<ConversationCheckpoint[]> {
    const targets: Checkpoint[] = [];
    for (const ref of typeof refs === "string" ? [refs] : refs) targets.push(await this.#resolve(ref));
    return (await this.session.deleteCheckpoints(targets.map((c) => c.id))).map(toConversationCheckpoint);
  }

  /** Deletes every checkpoint and empties the conversation. */
  async clear(): Promise<{ deleted: ConversationCheckpoint[]; messages: number }> {
    const all = await this.session.list();
    const deleted = (await this.session.deleteCheckpoints(all.map((c) => c.id))).map(toConversationCheckpoint);
    let emptied = 0;
    await this.#mutate((current) => {
      emptied = current.length;
      return [];
    });
    return { deleted, messages: emptied };
  }

  /** The whole conversation as a versioned JSON document (`import` reads it back). */
  async export(): Promise<ConversationDocument> {
    const t = await this.session.timeline();
    const checkpoints: ExportedCheckpoint[] = [];
    for (const cp of t.checkpoints) {
      const d = toConversationCheckpoint(cp);
      const messages = await this.#messagesOf(cp);
      checkpoints.push({
        id: cp.id,
        seq: cp.seq,
        parent: cp.parentId,
        branch: cp.branch,
        name: d.name,
        description: d.description,
        tags: [...cp.tags],
        trigger: cp.trigger,
        createdAt: cp.createdAt.toISOString(),
        messageCount: messages.length,
        messages,
      });
    }
    return {
      format: DOCUMENT_FORMAT,
      version: DOCUMENT_VERSION,
      session: this.name,
      exportedAt: new Date(this.#store.clock.now()).toISOString(),
      messages: await this.messages(),
      head: { branch: t.head.branch, checkpoint: t.head.branch === null ? t.head.checkpointId : null },
      branches: t.branches.map((b) => ({ name: b.name, checkpoint: b.headId })),
      checkpoints,
    };
  }
}

/** A checkpoint's name: the one saved in its metadata, else its message, else #SEQ. */
function nameOf(cp: Checkpoint): string {
  const n = cp.metadata["name"];
  return typeof n === "string" && n !== "" ? n : cp.message || `#${cp.seq}`;
}

function toConversationCheckpoint(cp: Checkpoint): ConversationCheckpoint {
  const { description, messageCount } = cp.metadata;
  return {
    ...cp,
    name: nameOf(cp),
    description: typeof description === "string" ? description : "",
    messageCount: typeof messageCount === "number" ? messageCount : null,
  };
}
