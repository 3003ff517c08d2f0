// The shared backend contract, run against the sqlite backend.
import { runBackendContract } from "./contract/backend-contract.js";
import { runObjectReadContract } from "./contract/object-read-contract.js";
import { runRunStoreContract } from "./contract/run-store-contract.js";
import { runSearchContract } from "./contract/search-contract.js";
import { sqliteStore } from "./support/stores.js";

runBackendContract("sqlite", sqliteStore);
runRunStoreContract("sqlite", sqliteStore);
runSearchContract("sqlite", sqliteStore);
runObjectReadContract("sqlite", sqliteStore);
