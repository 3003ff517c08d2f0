// The shared backend contract, run against the file backend.
import { runBackendContract } from "./contract/backend-contract.js";
import { fileStore } from "./support/stores.js";

runBackendContract("file", fileStore);
