// Milestones and squash on the memory backend.
import { memoryStore } from "../support/stores.js";
import { runMilestoneContract } from "./contract.js";

runMilestoneContract("memory", memoryStore);
