// `forge search <query>`: full-text search over every checkpoint — reasoning, conversations,
// run values, messages and the text files of snapshots — with --first/--last, filters by
// session, kind and time, and --reindex (a progress bar while it runs).
import { Command } from "commander";
import { plural } from "../../core/text.js";
import type { SearchHitJson } from "../../operations/search/search.js";
import { run, wholeNumber } from "../command.js";
import { UsageError } from "../context.js";
import { ago, c, printJson, println, shortId } from "../output.js";

const ops = () => import("../../operations/search/search.js");

interface SearchOptions {
  first?: boolean;
  last?: boolean;
  kind?: string;
  since?: string;
  until?: string;
  limit?: number;
  reindex?: boolean;
}

/** `forge search [query...]` and its options. */
export function searchCommand(): Command {
  return new Command("search")
    .description('find text anywhere in history: words (ANDed; 3+ letters match longer words they start) and "quoted phrases"')
    .argument("[query...]", "what to find, e.g. ECONNRESET, pool exhausted, or '\"tensor shape mismatch\"'")
    .option("--first", "where the text first appeared (earliest first)")
    .option("--last", "where the text was last (latest first)")
    .option("--kind <kinds>", "only these kinds, comma-separated: reasoning, conversation, files, runs, messages, …")
    .option("--since <time>", 'only checkpoints at or after this time ("2 hours ago", "yesterday", ISO)')
    .option("--until <time>", "only checkpoints at or before this time")
    .option("--limit <n>", "at most this many hits", wholeNumber, 20)
    .option("--reindex", "rebuild the search index from scratch first")
    .addHelpText("after", "\n--session S searches one session only (by default every session).")
    .action(
      run(async (ctx, words: string[], opts: SearchOptions) => {
        const query = words.join(" ").trim();
        if (query === "" && !opts.reindex) throw new UsageError("give something to search for (or --reindex)");
        if (opts.first && opts.last) throw new UsageError("--first and --last cannot be used together");
        if (opts.limit !== undefined && (opts.limit < 1 || opts.limit > 1000)) throw new UsageError("--limit takes a number from 1 to 1000");
        const session = ctx.global.session;
        const r = await ctx.call((await ops()).searchOperation, {
          first: opts.first === true,
          last: opts.last === true,
          limit: opts.limit ?? 20,
          reindex: opts.reindex === true,
          ...(query !== "" && { query }),
          ...(session !== undefined && { session }),
          ...(opts.kind !== undefined && { kind: opts.kind }),
          ...(opts.since !== undefined && { since: opts.since }),
          ...(opts.until !== undefined && { until: opts.until }),
        });
        if (ctx.json) return printJson(r);
        if (r.index)
          println(c.dim(`indexed ${plural(r.index.checkpoints, "checkpoint")}: ${plural(r.index.docs, "document")}, ${plural(r.index.postings, "posting")}`));
        if (r.query === null) return;
        if (r.results.length === 0) return println("no matches");
        for (const hit of r.results) printHit(hit);
      }),
    );
}

/** `debug #3  01JD8X2K4M  2h ago  reasoning  hypotheses[0].statement`, the snippet, and the checkpoints that held it. */
function printHit(hit: SearchHitJson): void {
  const cp = hit.checkpoint;
  println(`${c.cyan(cp.session)} ${c.bold(`#${cp.seq}`)}  ${c.yellow(shortId(cp.id))}  ${c.dim(ago(cp.time))}  ${c.magenta(hit.kind)}  ${hit.where}`);
  println(`    ${highlight(hit.snippet, hit.highlights)}`);
  const span =
    hit.first.id === hit.last.id ? `only in #${hit.first.seq}` : `from #${hit.first.seq} (${ago(hit.first.time)}) to #${hit.last.seq} (${ago(hit.last.time)})`;
  println(c.dim(`    ${span}`));
}

function highlight(text: string, ranges: readonly (readonly [number, number])[]): string {
  let out = "";
  let at = 0;
  for (const [a, b] of ranges) {
    if (a < at) continue;
    out += text.slice(at, a) + c.bold(c.yellow(text.slice(a, b)));
    at = b;
  }
  return out + text.slice(at);
}
