/**
 * An error about a model directory, a model file or input data, with a message that names the
 * file and what is wrong. Callers (the CLI) print `message` and exit non-zero; no stack dump.
 */
export class ModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ModelError';
  }
}

export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
