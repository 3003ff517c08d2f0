// `forge ui`: the web page over the store — timeline, states, compare, restore.
import { Command } from "commander";
import { run, wholeNumber } from "../command.js";
import { c, printJson, println } from "../output.js";

export function uiCommand(): Command {
  return new Command("ui")
    .description("serve the web page: timelines, states, compare and restore (Ctrl-C stops it)")
    .option("--port <n>", "port to listen on (0: any free one)", wholeNumber, 4500)
    .option("--host <host>", "address to bind (anything but loopback is reachable from other machines)", "127.0.0.1")
    .option("--token <token>", "the token every request must carry (default: a random one; at least 16 characters)")
    .action(
      run(async (ctx, opts: { port: number; host: string; token?: string }) => {
        // The server (hono, its Node adapter, zod) is loaded only here: ~100 ms no other command should pay.
        const { startUi } = await import("../../ui/server.js");
        const ui = await startUi(await ctx.store(), {
          host: opts.host,
          port: opts.port,
          ...(opts.token !== undefined && { token: opts.token }),
          serveHooks: { storeUrl: ctx.global.store ?? null },
        });
        if (ctx.json) printJson({ url: ui.url, host: ui.host, port: ui.port, token: ui.token });
        else {
          println(`Forge UI on ${c.bold(ui.url)}`);
          println(c.dim("open that URL: the token in it lets the page read and restore; share it only with people who may"));
          println(c.dim("Ctrl-C stops it"));
        }
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        });
        await ui.close();
      }),
    );
}
