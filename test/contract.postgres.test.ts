import { runBackendContract } from "./contract/backend-contract.js";
import { runObjectReadContract } from "./contract/object-read-contract.js";
import { runRunStoreContract } from "./contract/run-store-contract.js";
import { runSearchContract } from "./contract/search-contract.js";
import { postgresStore } from "./support/stores.js";

runBackendContract("postgres", postgresStore);
runRunStoreContract("postgres", postgresStore);
runSearchContract("postgres", postgresStore);
runObjectReadContract("postgres", postgresStore);
