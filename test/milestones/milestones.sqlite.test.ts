// Milestones and squash on the sqlite backend.
import { sqliteStore } from "../support/stores.js";
import { runMilestoneContract } from "./contract.js";

runMilestoneContract("sqlite", sqliteStore);
