// The shared backend contract, run against the file backend.
import { runBackendContract } from "./contract/backend-contract.js";
import { runObjectReadContract } from "./contract/object-read-contract.js";
import { runRunStoreContract } from "./contract/run-store-contract.js";
import { runSearchContract } from "./contract/search-contract.js";
import { fileStore } from "./support/stores.js";

runBackendContract("file", fileStore);
runRunStoreContract("file", fileStore);
runSearchContract("file", fileStore);
runObjectReadContract("file", fileStore);
