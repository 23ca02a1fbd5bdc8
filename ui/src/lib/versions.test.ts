import { describe, expect, it } from 'vitest';
import { isOlder, newestVersion, parseVersion } from './versions';

describe('agent versions', () => {
  it('compare numbers as numbers', () => {
    expect(isOlder('1.9.2', '1.10.0')).toBe(true);
    expect(isOlder('1.10.0', '1.9.2')).toBe(false);
    expect(isOlder('0.9.9', '0.10.0')).toBe(true);
    expect(isOlder('2.0.0', '10.0.0')).toBe(true);
  });

  it('rank a snapshot or pre-release below its release', () => {
    expect(isOlder('0.1.0-SNAPSHOT', '0.1.0')).toBe(true);
    expect(isOlder('0.1.0', '0.1.0-SNAPSHOT')).toBe(false);
    expect(isOlder('0.2.0-SNAPSHOT', '0.1.0')).toBe(false);
    expect(isOlder('1.0.0-rc.2', '1.0.0-rc.10')).toBe(true);
    expect(isOlder('1.0.0-1', '1.0.0-alpha')).toBe(true);
    expect(isOlder('1.0.0-alpha', '1.0.0-alpha.1')).toBe(true);
  });

  it('do not flag the same version, build metadata, or what does not parse', () => {
    expect(isOlder('0.1.0', '0.1.0')).toBe(false);
    expect(isOlder('v0.1', '0.1.0')).toBe(false);
    expect(isOlder('0.1.0+build.7', '0.1.0')).toBe(false);
    expect(isOlder(undefined, '0.2.0')).toBe(false);
    expect(isOlder('', '0.2.0')).toBe(false);
    expect(isOlder('latest', '0.2.0')).toBe(false);
    expect(isOlder('0.1.0<script>', '0.2.0')).toBe(false);
    expect(isOlder('0.1.0', undefined)).toBe(false);
    expect(parseVersion('1.2.3-rc.1')).toEqual({ major: 1, minor: 2, patch: 3, pre: ['rc', '1'] });
    expect(parseVersion('1.2.3.4')).toBeNull();
  });

  it('pick the newest registered package', () => {
    expect(newestVersion(['0.1.0', '1.9.2', '1.10.0', '1.10.0-rc.1', 'junk'])).toBe('1.10.0');
    expect(newestVersion(['0.1.0-SNAPSHOT', '0.1.0'])).toBe('0.1.0');
    expect(newestVersion([])).toBeUndefined();
    expect(newestVersion(['junk', undefined])).toBeUndefined();
  });
});
