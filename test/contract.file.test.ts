// The shared backend contract, run against the file backend.
import { runBackendContract } from "./contract/backend-contract.js";
import { runRunStoreContract } from "./contract/run-store-contract.js";
import { fileStore } from "./support/stores.js";

runBackendContract("file", fileStore);
runRunStoreContract("file", fileStore);
