// How long-running library work reports progress: a callback the CLI turns into a bar.

export interface ProgressEvent {
  /** What is being done: "verifying objects", "marking", … */
  readonly phase: string;
  readonly done: number;
  readonly total: number;
}

export type ProgressListener = (event: ProgressEvent) => void;
