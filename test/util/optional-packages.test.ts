import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isAkashicError } from '../../src/errors.js';
import { HTTP_SERVICE, OPTIONAL_FEATURES, REDIS_BACKEND, importFeature, installCommand, type OptionalFeature } from '../../src/util/optional-packages.js';

const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

/** A package that is not installed; imported through a variable so the import really runs. */
const ABSENT = 'akashic-absent-package-for-a-test';
const ABSENT_FEATURE: OptionalFeature = { name: 'a feature under test', packages: { [ABSENT]: '^1.2.0' } };

describe('optional packages of the server features', () => {
  it('each is an optional peer dependency with the range the error message gives, and no dependency', () => {
    for (const feature of OPTIONAL_FEATURES) {
      for (const [name, range] of Object.entries(feature.packages)) {
        expect(pkg.peerDependencies[name], name).toBe(range);
        expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
        expect(pkg.dependencies[name], name).toBeUndefined();
      }
    }
  });

  it('the install command names every package of the feature with its range', () => {
    expect(installCommand(REDIS_BACKEND)).toBe('npm install ioredis@^6.0.0');
    const command = installCommand(HTTP_SERVICE);
    for (const [name, range] of Object.entries(HTTP_SERVICE.packages)) expect(command).toContain(`${name}@${range}`);
  });

  it('a missing package becomes AKASHIC_MISSING_PACKAGE naming the feature, the package and the command, with the cause', async () => {
    const name: string = ABSENT;
    const err = await importFeature(ABSENT_FEATURE, () => import(name)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAkashicError(err, 'AKASHIC_MISSING_PACKAGE')).toBe(true);
    const e = err as Error;
    expect(e.message).toBe(`a feature under test needs the optional package '${ABSENT}', which is not installed: npm install ${ABSENT}@^1.2.0`);
    expect((e.cause as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('a module missing that is not one of the feature\'s packages is rethrown as it is', async () => {
    const other = { name: 'another feature', packages: { 'some-other-package': '^1.0.0' } };
    const name: string = ABSENT;
    const err = await importFeature(other, () => import(name)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isAkashicError(err)).toBe(false);
    expect((err as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('any other failure is rethrown unchanged, and an installed feature loads', async () => {
    const boom = new Error('boom');
    await expect(importFeature(ABSENT_FEATURE, () => Promise.reject(boom))).rejects.toBe(boom);
    const mod = await importFeature(REDIS_BACKEND, () => import('../../src/backend/redis/redis-level.js'));
    expect(typeof mod.RedisLevel).toBe('function');
  });
});
