import { runBackendContract } from "./contract/backend-contract.js";
import { postgresStore } from "./support/stores.js";

runBackendContract("postgres", postgresStore);
