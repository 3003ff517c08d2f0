// Asserting on Forge's coded errors.
import { expect } from "vitest";
import { ForgeError, type ForgeErrorCode } from "../../src/index.js";

/** Awaits `promise`, expects it to reject with a ForgeError of `code` (and a message matching `message`), and returns that error. */
export async function rejectsWith(promise: Promise<unknown>, code: ForgeErrorCode, message?: RegExp): Promise<ForgeError> {
  const outcome = await promise.then(
    (value: unknown) => ({ settled: "resolved" as const, value }),
    (error: unknown) => ({ settled: "rejected" as const, error }),
  );
  if (outcome.settled === "resolved") {
    throw new Error(`expected a ForgeError with code ${code}, but the call succeeded with ${JSON.stringify(outcome.value)?.slice(0, 200)}`);
  }
  expect(outcome.error, `expected a ForgeError with code ${code}`).toBeInstanceOf(ForgeError);
  const error = outcome.error as ForgeError;
  expect(error.code, error.message).toBe(code);
  if (message) expect(error.message).toMatch(message);
  return error;
}
