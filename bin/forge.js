#!/usr/bin/env node
// The `forge` command: runs the compiled CLI (npm install builds dist/ through `prepare`).
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv);
