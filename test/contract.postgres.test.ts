import { runBackendContract } from "./contract/backend-contract.js";
import { runRunStoreContract } from "./contract/run-store-contract.js";
import { postgresStore } from "./support/stores.js";

runBackendContract("postgres", postgresStore);
runRunStoreContract("postgres", postgresStore);
