// The shared backend contract, run against the memory backend.
import { runBackendContract } from "./contract/backend-contract.js";
import { runObjectReadContract } from "./contract/object-read-contract.js";
import { runRunStoreContract } from "./contract/run-store-contract.js";
import { runSearchContract } from "./contract/search-contract.js";
import { memoryStore } from "./support/stores.js";

runBackendContract("memory", memoryStore);
runRunStoreContract("memory", memoryStore);
runSearchContract("memory", memoryStore);
runObjectReadContract("memory", memoryStore);
