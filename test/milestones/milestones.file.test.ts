// Milestones and squash on the file backend.
import { fileStore } from "../support/stores.js";
import { runMilestoneContract } from "./contract.js";

runMilestoneContract("file", fileStore);
