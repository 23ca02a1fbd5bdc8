// Agent versions against the registered agent packages, ordered like the server orders packages
// (io.drover.core.packages.Version): semver precedence, read leniently — a leading "v" is ignored, missing minor
// and patch parts are zero, build metadata is ignored.

export interface Version {
  major: number;
  minor: number;
  patch: number;
  pre: string[];
}

const FORM = /^v?(\d{1,15})(?:\.(\d{1,15}))?(?:\.(\d{1,15}))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** The version, or null when the text is not one (an agent reports what it likes). */
export function parseVersion(text: string | null | undefined): Version | null {
  const m = FORM.exec((text ?? '').trim());
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2] ?? 0), patch: Number(m[3] ?? 0), pre: m[4] ? m[4].split('.') : [] };
}

function comparePre(a: string[], b: string[]): number {
  // a release ranks above its pre-releases: 0.1.0-SNAPSHOT < 0.1.0
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    let c: number;
    if (xn && yn) c = Number(x) - Number(y);
    else if (xn !== yn) c = xn ? -1 : 1; // numeric identifiers rank below alphanumeric ones
    else c = x < y ? -1 : x > y ? 1 : 0;
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Negative, zero or positive as a ranks below, with or above b. */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}

/** The highest of the versions that parse, as written; undefined when none does. */
export function newestVersion(versions: Array<string | null | undefined>): string | undefined {
  let best: { text: string; v: Version } | undefined;
  for (const text of versions) {
    const v = parseVersion(text);
    if (v && (!best || compareVersions(v, best.v) > 0)) best = { text: text!.trim(), v };
  }
  return best?.text;
}

/** Whether an agent's version is older than the newest package; an unreadable or missing version is not flagged. */
export function isOlder(agentVersion: string | null | undefined, newest: string | null | undefined): boolean {
  const a = parseVersion(agentVersion);
  const n = parseVersion(newest);
  return !!a && !!n && compareVersions(a, n) < 0;
}
