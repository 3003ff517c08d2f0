// Milestones and squash on the postgres backend.
import { postgresStore } from "../support/stores.js";
import { runMilestoneContract } from "./contract.js";

runMilestoneContract("postgres", postgresStore);
