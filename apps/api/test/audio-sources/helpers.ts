import {
  type AudioSourcesConfig,
  type ClosableAudioSources,
  createAudioSources,
} from "../../src/adapters/audio-sources/index.ts";
import type { ApiError } from "../../src/errors.ts";
import { createLogger } from "../../src/logger.ts";
import { isAnswerable, toApiError } from "../../src/services/failures/source-failures.ts";

/** `create`, remembering what it makes so that `closeAll` closes it all (in an `afterEach` or `afterAll`). */
export function closing<Args extends unknown[], Made extends { close(): Promise<void> }>(
  create: (...args: Args) => Made,
): ((...args: Args) => Made) & { closeAll(): Promise<void> } {
  const opened: Made[] = [];
  const open = (...args: Args): Made => {
    const made = create(...args);
    opened.push(made);
    return made;
  };
  return Object.assign(open, {
    async closeAll(): Promise<void> {
      await Promise.all(opened.splice(0).map((made) => made.close()));
    },
  });
}

/** Audio sources against the loopback fake podcast host: private targets allowed, logs silent. */
export function testAudioSources(config: Partial<AudioSourcesConfig> = {}): ClosableAudioSources {
  return createAudioSources({ allowPrivateTargets: true, logger: createLogger("silent"), ...config });
}

/** The `ApiError` `promise`'s rejection answers; throws when it resolves or rejects with anything else. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isAnswerable(error)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return toApiError(error);
}
